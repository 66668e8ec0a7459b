/**
 * The pending count a state reply carries (profiles changed here and not in the remote yet): exact after a sync, and
 * between syncs counted from what changed in the store, without writing or hashing any memory file again on a reply
 * (so a fact saved in a profile of 10,000 items costs a reply nothing more). Real store, system git, a bare remote.
 */
import { describe, expect, it } from 'vitest'
import { syncWorld } from '../support/sync-machines.ts'
import { StateFiles } from '../../lib/sync/state-files.ts'

const world = syncWorld()

describe('the pending count', () => {
  it('counts each changed profile and About you between syncs, without writing the files again', async () => {
    const m = await world.machine(await world.remote())
    expect((await m.engine.now()).pending).toBe(0)
    let writes = 0
    const of = StateFiles.prototype.of
    StateFiles.prototype.of = function (this: StateFiles, ...a: Parameters<typeof of>) {
      writes++
      return of.apply(this, a)
    }
    try {
      const [first, second] = m.store.state.profiles
      await m.store.command({ op: 'memory.add', target: { profileId: first!.id }, items: [{ text: '一' }] })
      expect(m.engine.status().pending).toBe(1)
      await m.store.command({ op: 'memory.add', target: { profileId: first!.id }, items: [{ text: '二' }] })
      await m.store.command({ op: 'memory.add', target: { profileId: second!.id }, items: [{ text: '三' }] })
      expect(m.engine.status().pending).toBe(2)
      await m.store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户是后端工程师' }] })
      expect(m.engine.status().pending).toBe(3)
      expect(writes).toBe(0)
      // A sync sends them all; the count is exact again.
      expect((await m.engine.now()).pending).toBe(0)
    } finally {
      StateFiles.prototype.of = of
    }
  }, 60_000)
})
