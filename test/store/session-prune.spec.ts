import type { Context } from '@deepseek-ai/cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { installSessionPrune } from '../../lib/store/session-prune.ts'
import { freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  await ctx?.dispose()
})

/** The host services the pass reads: a persistence listing the spec controls, and the live sessions. */
function host(listing: () => Promise<Array<{ id: string }>>, live: string[] = []): Context {
  return {
    sessionPersistence: { list: listing },
    get: (name: string) => (name === 'sessions' ? { list: () => live.map((id) => ({ id })) } : undefined),
    effect: () => () => {},
  } as unknown as Context
}

async function storeWith(ids: string[]) {
  ctx = await freshStore()
  for (const id of ids) await ctx.store.command({ op: 'session.set', sessionId: id, patch: { note: id } })
  await ctx.store.command({ op: 'turn.record', sessionId: 'only-turns', turn: 1, profileId: 'general' })
  return ctx.store
}

describe('forgetting conversations the host no longer has', () => {
  it('forgets a conversation only when two listings lack it; live and listed ones stay; its turns go too', async () => {
    const store = await storeWith(['a', 'b', 'gone', 'new-live'])
    let listed = ['a', 'b', 'x', 'y']
    const pass = installSessionPrune(
      host(async () => listed.map((id) => ({ id })), ['new-live']),
      store,
      60_000,
      { warn() {} },
    )
    await pass.run()
    expect([...store.state.sessions.keys()].sort()).toEqual(['a', 'b', 'gone', 'new-live'])
    expect(pass.status().pending).toBe(2)
    // 'gone' comes back in the next listing: it was a listing caught mid-change, not a deletion.
    listed = ['a', 'b', 'x', 'gone']
    await pass.run()
    expect(store.state.sessions.has('gone')).toBe(true)
    expect(store.turnsOf('only-turns')).toEqual({})
    listed = ['a', 'b', 'x']
    await pass.run()
    await pass.run()
    expect([...store.state.sessions.keys()].sort()).toEqual(['a', 'b', 'new-live'])
    expect(pass.status()).toMatchObject({ forgotten: 2, skipped: null })
  })

  it('a failing listing, an empty one, or one under half the last one forgets nothing', async () => {
    const store = await storeWith(['a', 'b', 'c', 'd'])
    let mode: 'fail' | 'empty' | 'small' | 'full' = 'full'
    const warned: string[] = []
    const pass = installSessionPrune(
      host(async () => {
        if (mode === 'fail') throw new Error('EIO: the sessions directory could not be read')
        return (mode === 'empty' ? [] : mode === 'small' ? ['a'] : ['a', 'b', 'c', 'd', 'e', 'f']).map((id) => ({ id }))
      }),
      store,
      60_000,
      { warn: (m) => warned.push(m) },
    )
    await pass.run()
    for (const m of ['fail', 'empty', 'small', 'fail', 'empty', 'small'] as const) {
      mode = m
      await pass.run()
      expect(store.state.sessions.size, m).toBe(4)
      expect(pass.status().skipped, m).toMatch(m === 'fail' ? /failed \(EIO/ : /looks partial/)
    }
    expect(warned.some((w) => w.includes('EIO'))).toBe(true)
  })
})
