// Search keys an editor sends (the settings page's keys field: profile.update, user.set, session.set) through the
// store's real commands: saved, cleared, refused — with the field, the rule and its bound — when they break a rule
// of lib/shared/memory-keys.ts, nothing changed in the state or on disk; keys sent back as they are stored pass.
import { afterEach, describe, expect, it } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())
type Store = Awaited<ReturnType<typeof open>>

/** The general profile's items after adding 用户住在杭州 with `keys`; its id. */
async function seeded(store: Store, keys?: string): Promise<string> {
  const reply = await store.command({
    op: 'memory.add',
    target: { profileId: 'general' },
    items: [{ text: '用户住在杭州', ...(keys === undefined ? {} : { keys }) }],
  })
  return (reply.added as MemoryItem[])[0]!.id
}
const itemsOf = (store: Store) => store.state.profiles.find((p) => p.id === 'general')!.memory.items

// 301 characters in all breaks the schema's bound of the keys text first: the same limit, named, without a rule.
const BAD: [string, string, string | undefined, number | undefined][] = [
  ['13 keys', Array.from({ length: 13 }, (_, i) => `词${i}`).join(', '), 'keys.count', 12],
  ['a key of 41 characters', `杭州, ${'长'.repeat(41)}`, 'keys.length', 40],
  ['301 characters in all', Array.from({ length: 12 }, (_, i) => `${i}${'字'.repeat(29)}`).join(', '), undefined, 300],
  ['markup', '杭州, <img src=x>', 'keys.markup', undefined],
  ['a secret', 'ghp_abcdefghijklmnopqrstuvwxyz', 'keys.secret', undefined],
]

describe('search keys an editor sends', () => {
  it('saves keys typed for an item and for a new one, and clears them with an empty text', async () => {
    const store = await open()
    const id = await seeded(store)
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: {
        memory: {
          items: [
            { id, text: '用户住在杭州', keys: '杭州, Hangzhou' },
            { text: '女儿八岁', keys: '女儿, daughter' },
          ],
        },
        basedOn: [id],
      },
    })
    expect(itemsOf(store).map((it) => [it.text, it.keys])).toEqual([
      ['用户住在杭州', '杭州, Hangzhou'],
      ['女儿八岁', '女儿, daughter'],
    ])
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: [{ id, text: '用户住在杭州', keys: '' }] }, basedOn: [id] },
    })
    expect(itemsOf(store)[0]).not.toHaveProperty('keys')
  })

  it.each(BAD)(
    'refuses %s in profile.update, user.set and session.set, changing nothing',
    async (_what, keys, rule, limit) => {
      const store = await open()
      const id = await seeded(store, '杭州')
      const e = await expectRefused(
        store,
        {
          op: 'profile.update',
          id: 'general',
          patch: { memory: { items: [{ id, text: '用户住在杭州', keys }] }, basedOn: [id] },
        },
        { code: 'invalid', field: 'patch.memory.items[0].keys', ...(limit === undefined ? {} : { limit }) },
      )
      expect(e.rule).toBe(rule)
      expect(itemsOf(store)[0]!.keys).toBe('杭州')
      const user = await expectRefused(
        store,
        { op: 'user.set', items: [{ text: '用户叫小林', keys }] },
        { code: 'invalid', field: 'items[0].keys' },
      )
      expect(user.rule).toBe(rule)
      const session = await expectRefused(
        store,
        { op: 'session.set', sessionId: 's-1', patch: { memories: [{ text: '这次只聊前端', keys }] } },
        { code: 'invalid', field: 'patch.memories[0].keys' },
      )
      expect(session.rule).toBe(rule)
    },
  )

  it('lets an item keep keys it has as stored (a lorebook entry’s, past the typed bounds) when its text is edited', async () => {
    const store = await open()
    const lore = Array.from({ length: 20 }, (_, i) => `条目${i}`).join(', ')
    const id = await seeded(store, lore)
    await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { memory: { items: [{ id, text: '用户住在杭州西湖区', keys: lore }] }, basedOn: [id] },
    })
    expect(itemsOf(store)[0]).toMatchObject({ text: '用户住在杭州西湖区', keys: lore })
  })
})
