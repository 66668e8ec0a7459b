/**
 * Editing and deleting a memory item costs what it changes, not the history (#44): on a list of 10,000 items a
 * `memory.update` or `memory.remove` does the work it does on a list of 100 — the duplicate check asks the kept
 * counts of compared texts instead of normalising every item, the new list shares its ends with the old one without a
 * comparison, and the row write walks the changed part only. Work is counted as the keyed look-ups and entries the
 * command's JavaScript makes (Map, Set and WeakMap calls), which a walk over every item cannot avoid; never a time.
 * The first command on a list makes its id and text keys once (as reading a list on disk does), so it is not counted.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { freshStore } from '../support/store-helpers.ts'

type Store = Awaited<ReturnType<typeof freshStore>>
const stores: Store[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

type Method = (this: unknown, ...args: unknown[]) => unknown
const COUNTED: [object, string][] = [
  [Map.prototype, 'get'],
  [Map.prototype, 'set'],
  [Map.prototype, 'has'],
  [Set.prototype, 'add'],
  [Set.prototype, 'has'],
  [WeakMap.prototype, 'get'],
  [WeakMap.prototype, 'set'],
  [WeakMap.prototype, 'has'],
]

/** How many keyed look-ups and entries `run` made. */
async function keyedCalls(run: () => Promise<unknown>): Promise<number> {
  let calls = 0
  const saved = COUNTED.map(([proto, name]) => {
    const original = (proto as Record<string, Method>)[name]!
    ;(proto as Record<string, Method>)[name] = function (this: unknown, ...args: unknown[]) {
      calls++
      return original.apply(this, args)
    }
    return original
  })
  try {
    await run()
  } finally {
    COUNTED.forEach(([proto, name], i) => ((proto as Record<string, Method>)[name] = saved[i]!))
  }
  return calls
}

/** A store whose first profile holds `n` items, each command on it run once before (see the header). */
async function storeOf(n: number): Promise<{ t: Store; target: { profileId: string } }> {
  const t = await freshStore()
  stores.push(t)
  const id = t.store.state.profiles[0]!.id
  const items = Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: `第${i}条：用户提到项目${i % 37}的进展，关键词 k${i % 997}`,
    source: 'auto' as const,
    at: 1_700_000_000_000 + i * 60_000,
  }))
  await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  const target = { profileId: id }
  await t.store.command({ op: 'memory.update', target, itemId: 'm1', text: '预热：用户换了新的咖啡店' })
  await t.store.command({ op: 'memory.remove', target, itemId: 'm2' })
  return { t, target }
}

/** The keyed calls of an edit and of a delete of an item in the middle of a list of `n`. */
async function workAt(n: number): Promise<{ update: number; remove: number; refused: number }> {
  const { t, target } = await storeOf(n)
  const mid = Math.floor(n / 2)
  const update = await keyedCalls(() =>
    t.store.command({ op: 'memory.update', target, itemId: `m${mid}`, text: '用户下周去青岛出差，住三天' }),
  )
  const remove = await keyedCalls(() => t.store.command({ op: 'memory.remove', target, itemId: `m${mid + 1}` }))
  // An edit that would repeat another item is refused as before, at the same cost.
  const refused = await keyedCalls(() =>
    t.store
      .command({ op: 'memory.update', target, itemId: `m${mid + 2}`, text: '用户下周去青岛出差，住三天！' })
      .then(
        () => 'saved',
        (e: { rule?: string }) => e.rule,
      )
      .then((r) => expect(r).toBe('memory.same')),
  )
  const items = t.store.state.profiles[0]!.memory.items
  expect(items.length).toBe(n - 2)
  expect(items.find((it) => it.id === `m${mid}`)?.text).toBe('用户下周去青岛出差，住三天')
  expect(items.some((it) => it.id === `m${mid + 1}`)).toBe(false)
  return { update, remove, refused }
}

/**
 * Each command's count at 10,000 items equal to its count at 100, but for what the store's own tables and caches hold
 * (a few entries either way).
 */
function expectSameWork(small: Record<string, number>, large: Record<string, number>): void {
  for (const [command, n] of Object.entries(small)) {
    expect(n, command).toBeGreaterThan(0)
    expect(large[command], command).toBeLessThan(n + 50)
  }
}

describe('editing and deleting a memory item in a long list', () => {
  it('does the work it does in a list of 100, not a walk over 10,000 items', async () => {
    expectSameWork(await workAt(100), await workAt(10_000))
  })
})

/**
 * The keyed calls of a save that replaces a fact in the middle of a list of `n` (the old one leaves, the new one is
 * appended) and of approving a suggestion that replaces another one there.
 */
async function replaceAt(n: number): Promise<{ replace: number; approve: number }> {
  const { t, target } = await storeOf(n)
  const mid = Math.floor(n / 2)
  const replace = await keyedCalls(() =>
    t.store.command({ op: 'memory.add', target, items: [{ text: '用户改喝茶了，不再喝咖啡', replaces: `m${mid}` }] }),
  )
  await t.store.command({ op: 'profile.update', id: target.profileId, patch: { memoryMode: 'ask' } })
  const suggest = { text: '用户搬去杭州了', source: 'tool' as const, replaces: `m${mid + 1}` }
  await t.store.command({ op: 'memory.add', target, items: [suggest] })
  const pending = t.store.state.profiles[0]!.memory.items.at(-1)!
  expect(pending).toMatchObject({ pending: true, replaces: `m${mid + 1}` })
  const approve = await keyedCalls(() => t.store.command({ op: 'memory.approve', target, itemId: pending.id }))
  const items = t.store.state.profiles[0]!.memory.items
  expect(items.length).toBe(n - 1)
  expect(items.some((it) => it.id === `m${mid}` || it.id === `m${mid + 1}`)).toBe(false)
  expect(items.slice(-2).map((it) => [it.text, it.pending])).toEqual([
    ['用户改喝茶了，不再喝咖啡', undefined],
    ['用户搬去杭州了', undefined],
  ])
  // What a reader of the file sees is what the store holds: the rows are in the list's order.
  const again = await t.open()
  expect(again.state.profiles[0]!.memory.items.map((it) => it.id)).toEqual(items.map((it) => it.id))
  return { replace, approve }
}

describe('replacing a memory item in a long list', () => {
  it('does the work it does in a list of 100: the old item leaves, the new one is appended, nothing else is walked', async () => {
    expectSameWork(await replaceAt(100), await replaceAt(10_000))
  })
})
