/**
 * The search index's size in Diagnostics (lib/memory/index-size.ts), on the real store: counting a small index is
 * done again as soon as the store changed; counting a large one (made slow here by holding each count 15 ms, as a
 * count of ~60,000 items takes) is not repeated per change while writes go on — every page reads the meta after each
 * change, and a large import of 1,200 batches spent most of the host's time counting — but once writes pause.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { IndexSize } from '../../lib/memory/index-size.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'

const stores: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

/** The real store, and how many times the index was counted; each count held `holdMs` (a large index). */
async function counted(holdMs: number) {
  const s = await freshStore()
  stores.push(s)
  const store = s.store
  let counts = 0
  const searchIndex: ProfileStore['searchIndex'] = (query) =>
    store.searchIndex((index) => {
      counts++
      const until = performance.now() + holdMs
      while (performance.now() < until);
      return query(index)
    })
  const watched = new Proxy(store, {
    get: (target, key) => (key === 'searchIndex' ? searchIndex : Reflect.get(target, key, target)),
  })
  const add = (text: string) =>
    store.command({ op: 'memory.add', target: { profileId: store.state.profiles[0]!.id }, items: [{ text }] })
  // A new store has no database (and no index) until its first write.
  await add('用户喜欢喝茶')
  return { size: new IndexSize(watched), add, counts: () => counts }
}

describe('the index size Diagnostics shows', () => {
  it('is counted again at once after a change while counting is cheap', async () => {
    const { size, add, counts } = await counted(0)
    const first = size.get().items
    await add('用户养了一只橘猫')
    expect(size.get().items).toBe(first + 1)
    expect(counts()).toBe(2)
  })

  it('is not counted per change while a large index is being written, and is counted once writes pause', async () => {
    const { size, add, counts } = await counted(15)
    const first = size.get().items
    for (let i = 0; i < 20; i++) {
      await add(`第${i}条记忆`)
      // A page reads the meta after every change it hears of.
      expect(size.get().items).toBe(first)
    }
    expect(counts()).toBe(1)
    await expect.poll(() => size.get().items, { timeout: 10_000, interval: 100 }).toBe(first + 20)
    expect(counts()).toBe(2)
    size.stop()
  })
})
