/**
 * The host's side of the git helper (lib/sync/git-host.ts) when turns begin and end: the helper is told only when it
 * has a git call under way, so that a turn with no sync under way does no work for the sync on the host's thread
 * (a message serialized and written at the turn's start); one under way is still stopped and continued. The real
 * helper and the real git; the messages the host sends are recorded at the forked child.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it, vi } from 'vitest'
import { pauseSyncGit, runGit } from '../../lib/sync/git-host.ts'
import { perTest } from '../support/store-helpers.ts'

const sent = vi.hoisted(() => [] as unknown[])

vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>()
  return {
    ...real,
    fork: (...args: Parameters<typeof real.fork>) => {
      const child = real.fork(...args)
      const send = child.send.bind(child) as (m: unknown) => boolean
      child.send = ((m: unknown) => {
        sent.push(m)
        return send(m)
      }) as typeof child.send
      return child
    },
  }
})

const t = perTest()

/** A git call as the sync makes one, in `dir`. */
const job = (dir: string, args: string[]) => ({
  name: args.at(-1)!,
  args,
  env: process.env,
  cwd: dir,
  input: '',
  timeoutMs: 60_000,
  maxOutput: 1 << 20,
})

const pauses = () => sent.filter((m) => typeof m === 'object' && m !== null && 'pause' in m)

it('tells the git helper of a turn only while it runs a git call for a sync', async () => {
  const dir = await t.dir('ap-git-host')
  // The helper is there (it ran a call) and idle: a turn begins and ends with nothing to stop.
  expect(await runGit(dir, job(dir, ['--version']))).toMatchObject({ code: 0 })
  pauseSyncGit(true)
  pauseSyncGit(false)
  expect(pauses()).toEqual([])

  // A call under way (it waits for a file): the turn stops it and its end continues it.
  const started = join(dir, 'started')
  const go = join(dir, 'go')
  const alias = `alias.hold=!touch ${started}; while [ ! -e ${go} ]; do sleep 0.02; done`
  const held = runGit(dir, job(dir, ['-c', alias, 'hold']))
  for (let i = 0; i < 400 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 25))
  pauseSyncGit(true)
  pauseSyncGit(false)
  expect(pauses()).toEqual([{ pause: true }, { pause: false }])
  writeFileSync(go, '')
  expect(await held).toMatchObject({ code: 0 })

  // Idle again: nothing told.
  pauseSyncGit(true)
  pauseSyncGit(false)
  expect(pauses()).toHaveLength(2)
})
