// Pinned memory items: compression never rewrites or drops them, and they are injected first when the budget cuts.
import { afterEach, describe, expect, it } from 'vitest'
import { renderParts } from '../../lib/prompt/render.ts'
import type { MemoryItem, Profile } from '../../lib/state/model.ts'
import { freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())
const P = { profileId: 'general' }
const memoryOf = (s: { state: { profiles: readonly Profile[] } }) => s.state.profiles[0]!.memory

describe('pinned memory items', () => {
  it('survive a compression whose answer drops or rewrites them, verbatim and first', async () => {
    const store = (ctx = await freshStore()).store
    await store.command({
      op: 'memory.add',
      target: P,
      items: [{ text: '甲：很早的事实' }, { text: '乙：用户的女儿叫小满' }, { text: '丙：后来的事实' }],
    })
    const [a, b, c] = memoryOf(store).items as [MemoryItem, MemoryItem, MemoryItem]
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: [a, { ...b, pinned: true }, c] }, basedOn: [a.id, b.id, c.id] },
    })
    expect(memoryOf(store).items[1]).toMatchObject({ text: '乙：用户的女儿叫小满', pinned: true })
    // The compression worked from the unpinned items only; its answer repeats the pinned one reworded, and adds one.
    await store.command({
      op: 'memory.compress',
      profileId: 'general',
      basedOn: [a.id, c.id],
      memory: {
        summary: '压缩后',
        items: [{ text: '甲丙合并' }, { text: '乙：用户的女儿叫小满。', pinned: true } as never],
      },
    })
    const after = memoryOf(store)
    expect(after.items.filter((it) => it.archived !== true).map((it) => [it.text, it.pinned ?? false])).toEqual([
      ['乙：用户的女儿叫小满', true],
      ['甲丙合并', false],
    ])
    expect(after.items[0]).toEqual(memoryOf(store).items[0])
    expect(after.items[0]!.id).toBe(b.id)
  })

  it('are unpinned by an editor that sends them back without the pin', async () => {
    const store = (ctx = await freshStore()).store
    await store.command({ op: 'memory.add', target: P, items: [{ text: '一条' }] })
    const it0 = memoryOf(store).items[0]!
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: [{ ...it0, pinned: true }] } },
    })
    expect(memoryOf(store).items[0]!.pinned).toBe(true)
    await store.command({ op: 'profile.update', id: 'general', patch: { memory: { items: [it0] } } })
    expect(memoryOf(store).items[0]!.pinned).toBeUndefined()
  })

  it('are injected first when the memory budget cuts, the newest unpinned after them', () => {
    const items: MemoryItem[] = Array.from({ length: 30 }, (_, i) => ({
      id: `m${i}`,
      text: `第${i}条记忆：${'字'.repeat(40)}`,
      source: 'user',
      at: i,
    }))
    items[2] = { ...items[2]!, text: '置顶：用户对花生过敏', pinned: true }
    const p = { name: 'x', role: '助手', memoryEnabled: true, memory: { summary: '', items } }
    const memory = renderParts(p, undefined, { memoryBudget: 300 }).memory
    expect(memory).toContain('置顶：用户对花生过敏')
    expect(memory).toContain('第29条')
    expect(memory).not.toContain('第3条')
    expect(
      renderParts({ ...p, memory: { summary: '', items: items.map(({ pinned: _p, ...it }) => it) } }, undefined, {
        memoryBudget: 300,
      }).memory,
    ).not.toContain('置顶')
  })
})
