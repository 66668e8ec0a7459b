/**
 * The store freezes each new snapshot deeply at the cost of what changed (lib/store/deep-freeze.ts): a save into a
 * list of 10,000 items asks about the one new item, not about the 9,999 it shares with the last snapshot (#44:
 * writes that do not slow down with the history), and everything new is frozen all the same.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { deepFreeze } from '../../lib/store/deep-freeze.ts'
import { lazyList } from '../../lib/state/lazy-list.ts'
import { markAppended } from '../../lib/state/list-ends.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('freezing a new snapshot', () => {
  it('freezes what is new, deeply, and asks nothing of the items it shares with the last snapshot', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}`, text: `第${i}条`, keys: [`k${i}`] }))
    const before = deepFreeze({ profiles: [{ id: 'p', memory: { items } }] })
    const added = { id: 'new', text: '新的一条', keys: ['x'] }
    const next = { profiles: [{ id: 'p', memory: { items: [...before.profiles[0]!.memory.items, added] } }] }
    const asked = vi.spyOn(Object, 'isFrozen')
    deepFreeze(next, before)
    expect(asked.mock.calls.length).toBeLessThan(20)
    asked.mockRestore()
    expect(Object.isFrozen(next.profiles[0]!.memory.items)).toBe(true)
    expect(Object.isFrozen(added)).toBe(true)
    expect(Object.isFrozen(added.keys)).toBe(true)
    // Without a last snapshot (the first load) every object is frozen too.
    const fresh = deepFreeze({ a: [{ b: { c: [1] } }] })
    expect(Object.isFrozen(fresh.a[0]!.b.c)).toBe(true)
  })

  it('of a list a save made by appending, reads none of the entries it shares with the last snapshot', () => {
    const items = deepFreeze(Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}` })))
    let reads = 0
    const before = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) < target.length) reads++
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    const added = { id: 'new', tags: ['x'] }
    const after = [...items, added]
    markAppended(before, after)
    deepFreeze({ items: after }, { items: before })
    expect(reads).toBe(0)
    expect(Object.isFrozen(added.tags)).toBe(true)
  })

  it('never reads a list still on disk, in the new snapshot or in the last', () => {
    let loads = 0
    const onDisk = lazyList({ load: () => (loads++, [{ id: 'm', text: '旧的' }]) })
    const before = deepFreeze({ items: onDisk })
    deepFreeze({ items: [{ id: 'n', text: '新的' }] }, before)
    deepFreeze({ items: onDisk, other: { x: 1 } }, before)
    expect(loads).toBe(0)
  })
})
