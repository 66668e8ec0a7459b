/**
 * The git helper process: every git call of a sync is forked from one small helper process, never from the host (whose
 * fork pauses a turn for longer the more memory it holds), at the lowest priority; a helper killed in the middle of
 * a sync is replaced and the next run completes with nothing lost; calls for one repository never overlap. git is
 * the real one, behind a wrapper on PATH that records which process started each call and can hold a push.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { git } from '../../lib/sync/git.ts'
import { gitIn, syncWorld } from '../support/sync-machines.ts'
import { perTest } from '../support/store-helpers.ts'

const world = syncWorld()
const t = perTest()
let bin: string
const path = process.env.PATH

beforeEach(async () => {
  bin = await t.dir('ap-git-wrapper')
  writeFileSync(join(bin, 'calls.log'), '')
  const real = process.env.AP_REAL_GIT ?? '/usr/bin/git'
  // Logs "<parent pid> <niceness> <args>"; a push waits while `hold` exists (then fails, pushing nothing); every call
  // takes the `busy` directory for its whole run and logs `overlap` when another call holds it.
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/sh',
      `b=${bin}`,
      'mkdir "$b/busy" 2>/dev/null || echo overlap >> "$b/calls.log"',
      'case " $* " in *" push "*) if [ -e "$b/hold" ]; then echo $PPID > "$b/pushing"; sleep 20; rmdir "$b/busy" 2>/dev/null; exit 1; fi;; esac',
      `${real} "$@"`,
      'code=$?',
      'sleep 0.02',
      'rmdir "$b/busy" 2>/dev/null',
      `echo "$PPID $(ps -o ni= -p $$ | tr -d ' ') $*" >> "$b/calls.log"`,
      'exit $code',
    ].join('\n') + '\n',
  )
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}:${path}`
})
afterEach(() => {
  process.env.PATH = path
})

const calls = () =>
  readFileSync(join(bin, 'calls.log'), 'utf8')
    .split('\n')
    .filter((l) => l === 'overlap' || /^\d+ -?\d+ /.test(l))

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25))
  expect(check()).toBe(true)
}

it('runs every git call of a sync in one helper process, not forked from the host, at the lowest priority', async () => {
  const a = await world.machine(await world.remote())
  await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'likes Rust' }] })
  writeFileSync(join(bin, 'calls.log'), '')
  expect((await a.engine.now()).error).toBeUndefined()
  expect((await a.engine.now()).error).toBeUndefined()
  const lines = calls()
  expect(lines.length).toBeGreaterThan(3)
  const parents = new Set(lines.map((l) => Number(l.split(' ')[0])))
  expect(parents.size, lines.join('\n')).toBe(1)
  expect(parents.has(process.pid)).toBe(false)
  for (const line of lines) expect(line.split(' ')[1], line).toBe('19')
})

it('replaces a helper killed in the middle of a sync; the next run pushes everything, nothing lost', async () => {
  const remote = await world.remote()
  const a = await world.machine(remote)
  expect((await a.engine.now()).error).toBeUndefined()
  await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'likes Rust' }] })
  writeFileSync(join(bin, 'hold'), '')
  const run = a.engine.now()
  await until(() => existsSync(join(bin, 'pushing')))
  const first = Number(readFileSync(join(bin, 'pushing'), 'utf8'))
  expect(first).not.toBe(process.pid)
  process.kill(first, 'SIGKILL')
  const failed = await run
  expect(failed.error?.detail).toMatch(/helper/)
  rmSync(join(bin, 'hold'))
  await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'likes Go' }] })
  expect((await a.engine.now()).error).toBeUndefined()
  const after = new Set(calls().map((l) => Number(l.split(' ')[0])))
  expect(after.has(first)).toBe(true)
  expect([...after].some((p) => p !== first && p !== process.pid)).toBe(true)
  const pushed = gitIn(remote, 'show', 'main:profiles/coder/memory.jsonl')
  expect(pushed).toContain('likes Rust')
  expect(pushed).toContain('likes Go')
  const b = await world.machine(remote)
  expect((await b.engine.now()).error).toBeUndefined()
  const texts = b.store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((it) => it.text)
  expect(texts).toEqual(expect.arrayContaining(['likes Rust', 'likes Go']))
})

it('never runs two git calls for one repository at once', async () => {
  const dir = join(await t.dir('ap-git-queue'), 'repo.git')
  await git(dir, ['init', '--bare', '--quiet', '--template=', dir])
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => git(dir, ['rev-parse', '--git-dir']).then((r) => r.stdout.toString().trim())),
  )
  expect(answers).toEqual(Array.from({ length: 8 }, () => dir))
  expect(calls().filter((l) => l === 'overlap')).toEqual([])
})
