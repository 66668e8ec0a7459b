/**
 * What a memory list holds by kind (lib/state/lazy-list.ts `itemTally`), which every state reply's counts read for
 * every profile: a list of the state never changes, so it is counted once, and a reply after a change counts the one
 * list that changed, not every item of every profile.
 */
import { describe, expect, it } from 'vitest'
import { itemTally } from '../../lib/state/lazy-list.ts'

type Item = { text: string; archived?: true; pending?: true }

/** `items` behind a Proxy that counts the elements read through it. */
function watched(items: readonly Item[]): { list: readonly Item[]; reads: () => number } {
  let reads = 0
  const list = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver)
    },
  })
  return { list, reads: () => reads }
}

const many = (n: number, from = 0): Item[] =>
  Array.from({ length: n }, (_, i) => ({
    text: `fact ${from + i}`,
    ...(i % 10 === 0 ? { archived: true as const } : {}),
    ...(i % 7 === 0 ? { pending: true as const } : {}),
  }))

describe('the tally of a memory list', () => {
  it('counts a frozen list once: the next counts of it read no item', () => {
    const items = Object.freeze(many(10_000))
    const { list, reads } = watched(items)
    const first = itemTally(list)
    expect(first).toEqual({ items: 10_000, archived: 1_000, pending: 1_429 })
    const afterFirst = reads()
    expect(afterFirst).toBe(10_000)
    for (let i = 0; i < 5; i++) expect(itemTally(list)).toEqual(first)
    expect(reads()).toBe(afterFirst)
  })

  it('counts the list a change made, and only it, when the others are the same lists', () => {
    const profiles = Array.from({ length: 10 }, (_, p) => watched(Object.freeze(many(1_000, p * 1_000))))
    const total = (lists: readonly (readonly Item[])[]) => lists.reduce((n, l) => n + itemTally(l).archived, 0)
    expect(total(profiles.map((p) => p.list))).toBe(1_000)
    // A batch appended to the last profile: a new list there, the nine others unchanged.
    const grown = watched(Object.freeze([...profiles[9]!.list, ...many(10, 10_000)]))
    const before = profiles.map((p) => p.reads())
    expect(total([...profiles.slice(0, 9).map((p) => p.list), grown.list])).toBe(1_001)
    expect(profiles.map((p) => p.reads())).toEqual(before)
    expect(grown.reads()).toBe(1_010)
  })

  it('counts a list that may still change each time it is asked', () => {
    const items = many(10)
    expect(itemTally(items).archived).toBe(1)
    items.push({ text: 'archived since', archived: true })
    expect(itemTally(items)).toEqual({ items: 11, archived: 2, pending: 2 })
  })
})
