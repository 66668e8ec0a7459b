import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS, type MemoryItem } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())
const USER = { user: true } as const

/** A store whose About you holds one typed fact and five suggestions: three of run `r1`, two of run `r2`. */
async function withSuggestions() {
  const store = (ctx = await freshStore()).store
  await store.command({ op: 'memory.add', target: USER, items: [{ text: '用户住在杭州' }] })
  const home = store.state.user!.items[0]!
  await store.command({
    op: 'memory.learn',
    target: USER,
    importId: 'r1',
    items: [
      { text: '用户住在青岛', origin: "ChatGPT, 2025-03-14, 'Trip'", replaces: home.id },
      { text: '用户养了一只猫', origin: "ChatGPT, 2025-03-14, 'Trip'" },
      { text: '用户喜欢爬山', origin: "ChatGPT, 2025-03-15, 'Hills'" },
    ],
  })
  await store.command({
    op: 'memory.learn',
    target: USER,
    importId: 'r2',
    items: [{ text: '用户会弹吉他' }, { text: '用户每天跑步' }],
  })
  const items = () => store.state.user?.items ?? []
  const id = (text: string) => items().find((it) => it.text === text)!.id
  const shape = () => items().map((it) => [it.text, it.pending === true])
  return { store, items, id, shape }
}

describe('memory.decide: suggestions approved or dismissed in bulk', () => {
  it('approves the ticked suggestions in one write: one history entry, and one revert brings every one back', async () => {
    const { store, items, id, shape } = await withSuggestions()
    const before = shape()
    const historyBefore = (await store.command({ op: 'memory.history', target: USER })).entries.length
    const reply = await store.command({
      op: 'memory.decide',
      target: USER,
      verdict: 'approve',
      itemIds: [id('用户住在青岛'), id('用户养了一只猫'), id('用户会弹吉他')],
    })
    expect(reply.decided).toBe(3)
    // The approved fact that replaces the older one takes its place in the same write.
    expect(reply.replaced.map((it) => it.text)).toEqual(['用户住在杭州'])
    expect(shape()).toEqual([
      ['用户住在青岛', false],
      ['用户养了一只猫', false],
      ['用户喜欢爬山', true],
      ['用户会弹吉他', false],
      ['用户每天跑步', true],
    ])
    const approved = items().filter((it) => it.approved === true)
    expect(approved.map((it) => it.origin)).toEqual([
      "ChatGPT, 2025-03-14, 'Trip'",
      "ChatGPT, 2025-03-14, 'Trip'",
      undefined,
    ])
    const { entries } = await store.command({ op: 'memory.history', target: USER })
    expect(entries.length).toBe(historyBefore + 1)
    const entry = entries[0]!
    expect(entry.who).toBe('user')
    expect(entry.edited.map((e) => e.after.text).sort()).toEqual(['用户会弹吉他', '用户住在青岛', '用户养了一只猫'])
    expect(entry.removed.map((it) => it.text)).toEqual(['用户住在杭州'])
    const undone = await store.command({ op: 'memory.revert', target: USER, entryId: entry.id })
    expect(undone.reverted).toBe(4)
    expect(shape().sort()).toEqual([...before].sort())
  })

  it('takes every suggestion of one learning run, or of the whole list, and dismisses as one write too', async () => {
    const { store, shape } = await withSuggestions()
    const reply = await store.command({ op: 'memory.decide', target: USER, verdict: 'dismiss', importId: 'r2' })
    expect(reply.decided).toBe(2)
    expect(shape()).toEqual([
      ['用户住在杭州', false],
      ['用户住在青岛', true],
      ['用户养了一只猫', true],
      ['用户喜欢爬山', true],
    ])
    const { entries } = await store.command({ op: 'memory.history', target: USER })
    expect(entries[0]!.removed.map((it) => it.text)).toEqual(['用户会弹吉他', '用户每天跑步'])
    await store.command({ op: 'memory.decide', target: USER, verdict: 'approve' })
    expect(shape()).toEqual([
      ['用户住在青岛', false],
      ['用户养了一只猫', false],
      ['用户喜欢爬山', false],
    ])
    // Nothing left to decide: nothing is written.
    const revision = store.revision
    expect((await store.command({ op: 'memory.decide', target: USER, verdict: 'approve' })).decided).toBe(0)
    expect(store.revision).toBe(revision)
    const reopened = await ctx.open()
    expect(reopened.state.user!.items.map((it) => it.approved === true)).toEqual([true, true, true])
    await reopened.close()
  })

  it("leaves another list's suggestions alone", async () => {
    const { store, shape } = await withSuggestions()
    await store.command({
      op: 'memory.learn',
      target: { profileId: 'general' },
      importId: 'r1',
      items: [{ text: '用户爱喝茶' }],
    })
    await store.command({ op: 'memory.decide', target: USER, verdict: 'approve', importId: 'r1' })
    expect(
      shape()
        .filter(([, pending]) => pending)
        .map(([text]) => text),
    ).toEqual(['用户会弹吉他', '用户每天跑步'])
    expect(store.state.profiles[0]!.memory.items.map((it) => it.pending)).toEqual([true])
  })

  it('refuses the whole decision on one id that is no suggestion of the list, or on too many ids, and changes nothing', async () => {
    const { store, id, items } = await withSuggestions()
    const good = id('用户养了一只猫')
    await expectRefused(
      store,
      { op: 'memory.decide', target: USER, verdict: 'approve', itemIds: [good, 'm-nothing'] },
      { code: 'not-found', field: 'itemIds[1]' },
    )
    await expectRefused(
      store,
      { op: 'memory.decide', target: USER, verdict: 'dismiss', itemIds: [good, id('用户住在杭州')] },
      { code: 'conflict', field: 'itemIds[1]' },
    )
    await expectRefused(
      store,
      {
        op: 'memory.decide',
        target: USER,
        verdict: 'approve',
        itemIds: Array.from({ length: LIMITS.decideIds + 1 }, () => good),
      },
      { code: 'invalid', field: 'itemIds', limit: LIMITS.decideIds },
    )
    await expectRefused(
      store,
      { op: 'memory.decide', target: USER, verdict: 'approve', itemIds: [good], importId: 'r1' },
      { code: 'invalid', field: 'importId' },
    )
    await expectRefused(
      store,
      { op: 'memory.decide', target: USER, verdict: 'keep' },
      { code: 'invalid', field: 'verdict' },
    )
    expect(items().filter((it: MemoryItem) => it.pending === true)).toHaveLength(5)
  })
})
