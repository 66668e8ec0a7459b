/**
 * The pending count a state reply carries (profiles changed here and not in the remote yet): exact after a sync, and
 * between syncs counted from what changed in the store, without writing or hashing any memory file again on a reply
 * (so a fact saved in a profile of 10,000 items costs a reply nothing more). Real store, system git, a bare remote.
 */
import { describe, expect, it, vi } from 'vitest'
import { syncWorld } from '../support/sync-machines.ts'
import { StateFiles } from '../../lib/sync/state-files.ts'
import { SyncEngine } from '../../lib/sync/engine.ts'

const world = syncWorld()

describe('the pending count', () => {
  it('counts each changed profile and About you between syncs, without writing the files again', async () => {
    const m = await world.machine(await world.remote())
    expect((await m.engine.now()).pending).toBe(0)
    const of = vi.spyOn(StateFiles.prototype, 'of')
    try {
      const [first, second] = m.store.state.profiles
      await m.store.command({ op: 'memory.add', target: { profileId: first!.id }, items: [{ text: '一' }] })
      expect(m.engine.status().pending).toBe(1)
      await m.store.command({ op: 'memory.add', target: { profileId: first!.id }, items: [{ text: '二' }] })
      await m.store.command({ op: 'memory.add', target: { profileId: second!.id }, items: [{ text: '三' }] })
      expect(m.engine.status().pending).toBe(2)
      await m.store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户是后端工程师' }] })
      expect(m.engine.status().pending).toBe(3)
      expect(of).not.toHaveBeenCalled()
      // A sync sends them all; the count is exact again.
      expect((await m.engine.now()).pending).toBe(0)
    } finally {
      of.mockRestore()
    }
  }, 60_000)

  it('after a pull, the exact count waits for the turn under way, and a reply meanwhile hashes no file', async () => {
    const remote = await world.remote()
    const a = await world.machine(remote)
    const b = await world.machine(remote)
    expect((await a.engine.now()).error).toBeUndefined()
    let turn = false
    let endTurn: (() => void) | undefined
    const quiet = {
      settled: () => (turn ? new Promise<void>((resolve) => (endTurn = resolve)) : Promise.resolve()),
    }
    const engine = new SyncEngine({ store: b.store, repo: b.repo, log: { warn: () => {} }, quiet })
    expect((await engine.now()).pending).toBe(0)
    await a.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户喜欢 Rust' }] })
    expect((await a.engine.now()).error).toBeUndefined()
    // A turn begins the moment the pulled fact is in B's store.
    const off = b.store.onChange(() => (turn = true))
    const of = vi.spyOn(StateFiles.prototype, 'of')
    try {
      let done = false
      const run = engine.now().then((s) => ((done = true), s))
      await expect.poll(() => turn, { timeout: 15_000 }).toBe(true)
      const pulled = of.mock.calls.length
      // The run's last step waits for the turn; until it ends, the count is not looked at and a reply hashes nothing.
      await expect.poll(() => endTurn !== undefined, { timeout: 15_000 }).toBe(true)
      engine.status()
      expect({ done, writes: of.mock.calls.length }).toEqual({ done: false, writes: pulled })
      turn = false
      endTurn!()
      expect((await run).pending).toBe(0)
      expect(of).toHaveBeenCalledTimes(pulled + 1)
      expect(b.store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toContain(
        '用户喜欢 Rust',
      )
    } finally {
      of.mockRestore()
      off()
      await engine.stop()
    }
  }, 60_000)
})
