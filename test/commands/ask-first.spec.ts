import { afterEach, describe, expect, it } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())
const P = { profileId: 'general' }

describe('ask-first mode in the store', () => {
  it("turns the tool's and the job's facts into suggestions, never the user's, and only memory.approve makes them memories", async () => {
    const store = (ctx = await freshStore()).store
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { memoryMode: 'sometimes' } },
      { code: 'invalid', field: 'patch.memoryMode' },
    )
    await store.command({ op: 'profile.update', id: 'general', patch: { memoryMode: 'ask' } })
    await store.command({
      op: 'memory.add',
      target: P,
      items: [
        { text: '模型的', source: 'tool', sessionId: 's1' },
        { text: '提取的', source: 'auto', sessionId: 's1' },
      ],
    })
    await store.command({ op: 'memory.add', target: P, items: [{ text: '手写的' }] })
    // A conversation's own memories follow the profile it uses.
    await store.command({
      op: 'memory.add',
      target: { sessionId: 's1' },
      items: [{ text: '对话里的', source: 'tool', sessionId: 's1' }],
    })
    const items = () => store.state.profiles[0]!.memory.items
    expect(items().map((it) => [it.text, it.pending ?? false])).toEqual([
      ['模型的', true],
      ['提取的', true],
      ['手写的', false],
    ])
    expect(store.state.sessions.get('s1')!.memories[0]!.pending).toBe(true)
    // An editor sending the items back cannot approve them (nor make a memory a suggestion).
    const [tool, auto, hand] = items() as [MemoryItem, MemoryItem, MemoryItem]
    const { pending: _p, ...unpended } = tool
    // (A variable, not a literal: the patch's type has no `pending`, and sending one anyway is what is tested.)
    const pended = { ...hand, pending: true as const }
    await store.command({ op: 'profile.update', id: 'general', patch: { memory: { items: [unpended, auto, pended] } } })
    expect(items().map((it) => it.pending ?? false)).toEqual([true, true, false])
    await store.command({ op: 'memory.approve', target: P, itemId: tool.id, text: '模型的（改过）' })
    expect(items()[0]).toMatchObject({ text: '模型的（改过）', source: 'tool', approved: true })
    expect(items()[0]!.pending).toBeUndefined()
    await expectRefused(
      store,
      { op: 'memory.approve', target: P, itemId: hand.id },
      { code: 'conflict', field: 'itemId' },
    )
    await expectRefused(
      store,
      { op: 'memory.approve', target: P, itemId: auto.id, text: '手写的' },
      { code: 'conflict', field: 'text' },
    )
    const reopened = await ctx.open()
    expect(reopened.state.profiles[0]!.memory.items.map((it) => it.pending ?? false)).toEqual([false, true, false])
    // Approval survives a restart and an editor sending the items back: the approved fact stays the user's.
    expect(reopened.state.profiles[0]!.memory.items.map((it) => it.approved ?? false)).toEqual([true, false, false])
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: items().map(({ id, text }) => ({ id, text })) } },
    })
    expect(items()[0]!.approved).toBe(true)
    expect(reopened.state.profiles[0]!.memoryMode).toBe('ask')
    await reopened.close()
  })
})
