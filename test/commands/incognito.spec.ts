import { afterEach, describe, expect, it } from 'vitest'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

describe('incognito conversations in the store', () => {
  it("is a conversation setting of its own, kept across a restart, and refuses the tool's and the job's facts from it", async () => {
    const store = (ctx = await freshStore()).store
    await store.command({ op: 'session.set', sessionId: 'sess-1', patch: { incognito: true } })
    expect(store.state.sessions.get('sess-1')).toEqual({ profileId: null, note: '', memories: [], incognito: true })
    const reopened = await ctx.open()
    expect(reopened.state.sessions.get('sess-1')?.incognito).toBe(true)
    await reopened.close()
    for (const source of ['tool', 'auto'] as const) {
      await expectRefused(
        store,
        {
          op: 'memory.add',
          target: { profileId: 'general' },
          items: [{ text: '不该存', source, sessionId: 'sess-1' }],
        },
        { code: 'conflict', field: 'items' },
      )
    }
    // The user may still type a memory by hand, and another conversation still saves.
    await store.command({ op: 'memory.add', target: { sessionId: 'sess-1' }, items: [{ text: '手写的' }] })
    await store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '别处存的', source: 'tool', sessionId: 'sess-2' }],
    })
    expect(store.state.profiles[0]!.memory.items.map((it) => it.text)).toEqual(['别处存的'])
    await store.command({ op: 'session.set', sessionId: 'sess-1', patch: { incognito: false } })
    expect(store.state.sessions.get('sess-1')!.incognito).toBeUndefined()
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 'sess-1', patch: { incognito: 'yes' } },
      { code: 'invalid', field: 'patch.incognito' },
    )
  })
})
