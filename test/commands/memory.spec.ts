import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS, type MemoryItem } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())

const P = { profileId: 'general' }
const items = (store: { state: { profiles: readonly { memory: { items: MemoryItem[] } }[] } }) =>
  store.state.profiles[0]!.memory.items

describe('memory.add', () => {
  it('stores items with provenance and returns what was added', async () => {
    const store = await open()
    const r = await store.command({
      op: 'memory.add',
      target: P,
      items: [{ text: '用户叫小林' }, { text: '喜欢 Rust', source: 'tool', sessionId: 'session-9' }],
    })
    expect(r.added).toHaveLength(2)
    expect(r.duplicates).toEqual([])
    expect(items(store)).toMatchObject([
      { text: '用户叫小林', source: 'user' },
      { text: '喜欢 Rust', source: 'tool', sessionId: 'session-9' },
    ])
    expect(items(store)[0]!.id).not.toBe(items(store)[1]!.id)
    expect(items(store)[0]!.at).toBeGreaterThan(0)
  })

  it('skips duplicates by normalized text, within the batch and against what is stored', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '喜欢 Rust。' }] })
    const r = await store.command({
      op: 'memory.add',
      target: P,
      items: [{ text: '  喜欢   rust ' }, { text: '住在上海' }, { text: '住在上海！' }],
    })
    expect((r.added as MemoryItem[]).map((i) => i.text)).toEqual(['住在上海'])
    expect(r.duplicates).toEqual(['  喜欢   rust ', '住在上海！'])
    const rev = store.revision
    const none = await store.command({ op: 'memory.add', target: P, items: [{ text: '喜欢 ＲＵＳＴ' }] })
    expect(none.added).toEqual([])
    expect(none.notice.key).toBe('memory.duplicate')
    expect(store.revision).toBe(rev)
  })

  it('a difference of spacing or punctuation is no new fact; one of words or digits is', async () => {
    const store = await open()
    await store.command({
      op: 'memory.add',
      target: P,
      items: [
        { text: '喜欢 Rust。' },
        { text: '用户叫小林，是后端工程师' },
        { text: 'likes go to statements' },
        { text: '版本 3.5' },
      ],
    })
    const r = await store.command({
      op: 'memory.add',
      target: P,
      items: [
        { text: '喜欢rust' },
        { text: '喜欢 Rust!' },
        { text: '用户叫小林 是后端工程师。' },
        { text: 'Likes go to statements.' },
        { text: 'likes goto statements' },
        { text: '版本 35' },
      ],
    })
    expect(r.duplicates).toEqual(['喜欢rust', '喜欢 Rust!', '用户叫小林 是后端工程师。', 'Likes go to statements.'])
    expect((r.added as MemoryItem[]).map((i) => i.text)).toEqual(['likes goto statements', '版本 35'])
    // memory.update refuses to turn one item into a copy of another the same way.
    await expectRefused(
      store,
      { op: 'memory.update', target: P, itemId: items(store)[3]!.id, text: '喜欢 RUST' },
      { code: 'conflict', field: 'text' },
    )
  })

  it('writes conversation-only memories into the conversation setting', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: { sessionId: 'session-2' }, items: [{ text: '这次只讨论第三章' }] })
    expect(store.state.sessions.get('session-2')).toMatchObject({
      profileId: null,
      memories: [{ text: '这次只讨论第三章', sessionId: 'session-2' }],
    })
    expect(items(store)).toEqual([])
  })

  it('refuses bad targets, empty batches, long items and a full memory', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'memory.add', target: { profileId: 'general', sessionId: 's' }, items: [{ text: 'x' }] },
      { code: 'invalid', field: 'target' },
    )
    await expectRefused(
      store,
      { op: 'memory.add', target: { profileId: 'ghost' }, items: [{ text: 'x' }] },
      { code: 'not-found', field: 'target.profileId' },
    )
    await expectRefused(store, { op: 'memory.add', target: P, items: [] }, { code: 'invalid', field: 'items' })
    await expectRefused(
      store,
      { op: 'memory.add', target: P, items: [{ text: '   ' }] },
      { code: 'invalid', field: 'items[0].text' },
    )
    await expectRefused(
      store,
      { op: 'memory.add', target: P, items: [{ text: 'x'.repeat(LIMITS.memoryItem + 1) }] },
      { code: 'invalid', field: 'items[0].text', limit: LIMITS.memoryItem },
    )
    await expectRefused(
      store,
      { op: 'memory.add', target: P, items: [{ text: 'x', id: 'mine' }] },
      { code: 'invalid', field: 'items[0].id' },
    )
    const fill = Array.from({ length: LIMITS.memoryItems }, (_, i) => ({ text: `事实 ${i}` }))
    await store.command({ op: 'memory.add', target: P, items: fill })
    await expectRefused(
      store,
      { op: 'memory.add', target: P, items: [{ text: '再多一条' }] },
      { code: 'invalid', field: 'memory.items', limit: LIMITS.memoryItems },
    )
    const session = Array.from({ length: LIMITS.sessionMemories }, (_, i) => ({ text: `会话事实 ${i}` }))
    await store.command({ op: 'memory.add', target: { sessionId: 's1' }, items: session })
    await expectRefused(
      store,
      { op: 'memory.add', target: { sessionId: 's1' }, items: [{ text: '再多一条' }] },
      { code: 'invalid', field: 'memories', limit: LIMITS.sessionMemories },
    )
  })
})

describe('memory.update / remove / clear', () => {
  it('update changes the text and keeps the provenance; a duplicate text is a conflict', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '甲', source: 'auto' }, { text: '乙' }] })
    const [a, b] = items(store)
    await store.command({ op: 'memory.update', target: P, itemId: a!.id, text: '甲甲' })
    expect(items(store)[0]).toEqual({ ...a, text: '甲甲' })
    await expectRefused(
      store,
      { op: 'memory.update', target: P, itemId: a!.id, text: '乙。' },
      { code: 'conflict', field: 'text' },
    )
    await expectRefused(
      store,
      { op: 'memory.update', target: P, itemId: 'm-nope', text: '丙' },
      { code: 'not-found', field: 'itemId' },
    )
    await store.command({ op: 'memory.remove', target: P, itemId: b!.id })
    expect(items(store).map((i) => i.text)).toEqual(['甲甲'])
    await expectRefused(
      store,
      { op: 'memory.remove', target: P, itemId: b!.id },
      { code: 'not-found', field: 'itemId' },
    )
  })

  it('clear empties a profile memory (summary too) and deletes an otherwise empty conversation setting', async () => {
    const store = await open()
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { summary: '总结', items: [{ text: '一' }] } },
    })
    await store.command({ op: 'memory.clear', target: P })
    expect(store.state.profiles[0]!.memory).toEqual({ summary: '', items: [] })
    await store.command({ op: 'memory.add', target: { sessionId: 's1' }, items: [{ text: '会话记忆' }] })
    await store.command({ op: 'memory.clear', target: { sessionId: 's1' } })
    expect(store.state.sessions.toJSON()).toEqual({})
  })
})

describe('memory.compress / memory.undo', () => {
  async function withMemory() {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '一' }, { text: '二' }, { text: '三' }] })
    return store
  }

  it('compress replaces the memory and undo restores the previous one', async () => {
    const store = await withMemory()
    const before = store.state.profiles[0]!.memory
    const r = await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '一二三', items: [{ text: '合并后' }] },
    })
    // The core is the compressed memory; every item it condensed stays, archived, never forgotten.
    expect(r.state.profiles[0]!.memory).toMatchObject({
      summary: '一二三',
      items: [{ text: '合并后', source: 'compress' }, ...before.items.map((it) => ({ ...it, archived: true }))],
    })
    expect(r.state.memoryUndo?.general?.memory).toEqual(before)
    const u = await store.command({ op: 'memory.undo', profileId: 'general' })
    expect(u.state.profiles[0]!.memory).toEqual(before)
    expect(u.state.memoryUndo?.general).toBeUndefined()
    await expectRefused(store, { op: 'memory.undo', profileId: 'general' }, { code: 'not-found', field: 'profileId' })
  })

  it('an empty compression is refused and changes nothing', async () => {
    const store = await withMemory()
    await expectRefused(
      store,
      { op: 'memory.compress', profileId: 'general', memory: { summary: '  ', items: [] } },
      { code: 'invalid', field: 'memory' },
    )
  })

  it('items saved while a compression ran are carried over, and survive an undo', async () => {
    const store = await withMemory()
    const basedOn = items(store).map((i) => i.id)
    await store.command({ op: 'memory.add', target: P, items: [{ text: '压缩途中新存的', source: 'tool' }] })
    const r = await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '', items: [{ text: '一二三' }] },
      basedOn,
    })
    expect(r.carried).toBe(1)
    expect(items(store).map((i) => [i.text, i.archived === true])).toEqual([
      ['一二三', false],
      ['压缩途中新存的', false],
      ['一', true],
      ['二', true],
      ['三', true],
    ])
    await store.command({ op: 'memory.add', target: P, items: [{ text: '压缩之后新存的' }] })
    await store.command({ op: 'memory.undo', profileId: 'general' })
    expect(items(store).map((i) => i.text)).toEqual(['一', '二', '三', '压缩途中新存的', '压缩之后新存的'])
  })

  it('deleting a profile drops its undo entry; the undo entry persists across a restart', async () => {
    const store = await withMemory()
    await store.command({ op: 'memory.compress', profileId: 'general', memory: { summary: 's', items: [] } })
    await store.close()
    const again = await openStore({ file: ctx.file })
    expect(again.state.memoryUndo?.general?.memory.items).toHaveLength(3)
    await again.command({ op: 'profile.activate', id: 'coder' })
    const r = await again.command({ op: 'profile.delete', id: 'general' })
    expect(r.state.memoryUndo?.general).toBeUndefined()
    await again.close()
  })
})

describe("an editor's save with basedOn (the item ids it started from)", () => {
  const texts = (list: readonly MemoryItem[]) => list.map((i) => i.text)

  it('profile.update: items saved meanwhile stay, items the editor deleted go, edits and new items land', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '用户叫小林' }, { text: '要删的' }] })
    const started = items(store)
    // The editor opened here. Meanwhile the memory tool saved a fact, and another tab removed nothing.
    await store.command({ op: 'memory.add', target: P, items: [{ text: '模型刚存的', source: 'tool' }] })
    const r = await store.command({
      op: 'profile.update',
      id: 'general',
      patch: {
        memory: { items: [{ id: started[0]!.id, text: '用户叫小林，是后端工程师' }, { text: '新写的' }] },
        basedOn: started.map((i) => i.id),
      },
    })
    expect(texts(items(store))).toEqual(['用户叫小林，是后端工程师', '模型刚存的', '新写的'])
    expect(items(store)[1]!.source).toBe('tool')
    expect(items(store)[0]!.id).toBe(started[0]!.id)
    expect(r.notice.key).toBe('profile.updated')
  })

  it('profile.update: an omitted summary keeps the saved one; an item removed meanwhile stays removed', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: P, items: [{ text: '甲' }, { text: '乙' }, { text: '丙' }] })
    const started = items(store)
    // Meanwhile a compression replaced the memory (new ids, a summary).
    await store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '压缩后的摘要', items: [{ text: '甲乙丙' }] },
    })
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: [...started, { text: '丁' }] }, basedOn: started.map((i) => i.id) },
    })
    expect(store.state.profiles[0]!.memory.summary).toBe('压缩后的摘要')
    // What the compression condensed stays archived: an editor that sends it back unchanged does not revive it.
    expect(texts(items(store).filter((i) => i.archived !== true))).toEqual(['甲乙丙', '丁'])
    expect(texts(items(store).filter((i) => i.archived === true))).toEqual(['甲', '乙', '丙'])
  })

  it('session.set: a fact the tool saved while the panel was open is kept; without basedOn the list is replaced', async () => {
    const store = await open()
    const S = { sessionId: 'session-1' }
    await store.command({ op: 'session.set', ...S, patch: { memories: [{ text: '旧的' }, { text: '要删的' }] } })
    const started = store.state.sessions.get('session-1')!.memories
    await store.command({ op: 'memory.add', target: S, items: [{ text: '工具存的', source: 'tool' }] })
    await store.command({
      op: 'session.set',
      ...S,
      patch: {
        memories: [{ id: started[0]!.id, text: '改过的' }, { text: '工具存的。' }],
        basedOn: started.map((i) => i.id),
      },
    })
    const now = store.state.sessions.get('session-1')!.memories
    // The panel's own "工具存的。" says what the tool saved meanwhile: one item, the tool's.
    expect(now.map((i) => [i.text, i.source, i.sessionId])).toEqual([
      ['改过的', 'user', 'session-1'],
      ['工具存的', 'tool', 'session-1'],
    ])
    await store.command({ op: 'session.set', ...S, patch: { memories: [{ text: '只剩这条' }] } })
    expect(texts(store.state.sessions.get('session-1')!.memories)).toEqual(['只剩这条'])
  })

  it('refuses a malformed basedOn, one without a list, and a merge over the limit, changing nothing', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { rules: 'x', basedOn: [] } },
      { code: 'invalid', field: 'patch.basedOn' },
    )
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { memory: { items: [] }, basedOn: 'm1' } },
      { code: 'invalid', field: 'patch.basedOn' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's', patch: { memories: [], basedOn: ['../x'] } },
      { code: 'invalid', field: 'patch.basedOn[0]' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's', patch: { note: 'n', basedOn: [] } },
      { code: 'invalid', field: 'patch.basedOn' },
    )
    const full = Array.from({ length: LIMITS.sessionMemories }, (_, i) => ({ text: `事实 ${i}` }))
    await store.command({ op: 'session.set', sessionId: 's', patch: { memories: full } })
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's', patch: { memories: [{ text: '再来一条' }], basedOn: [] } },
      { code: 'invalid', field: 'patch.memories', limit: LIMITS.sessionMemories },
    )
  })
})

describe('turn ledger', () => {
  it('records which profile answered each turn, survives a restart and stays out of state and export', async () => {
    const store = await open()
    await store.command({ op: 'turn.record', sessionId: 'session-a', turn: 1, profileId: 'general' })
    await store.command({ op: 'session.set', sessionId: 'session-a', patch: { profileId: 'writer' } })
    await store.command({ op: 'turn.record', sessionId: 'session-a', turn: 2, profileId: 'writer' })
    expect(store.turnsOf('session-a')).toEqual({ 1: 'general', 2: 'writer' })
    expect(store.turnsOf('session-b')).toEqual({})
    expect(JSON.stringify(store.state)).not.toContain('"turns"')
    expect(JSON.stringify(store.exportEnvelope())).not.toContain('session-a')
    const rev = store.revision
    await store.close()
    const again = await openStore({ file: ctx.file })
    expect(again.turnsOf('session-a')).toEqual({ 1: 'general', 2: 'writer' })
    expect(again.revision).toBe(rev)
    await again.close()
  })

  it('refuses an unknown profile, a bad turn number or a bad session id', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's', turn: 1, profileId: 'ghost' },
      { code: 'not-found', field: 'profileId' },
    )
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's', turn: -1, profileId: 'general' },
      { code: 'invalid', field: 'turn' },
    )
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's', turn: 1.5, profileId: 'general' },
      { code: 'invalid', field: 'turn' },
    )
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: '__proto__', turn: 1, profileId: 'general' },
      { code: 'invalid', field: 'sessionId' },
    )
  })

  it('keeps every turn of every conversation: thousands of turns, thousands of conversations, across a restart', async () => {
    const store = await open()
    const turns = 2_500
    const batch = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)))
    // Sent together, so they are committed in a few batches rather than one transaction each.
    await batch(turns, (t) =>
      store.command({ op: 'turn.record', sessionId: 'long', turn: t + 1, profileId: t % 2 ? 'general' : 'coder' }),
    )
    await batch(3_000, (i) => store.command({ op: 'turn.record', sessionId: `c${i}`, turn: 1, profileId: 'writer' }))
    expect(Object.keys(store.turnsOf('long'))).toHaveLength(turns)
    expect(store.turnsOf('long')[1]).toBe('coder')
    expect(store.turnsOf('c0')).toEqual({ 1: 'writer' })
    await store.command({ op: 'turn.record', sessionId: 'long', turn: 1, profileId: 'writer' })
    await store.close()
    const again = await openStore({ file: ctx.file })
    expect(Object.keys(again.turnsOf('long'))).toHaveLength(turns)
    expect(again.turnsOf('long')[1]).toBe('writer')
    expect(again.turnsOf('c2999')).toEqual({ 1: 'writer' })
    await again.close()
  })
})
