/**
 * The last push survives a restart: a new store and sync part on the same data directory show when this machine last
 * pushed and what, as Diagnostics does; a record file that is corrupt, oversized or about another remote is refused
 * (logged, naming the file and the rule) and the sync goes on.
 */
import { execFileSync } from 'node:child_process'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { installSync, type SyncPart } from '../../lib/sync/install.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { perTest } from '../support/store-helpers.ts'
import { memoryLog } from '../support/store-fixtures.ts'

const t = perTest()

/** One dsh start on the data directory `dir`: its store and sync part (stopped by `stop`). */
async function start(dir: string) {
  const store = await t.start(join(dir, 'profiles.sqlite'))
  const log = memoryLog()
  const part = installSync(store, log, { debounceMs: 3_600_000, intervalMs: 3_600_000 })
  const stop = async () => {
    await part.stop()
    await store.close()
    t.closed(store)
  }
  return { store, part, log, stop }
}

async function remote(): Promise<string> {
  const dir = join(await t.dir('ap-remote'), 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', dir])
  return dir
}

async function save(store: ProfileStore, text: string) {
  await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text, source: 'tool' }] })
}

/** The record file of the personal clone of the data directory `dir`. */
const recordOf = (dir: string) => join(dir, 'sync', 'personal.push.json')

/** A machine that pushed once, stopped (as dsh exits): its data directory and what it showed. */
async function pushedOnce(r: string) {
  const dir = await t.dir('ap-home')
  const first = await start(dir)
  await first.part.configure({ remote: r, branch: 'main' })
  await save(first.store, '用户喜欢 Rust')
  const shown = (await first.part.now()).status
  await first.stop()
  return { dir, shown }
}

const lastPushOf = (part: SyncPart) => {
  const s = part.diagnostics()
  return { at: s.lastPush, subject: s.lastPushSubject }
}

describe('the last push across restarts', () => {
  it('a restart shows the same last push, when and what, from a file only the user can read, for its remote', async () => {
    const r = await remote()
    const { dir, shown } = await pushedOnce(r)
    expect(shown.error).toBeUndefined()
    expect(shown.lastPush).toBeTypeOf('number')
    const pushed = execFileSync('git', ['--git-dir', r, 'log', '-1', '--format=%s', 'main'], {
      encoding: 'utf8',
    }).trim()
    expect(shown.lastPushSubject).toBe(pushed)
    expect(statSync(recordOf(dir)).mode & 0o777).toBe(0o600)

    const again = await start(dir)
    expect(lastPushOf(again.part)).toEqual({ at: shown.lastPush, subject: pushed })
    expect(again.log.lines).toEqual([])
    // A sync with nothing to send keeps it; the next push replaces it.
    await again.part.now()
    expect(lastPushOf(again.part).at).toBe(shown.lastPush)
    await save(again.store, '用户用 Vim')
    await again.part.now()
    expect(lastPushOf(again.part).at).toBeGreaterThan(shown.lastPush!)
    // The record is about that remote: after the settings change to another, nothing is said to be pushed there.
    await again.part.configure({ remote: await remote(), branch: 'main' })
    expect(lastPushOf(again.part).at).toBeUndefined()
    await again.stop()
  })

  it.each([
    ['a corrupt', 'not json {', /personal\.push\.json is refused \(it is not JSON\)/],
    [
      'an oversized',
      `${JSON.stringify({ pad: 'x'.repeat(10_000) })}\n`,
      /is refused \(it is \d+ bytes, over the limit of 4096\)/,
    ],
    [
      'an off-the-schema',
      `${JSON.stringify({ at: -1, commit: 'zz', subject: 's', remote: 'r', branch: 'b' })}\n`,
      /is refused \(at: /,
    ],
  ])('%s record is refused with a clear log line and the sync goes on', async (_kind, text, said) => {
    const r = await remote()
    const { dir } = await pushedOnce(r)
    writeFileSync(recordOf(dir), text)
    const again = await start(dir)
    expect(lastPushOf(again.part).at).toBeUndefined()
    expect(again.log.lines.join('\n')).toMatch(said)
    expect(again.part.diagnostics().error).toBeUndefined()
    await save(again.store, '用户用 Vim')
    const s = (await again.part.now()).status
    expect(s.error).toBeUndefined()
    expect(s.lastPush).toBeTypeOf('number')
    // The refused file was replaced by a good record.
    await again.stop()
    const third = await start(dir)
    expect(lastPushOf(third.part).at).toBe(s.lastPush)
    await third.stop()
  })
})
