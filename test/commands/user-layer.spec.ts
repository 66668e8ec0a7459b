// The user layer through the store's commands: every memory.* command on {user: true}, its own history list, its
// limits, user.set from the settings page, ask-first and incognito as for the other lists, replacement in one
// write, and its rows on disk (a restart, another process, a database written before the layer existed).
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseSync } from 'node:sqlite'
import { LIMITS, type MemoryItem } from '../../lib/state/model.ts'
import type { MemoryHistoryEntry } from '../../lib/shared/memory-target.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())

const U = { user: true } as const
type Store = Awaited<ReturnType<typeof open>>
const texts = (store: Store) => (store.state.user?.items ?? []).map((it) => it.text)
const history = async (store: Store) =>
  (await store.command({ op: 'memory.history', target: U })).entries as MemoryHistoryEntry[]

describe('the user layer', () => {
  it('takes add, update, remove and clear, each recorded in its own history list', async () => {
    const store = await open()
    const added = await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户叫小王' }, { text: '用户住在北京' }],
    })
    expect(texts(store)).toEqual(['用户叫小王', '用户住在北京'])
    const [name, city] = added.added as MemoryItem[]
    await store.command({ op: 'memory.update', target: U, itemId: city!.id, text: '用户住在上海' })
    await store.command({ op: 'memory.remove', target: U, itemId: name!.id })
    expect(texts(store)).toEqual(['用户住在上海'])
    // The profiles' own memory and history are untouched.
    expect(store.state.profiles.every((p) => p.memory.items.length === 0)).toBe(true)
    expect((await store.command({ op: 'memory.history', target: { profileId: 'general' } })).entries).toEqual([])
    const entries = await history(store)
    expect(entries.map((e) => [e.added.length, e.removed.length, e.edited.length])).toEqual([
      [0, 1, 0],
      [0, 0, 1],
      [2, 0, 0],
    ])
    expect(entries.every((e) => 'user' in e.target)).toBe(true)
    await store.command({ op: 'memory.clear', target: U })
    expect(store.state.user).toBeUndefined()
    await store.command({ op: 'memory.revert', target: U, entryId: (await history(store))[0]!.id })
    expect(texts(store)).toEqual(['用户住在上海'])
  })

  it('refuses a bad target and one past its limit, naming the field and the limit, and changes nothing', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'memory.add', target: { user: true, profileId: 'general' }, items: [{ text: 'x' }] },
      { code: 'invalid', field: 'target.user' },
    )
    await expectRefused(
      store,
      { op: 'memory.add', target: { user: 'yes' }, items: [{ text: 'x' }] },
      { code: 'invalid', field: 'target' },
    )
    const full = Array.from({ length: LIMITS.userItems }, (_, i) => ({ text: `事实 ${i} 号` }))
    await store.command({ op: 'user.set', items: full })
    await expectRefused(
      store,
      { op: 'memory.add', target: U, items: [{ text: '再多一条' }] },
      { code: 'invalid', field: 'user.items', limit: LIMITS.userItems },
    )
    await expectRefused(
      store,
      { op: 'user.set', items: [...full, { text: '再多一条' }] },
      { code: 'invalid', field: 'items', limit: LIMITS.userItems },
    )
    await expectRefused(
      store,
      { op: 'user.set', items: [{ text: 'x'.repeat(LIMITS.memoryItem + 1) }] },
      { code: 'invalid', field: 'items[0].text', limit: LIMITS.memoryItem },
    )
  })

  it('user.set keeps what the model saved while the page was editing, and drops what the page deleted', async () => {
    const store = await open()
    await store.command({ op: 'user.set', items: [{ text: '用户叫小王' }, { text: '用户喜欢猫' }] })
    const started = store.state.user!.items
    await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户在学日语', source: 'tool', sessionId: 's-1' }],
    })
    await store.command({
      op: 'user.set',
      items: [{ id: started[0]!.id, text: '用户叫王小明' }, { text: '用户是后端工程师' }],
      basedOn: started.map((it) => it.id),
    })
    expect(texts(store)).toEqual(['用户叫王小明', '用户在学日语', '用户是后端工程师'])
    expect(store.state.user!.items[1]).toMatchObject({ source: 'tool', sessionId: 's-1' })
  })

  it('ask-first and incognito follow the calling conversation and its profile', async () => {
    const store = await open()
    await store.command({ op: 'profile.update', id: 'general', patch: { memoryMode: 'ask' } })
    await store.command({ op: 'session.set', sessionId: 's-ask', patch: { profileId: 'general' } })
    const writer = store.state.profiles.find((p) => p.id !== 'general')!
    await store.command({ op: 'session.set', sessionId: 's-auto', patch: { profileId: writer.id } })
    await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户养了一只猫', source: 'tool', sessionId: 's-ask' }],
    })
    await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户住在杭州', source: 'auto', sessionId: 's-auto' }],
    })
    expect(store.state.user!.items.map((it) => [it.text, it.pending === true])).toEqual([
      ['用户养了一只猫', true],
      ['用户住在杭州', false],
    ])
    await store.command({ op: 'memory.approve', target: U, itemId: store.state.user!.items[0]!.id })
    expect(store.state.user!.items[0]!.pending).toBeUndefined()
    await store.command({ op: 'session.set', sessionId: 's-auto', patch: { incognito: true } })
    await expectRefused(
      store,
      { op: 'memory.add', target: U, items: [{ text: '用户讨厌香菜', source: 'tool', sessionId: 's-auto' }] },
      { code: 'conflict', field: 'items' },
    )
  })

  it('a fact that replaces one removes it in the same write: one history entry, and its revert swaps them back', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户住在北京' }, { text: '用户叫小王' }] })
    const old = store.state.user!.items[0]!
    const r = await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户搬到了上海', source: 'tool', sessionId: 's-1', replaces: old.id }],
    })
    expect((r.replaced as MemoryItem[]).map((it) => it.text)).toEqual(['用户住在北京'])
    expect(texts(store)).toEqual(['用户叫小王', '用户搬到了上海'])
    const [entry] = await history(store)
    expect(entry).toMatchObject({
      who: 'tool',
      sessionId: 's-1',
      added: [{ text: '用户搬到了上海' }],
      removed: [{ id: old.id, text: '用户住在北京' }],
    })
    await store.command({ op: 'memory.revert', target: U, entryId: entry!.id })
    expect(texts(store)).toEqual(['用户叫小王', '用户住在北京'])
  })

  it('a replacement that cannot apply keeps the new fact and the old one: an unknown item, a pinned one, an item of another list', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户用 Vim' }] })
    await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户喜欢短回答' }] })
    const own = store.state.profiles.find((p) => p.id === 'general')!.memory.items[0]!
    const r = await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户改用 Emacs', replaces: 'm-nowhere' }],
    })
    expect(r.unresolved).toEqual(['用户改用 Emacs'])
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户喜欢长回答', replaces: own.id }] })
    const vim = store.state.user!.items[0]!
    await store.command({ op: 'memory.update', target: U, itemId: vim.id, text: vim.text })
    await store.command({
      op: 'user.set',
      items: store.state.user!.items.map((it) =>
        it.id === vim.id ? { id: it.id, text: it.text, pinned: true } : { id: it.id, text: it.text },
      ),
    })
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户改用 VS Code', replaces: vim.id }] })
    expect(texts(store)).toEqual(['用户用 Vim', '用户改用 Emacs', '用户喜欢长回答', '用户改用 VS Code'])
    expect(store.state.profiles.find((p) => p.id === 'general')!.memory.items.map((it) => it.text)).toEqual([
      '用户喜欢短回答',
    ])
  })

  it('under ask-first a replacement waits with the suggestion: the old fact stays until approval, then leaves in that one write', async () => {
    const store = await open()
    await store.command({ op: 'profile.update', id: 'general', patch: { memoryMode: 'ask' } })
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户住在北京' }] })
    const old = store.state.user!.items[0]!
    await store.command({
      op: 'memory.add',
      target: U,
      items: [{ text: '用户搬到了上海', source: 'auto', sessionId: 's-ask', replaces: old.id }],
    })
    const suggestion = store.state.user!.items[1]!
    expect(suggestion).toMatchObject({ text: '用户搬到了上海', pending: true, replaces: old.id })
    expect(texts(store)).toEqual(['用户住在北京', '用户搬到了上海'])
    // An editor sending the suggestion back can neither drop nor forge what it replaces.
    await store.command({
      op: 'user.set',
      items: store.state.user!.items.map(({ id, text }) => ({ id, text })),
      basedOn: store.state.user!.items.map((it) => it.id),
    })
    expect(store.state.user!.items[1]!.replaces).toBe(old.id)
    const approved = await store.command({ op: 'memory.approve', target: U, itemId: suggestion.id })
    expect((approved.replaced as MemoryItem[]).map((it) => it.text)).toEqual(['用户住在北京'])
    expect(store.state.user!.items).toMatchObject([{ text: '用户搬到了上海' }])
    expect(store.state.user!.items[0]!.pending).toBeUndefined()
    expect(store.state.user!.items[0]!.replaces).toBeUndefined()
    const [entry] = await history(store)
    expect(entry).toMatchObject({
      removed: [{ text: '用户住在北京' }],
      edited: [{ before: { pending: true }, after: { text: '用户搬到了上海' } }],
    })
    await store.command({ op: 'memory.revert', target: U, entryId: entry!.id })
    expect(store.state.user!.items.map((it) => [it.text, it.pending === true])).toEqual([
      ['用户搬到了上海', true],
      ['用户住在北京', false],
    ])
  })

  it("an envelope exported with it merges it back through the settings page's file import, without duplicates", async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户叫小王' }, { text: '用户住在上海' }] })
    const file = {
      name: 'backup.json',
      format: 'envelope' as const,
      text: JSON.stringify(store.exportEnvelope(undefined, { user: true })),
    }
    expect(store.exportEnvelope().user).toBeUndefined()
    await store.command({ op: 'memory.remove', target: U, itemId: store.state.user!.items[1]!.id })
    const r = await store.command({ op: 'profiles.importFiles', files: [file] })
    expect(r.userAdded).toBe(1)
    expect(r.notice).toMatchObject({ key: 'files.imported', params: { userAdded: 1 } })
    expect(texts(store)).toEqual(['用户叫小王', '用户住在上海'])
    // What arrives in a file is a suggestion: it reaches no prompt until the user approves it.
    expect(store.state.user!.items.map((it) => it.pending === true)).toEqual([false, true])
    const again = await store.command({ op: 'profiles.importFiles', files: [file] })
    expect(again.userAdded).toBe(0)
    expect(texts(store)).toEqual(['用户叫小王', '用户住在上海'])
  })

  it('survives a restart and reaches another process; a database written before the layer opens with it empty', async () => {
    const store = await open()
    await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '配置自己的事实' }] })
    // What main wrote: no user-layer rows and no userRev.
    const raw = new DatabaseSync(store.file, { readOnly: true })
    expect(raw.prepare("SELECT count(*) AS n FROM meta WHERE key = 'userRev'").get()).toEqual({ n: 0 })
    raw.close()
    const other = await ctx.open()
    expect(other.state.user).toBeUndefined()
    expect(other.state.profiles.find((p) => p.id === 'general')!.memory.items.map((it) => it.text)).toEqual([
      '配置自己的事实',
    ])
    await store.command({ op: 'memory.add', target: U, items: [{ text: '用户叫小王' }] })
    expect(texts(other)).toEqual(['用户叫小王'])
    await other.command({ op: 'memory.add', target: U, items: [{ text: '用户住在上海' }] })
    expect(texts(store)).toEqual(['用户叫小王', '用户住在上海'])
    const restarted = await ctx.open()
    expect(texts(restarted)).toEqual(['用户叫小王', '用户住在上海'])
    expect((await history(restarted)).length).toBe(2)
    expect(restarted.state.profiles.find((p) => p.id === 'general')!.memory.items.map((it) => it.text)).toEqual([
      '配置自己的事实',
    ])
  })
})
