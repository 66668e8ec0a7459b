import { afterEach, describe, expect, it } from 'vitest'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

describe('session.refreshMemory', () => {
  it("stamps the conversation's settings, even a conversation with none, and another process reading the data sees it", async () => {
    const store = (ctx = await freshStore()).store
    const other = await ctx.open()
    const reply = await store.command({ op: 'session.refreshMemory', sessionId: 'sess-1' })
    expect(reply.notice).toEqual({ key: 'session.memoryRefreshed' })
    const stamp = store.state.sessions.get('sess-1')?.memoryRefreshedAt
    expect(stamp).toBeTypeOf('number')
    expect(other.state.sessions.get('sess-1')).toEqual({
      profileId: null,
      note: '',
      memories: [],
      memoryRefreshedAt: stamp,
    })
    // A second refresh is a new stamp; the rest of the settings stay as they were.
    await store.command({ op: 'session.set', sessionId: 'sess-1', patch: { note: '补充' } })
    await new Promise((resolve) => setTimeout(resolve, 2))
    await store.command({ op: 'session.refreshMemory', sessionId: 'sess-1' })
    expect(store.state.sessions.get('sess-1')!.memoryRefreshedAt).toBeGreaterThan(stamp!)
    expect(store.state.sessions.get('sess-1')!.note).toBe('补充')
    await other.close()
    const reopened = await ctx.open()
    expect(reopened.state.sessions.get('sess-1')!.memoryRefreshedAt).toBe(
      store.state.sessions.get('sess-1')!.memoryRefreshedAt,
    )
    await reopened.close()
    // Clearing the conversation's settings takes the stamp with them.
    await store.command({ op: 'session.clear', sessionId: 'sess-1' })
    expect(store.state.sessions.has('sess-1')).toBe(false)
    await expectRefused(store, { op: 'session.refreshMemory', sessionId: '' }, { code: 'invalid', field: 'sessionId' })
    await expectRefused(store, { op: 'session.refreshMemory', sessionId: 'sess-1', at: 5 }, { code: 'invalid' })
  })
})
