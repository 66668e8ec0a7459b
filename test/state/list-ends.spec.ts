/**
 * Where two versions of one list are the same objects (lib/state/list-ends.ts): a list a save made by appending is
 * known to share all of the old list without comparing its entries (#44: a save into 10,000 items compared 10,000
 * pairs, twice), and the answer is the one the comparison gives.
 */
import { describe, expect, it } from 'vitest'
import { changedParts, markAppended, markEdits, markSpliced, sameEnds } from '../../lib/state/list-ends.ts'

/** `list` behind a Proxy that counts the entries read. */
function counted<T>(list: T[]): { list: T[]; reads: () => number } {
  let reads = 0
  const proxy = new Proxy(list, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver) as unknown
    },
  })
  return { list: proxy, reads: () => reads }
}

describe('the ends two versions of a list share', () => {
  it('of a list made by appending, are told without reading an entry, as the comparison tells them', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}` }))
    const before = counted(items)
    const after = [...items, { id: 'new' }]
    expect(sameEnds(items, after)).toEqual({ head: 10_000, tail: 0 })
    markAppended(before.list, after)
    expect(sameEnds(before.list, after)).toEqual({ head: 10_000, tail: 0 })
    expect(before.reads()).toBe(0)
    // Appending nothing: the same answer as comparing.
    const same = [...items]
    markAppended(items, same)
    expect(sameEnds(items, same)).toEqual({ head: 10_000, tail: 0 })
  })

  it('of any other pair, are found by comparing (a mark for another list says nothing of this pair)', () => {
    const a = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
    const b = [a[0]!, { id: 'x' }, a[2]!]
    markAppended(a.slice(0, 1), b)
    expect(sameEnds(a, b)).toEqual({ head: 1, tail: 1 })
    const shorter = [a[0]!]
    markAppended(a, shorter)
    expect(sameEnds(a, shorter)).toEqual({ head: 1, tail: 0 })
  })

  it('of a list made by editing or deleting one entry, are told without reading an entry, as the comparison tells them', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}` }))
    const before = counted(items)
    const edited = [...items]
    edited[4_000] = { id: 'm4000' }
    const deleted = [...items]
    deleted.splice(6_000, 1)
    expect(sameEnds(items, edited)).toEqual({ head: 4_000, tail: 5_999 })
    expect(sameEnds(items, deleted)).toEqual({ head: 6_000, tail: 3_999 })
    markSpliced(before.list, edited, 4_000, 1, 1)
    markSpliced(before.list, deleted, 6_000, 1, 0)
    expect(sameEnds(before.list, edited)).toEqual({ head: 4_000, tail: 5_999 })
    expect(sameEnds(before.list, deleted)).toEqual({ head: 6_000, tail: 3_999 })
    expect(before.reads()).toBe(0)
    // A mark that does not fit the lists' lengths says nothing: the comparison answers.
    const other = [...items]
    markSpliced(items, other, 10, 1, 5)
    expect(sameEnds(items, other)).toEqual({ head: 10_000, tail: 0 })
  })

  it('of a list made by a removal in the middle and an append, are told as two parts without reading an entry', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}` }))
    const before = counted(items)
    const after = [...items]
    after.splice(5_000, 1)
    after.push({ id: 'new' })
    markEdits(before.list, after, [
      { at: 5_000, cut: 1, put: 0 },
      { at: 10_000, cut: 0, put: 1 },
    ])
    const parts = changedParts(before.list, after)
    expect(parts).toEqual([
      { b0: 5_000, b1: 5_001, a0: 5_000, a1: 5_000 },
      { b0: 10_000, b1: 10_000, a0: 9_999, a1: 10_000 },
    ])
    expect(sameEnds(before.list, after)).toEqual({ head: 5_000, tail: 0 })
    expect(before.reads()).toBe(0)
    // Outside the parts the two lists are the same objects, in the same order.
    const outside = (list: readonly unknown[], from: 'b' | 'a') =>
      list.filter((_, i) => !parts.some((p) => i >= p[`${from}0`] && i < p[`${from}1`]))
    expect(outside(items, 'b')).toEqual(outside(after, 'a'))
    // Unmarked, the one part between the shared ends.
    expect(changedParts(items, [...after])).toEqual([{ b0: 5_000, b1: 10_000, a0: 5_000, a1: 10_000 }])
  })
})
