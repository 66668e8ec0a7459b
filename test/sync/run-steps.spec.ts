/**
 * A run's own work on the host's thread is cut into steps a turn comes between (#41): the local commit writes and
 * hashes every changed profile's files (a memory file whole at each saved fact), the longest thing a sync does on the
 * host's thread. A turn whose request arrives while the first profile's files are written begins before the next
 * profile's, and the run waits for it there; the commit then holds every profile. With the real system git and store;
 * the turn is the run's gate, as the engine's TurnQuiet is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { syncOnce } from '../../lib/sync/run.ts'
import { StateFiles } from '../../lib/sync/state-files.ts'
import { profileFiles } from '../../lib/sync/layout.ts'
import { gitIn, syncWorld } from '../support/sync-machines.ts'

vi.mock('../../lib/sync/layout.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/sync/layout.ts')>()
  return { ...actual, profileFiles: vi.fn(actual.profileFiles) }
})

const actual = await vi.importActual<typeof import('../../lib/sync/layout.ts')>('../../lib/sync/layout.ts')
const world = syncWorld()
afterEach(() => vi.mocked(profileFiles).mockClear())

/** How many profiles' files have been written so far. */
const written = () => vi.mocked(profileFiles).mock.calls.length

describe('a run beside a turn', () => {
  it('lets a turn arriving while it hashes a profile begin before the next profile', async () => {
    const remote = await world.remote()
    const m = await world.machine(remote)
    for (const profileId of ['coder', 'writer'])
      await m.store.command({ op: 'memory.add', target: { profileId }, items: [{ text: `${profileId} 的事实` }] })
    const profiles = m.store.state.profiles.length
    expect(profiles).toBeGreaterThan(1)

    const seen = { atTurn: -1, whenWaited: -1 }
    let turn: { ended: Promise<void>; end: () => void } | undefined
    vi.mocked(profileFiles).mockImplementationOnce((...args) => {
      // The turn's request arrives while the first profile's files are written: it is read when the thread is free.
      setImmediate(() => {
        seen.atTurn = written()
        let end = () => {}
        const ended = new Promise<void>((resolve) => (end = resolve))
        turn = { ended, end }
      })
      return actual.profileFiles(...args)
    })
    const between = async () => {
      const t = turn
      if (t === undefined) return
      seen.whenWaited = written()
      turn = undefined
      setImmediate(t.end)
      await t.ended
    }
    const outcome = await syncOnce(m.repo, m.store, new StateFiles(), between)

    expect(seen).toEqual({ atTurn: 1, whenWaited: 1 })
    expect(outcome.committed).toBe(true)
    expect(written()).toBe(profiles)
    const folders = gitIn(remote, 'ls-tree', '--name-only', 'main', 'profiles/').split('\n').filter(Boolean)
    expect(folders).toHaveLength(profiles)
  })
})
