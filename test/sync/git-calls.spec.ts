/**
 * What a sync costs the host process in git calls: each call forks dsh, which pauses its event loop for longer the
 * more memory dsh holds, so a sync that finds nothing new makes at most three (fetch, one read of our refs, the
 * pending count's read), and every git call runs at the lowest CPU priority so that a turn's work goes first. git is
 * the real one, behind a wrapper on PATH that records each call and the niceness it ran at.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { syncWorld } from '../support/sync-machines.ts'
import { perTest } from '../support/store-helpers.ts'

const world = syncWorld()
const t = perTest()
let log: string
const path = process.env.PATH

beforeEach(async () => {
  const bin = await t.dir('ap-git-wrapper')
  log = join(bin, 'calls.log')
  writeFileSync(log, '')
  const real = process.env.AP_REAL_GIT ?? '/usr/bin/git'
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\n${real} "$@"\ncode=$?\necho "$(ps -o ni= -p $$ | tr -d ' ') $*" >> ${log}\nexit $code\n`,
  )
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}:${path}`
})
afterEach(() => {
  process.env.PATH = path
})

const calls = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')

it('a sync that finds nothing new makes at most three git calls, each at the lowest priority', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  await a.store.command({
    op: 'memory.add',
    target: { profileId: 'coder' },
    items: [{ text: 'likes Rust', source: 'tool' }],
  })
  expect((await a.engine.now()).error).toBeUndefined()
  writeFileSync(log, '')
  expect((await a.engine.now()).error).toBeUndefined()
  const idle = calls()
  expect(idle.length, idle.join('\n')).toBeLessThanOrEqual(3)
  for (const line of idle) expect(line.split(' ')[0], line).toBe('19')
})

it('a commit of many files writes their blobs with one git call, and they read back as written', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  // A first sync commits every profile's folder: several files in one commit.
  expect((await a.engine.now()).error).toBeUndefined()
  const writes = calls().filter((l) => / hash-object /.test(l))
  expect(writes, calls().join('\n')).toHaveLength(1)
  const b = await world.machine(remote)
  expect((await b.engine.now()).error).toBeUndefined()
  expect(b.store.state.profiles.map((p) => [p.id, p.name, p.role, p.rules])).toEqual(
    a.store.state.profiles.map((p) => [p.id, p.name, p.role, p.rules]),
  )
})
