import { afterEach, describe, expect, it } from 'vitest'
import { HISTORY_LIMITS, type MemoryItem, type Profile } from '../../lib/state/model.ts'
import type { MemoryHistoryEntry as HistoryEntry } from '../../lib/shared/memory-target.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())

const P = { profileId: 'general' }
const texts = (store: ProfileStore, id = 'general') =>
  store.state.profiles.find((p) => p.id === id)!.memory.items.map((it) => it.text)
async function history(store: ProfileStore, query: Record<string, unknown> = { target: P }): Promise<HistoryEntry[]> {
  return (await store.command({ op: 'memory.history', ...query } as never)).entries as HistoryEntry[]
}

describe('memory history', () => {
  it('records every kind of write with who, when, which conversation and what changed', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '用户叫小林' }] })
    await store.command({
      op: 'memory.add',
      target: P,
      items: [{ text: '用户喜欢 Rust', source: 'tool', sessionId: 'sess-1' }],
    })
    await store.command({
      op: 'memory.add',
      target: P,
      items: [{ text: '用户住在杭州', source: 'auto', sessionId: 'sess-2' }],
    })
    const first = store.state.profiles[0]!.memory.items[0]!
    await store.command({ op: 'memory.update', target: P, itemId: first.id, text: '用户叫小林，是后端工程师' })
    await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '后端工程师小林', items: [{ text: '住杭州，写 Rust' }] },
      sessionId: 'sess-2',
    })
    await store.command({ op: 'memory.add', target: { sessionId: 'sess-3' }, items: [{ text: '这次只谈第三章' }] })
    const entries = await history(store)
    expect(entries.map((e) => [e.who, e.sessionId])).toEqual([
      ['compress', 'sess-2'],
      ['user', undefined],
      ['auto', 'sess-2'],
      ['tool', 'sess-1'],
      ['user', undefined],
    ])
    const [compress, edit, auto] = entries
    expect(auto!.added.map((it) => it.text)).toEqual(['用户住在杭州'])
    expect(edit!.edited.map((e) => [e.before.text, e.after.text])).toEqual([['用户叫小林', '用户叫小林，是后端工程师']])
    // A compression forgets nothing: the items it condensed are edited in place into the archive.
    expect(compress!.removed).toEqual([])
    expect(compress!.edited.map((e) => [e.after.text, e.before.archived, e.after.archived])).toEqual([
      ['用户叫小林，是后端工程师', undefined, true],
      ['用户喜欢 Rust', undefined, true],
      ['用户住在杭州', undefined, true],
    ])
    expect(compress!.added.map((it) => it.text)).toEqual(['住杭州，写 Rust'])
    expect(compress!.summary).toEqual({ before: '', after: '后端工程师小林' })
    expect(entries.every((e) => e.at > 0 && 'profileId' in e.target && e.target.profileId === 'general')).toBe(true)
    // A conversation's own memories have their own list; the conversation's query finds both kinds it caused.
    const own = await history(store, { target: { sessionId: 'sess-3' } })
    expect(own.map((e) => [e.who, e.added.map((it) => it.text)])).toEqual([['user', ['这次只谈第三章']]])
    expect((await history(store, { sessionId: 'sess-2' })).map((e) => e.who)).toEqual(['compress', 'auto'])
  })

  it('records imports and the model-free edits of the settings page, never the state reply', async () => {
    const store = await open()
    const r = await store.command({
      op: 'profiles.importFiles',
      files: [{ name: 'a.md', format: 'markdown', text: '---\nname: 导入者\n---\n## 记忆\n- 用户养了一只猫\n' }],
    })
    const imported = (r.state.profiles as Profile[]).find((p) => p.name === '导入者')!
    const entries = await history(store, { target: { profileId: imported.id } })
    expect(entries.map((e) => [e.who, e.added.map((it) => it.text)])).toEqual([['import', ['用户养了一只猫']]])
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { summary: '手写的摘要', items: [] } },
    })
    expect((await history(store))[0]).toMatchObject({ who: 'user', summary: { before: '', after: '手写的摘要' } })
  })

  it('reverting an entry undoes exactly it and never loses what was saved after', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '甲' }, { text: '乙' }] })
    await store.command({
      op: 'memory.add',
      target: P,
      items: [
        { text: '丙', source: 'auto', sessionId: 'sess-1' },
        { text: '丁', source: 'auto', sessionId: 'sess-1' },
      ],
    })
    await store.command({ op: 'memory.add', target: P, items: [{ text: '戊', source: 'tool', sessionId: 'sess-1' }] })
    const [, run] = await history(store)
    // One fact of the run, then the whole run: the fact saved after it (戊) stays.
    const ding = run!.added.find((it) => it.text === '丁')!
    await store.command({ op: 'memory.revert', target: P, entryId: run!.id, itemIds: [ding.id], sessionId: 'sess-1' })
    expect(texts(store)).toEqual(['甲', '乙', '丙', '戊'])
    const all = await store.command({ op: 'memory.revert', target: P, entryId: run!.id })
    expect(all.reverted).toBe(1)
    expect(texts(store)).toEqual(['甲', '乙', '戊'])
    const again = await store.command({ op: 'memory.revert', target: P, entryId: run!.id })
    expect(again.notice.key).toBe('memory.revertNothing')
    const entries = await history(store)
    expect(entries[0]).toMatchObject({ who: 'undo', reverts: run!.id })
    expect(entries.find((e) => e.id === run!.id)!.revertedBy).toHaveLength(2)
    // Reverting the revert brings 丙 back: an undo is a write like any other.
    await store.command({ op: 'memory.revert', target: P, entryId: entries[0]!.id })
    expect(texts(store)).toEqual(['甲', '乙', '戊', '丙'])
  })

  it('reverting an old compression brings the items back and keeps what was added and edited since', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '旧一' }, { text: '旧二' }] })
    await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '压缩摘要', items: [{ text: '合并后' }] },
    })
    await store.command({ op: 'memory.add', target: P, items: [{ text: '新的' }] })
    await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '第二次', items: [{ text: '合并后' }, { text: '新的' }] },
    })
    const older = (await history(store)).filter((e) => e.who === 'compress')[1]!
    await store.command({ op: 'memory.revert', target: P, entryId: older.id })
    // The first compression's item and summary were since rewritten by the second one: they stay as they are now;
    // the items it condensed come back into the core.
    const items = store.state.profiles[0]!.memory.items
    expect(items.filter((it) => it.archived !== true).map((it) => it.text)).toEqual(['合并后', '新的', '旧一', '旧二'])
    expect(items.filter((it) => it.archived === true).map((it) => it.text)).toEqual(['合并后', '新的'])
    expect(store.state.profiles[0]!.memory.summary).toBe('第二次')
  })

  it('a revert of an edit applies only while the item still reads as that edit left it', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '原文' }] })
    const item = store.state.profiles[0]!.memory.items[0]!
    await store.command({ op: 'memory.update', target: P, itemId: item.id, text: '改一' })
    const [edit] = await history(store)
    await store.command({ op: 'memory.update', target: P, itemId: item.id, text: '改二' })
    expect((await store.command({ op: 'memory.revert', target: P, entryId: edit!.id })).reverted).toBe(0)
    expect(texts(store)).toEqual(['改二'])
    await expectRefused(
      store,
      { op: 'memory.revert', target: P, entryId: 'h-nope' },
      { code: 'not-found', field: 'entryId' },
    )
    await expectRefused(
      store,
      { op: 'memory.revert', target: P, entryId: edit!.id, itemIds: [] },
      { code: 'invalid', field: 'itemIds' },
    )
  })

  it('is bounded per list, survives a restart, and goes with its profile', async () => {
    const store = await open()
    for (let i = 0; i < HISTORY_LIMITS.entries + 30; i++) {
      await store.command({ op: 'memory.add', target: P, items: [{ text: `事实 ${i}` }] })
      const last = store.state.profiles[0]!.memory.items.at(-1) as MemoryItem
      if (i % 2 === 1) await store.command({ op: 'memory.remove', target: P, itemId: last.id })
    }
    const kept = store.state.history!.general!
    expect(kept).toHaveLength(HISTORY_LIMITS.entries)
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(HISTORY_LIMITS.chars)
    const reopened = await ctx.open()
    expect(reopened.state.history).toEqual(store.state.history)
    await reopened.close()
    const { profile } = (await store.command({
      op: 'profile.create',
      profile: { name: '临时', memory: { items: [{ text: '会被删掉' }] } },
    })) as unknown as { profile: Profile }
    expect(store.state.history![profile.id]).toHaveLength(1)
    await store.command({ op: 'profile.delete', id: profile.id })
    expect(store.state.history![profile.id]).toBeUndefined()
  })

  it("another store on the same database sees each write's entry, and a deleted profile's list goes", async () => {
    const store = await open()
    const other = await ctx.open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '甲', source: 'tool', sessionId: 'sess-1' }] })
    expect(other.state.history?.general?.map((e) => e.who)).toEqual(['tool'])
    await other.command({ op: 'memory.add', target: P, items: [{ text: '乙' }] })
    expect(store.state.history?.general?.map((e) => e.who)).toEqual(['tool', 'user'])
    const { profile } = (await store.command({
      op: 'profile.create',
      profile: { name: '临时', memory: { items: [{ text: '丙' }] } },
    })) as unknown as { profile: Profile }
    expect(other.state.history?.[profile.id]).toHaveLength(1)
    await store.command({ op: 'profile.delete', id: profile.id })
    expect(other.state.history?.[profile.id]).toBeUndefined()
  })

  it('keeps the newest entry even past the character bound, dropping older ones first', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '小' }] })
    const big = Array.from({ length: 150 }, (_, i) => ({ text: `${i} ${'长'.repeat(900)}` }))
    await store.command({ op: 'memory.add', target: P, items: big })
    const kept = store.state.history!.general!
    expect(kept).toHaveLength(1)
    expect(kept[0]!.added).toHaveLength(150)
  })
})
