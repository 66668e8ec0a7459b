/**
 * A memory write appends to a history that is still on disk without reading it (#44): after a start, a profile's
 * history stays in its rows until a reader asks, and the first save into the profile used to read every entry (a
 * bulk write's entry is a megabyte of JSON), parse and check each, and measure each as JSON again, only to drop the
 * oldest past the bound. It now bounds the list by its rows' sizes and writes the new entry beside them; the history
 * it leaves reads the same as before, in this store and after a restart, and undoes as before. Counted in characters
 * handed to JSON.parse on this thread (the store's SQLite runs on it), not in time.
 */
import { afterEach, expect, it, vi } from 'vitest'
import type { MemoryWrite } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'

type Fresh = Awaited<ReturnType<typeof freshStore>>
const stores: Fresh[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const s of stores.splice(0)) await s.dispose()
})

/** Items of each bulk write: about a megabyte of history entry. */
const ITEMS = 1_200

/** Characters `run` hands to JSON.parse. */
async function parsedDuring(run: () => Promise<unknown>): Promise<number> {
  const parse = JSON.parse
  let chars = 0
  const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
    chars += text.length
    return parse(text, reviver) as unknown
  })
  try {
    await run()
  } finally {
    spy.mockRestore()
  }
  return chars
}

function historyOf(store: ProfileStore, id: string): MemoryWrite[] {
  return [...(store.state.history?.[id] ?? [])]
}

it('the first save after a start reads none of the megabyte entries it drops, and leaves the same history', async () => {
  const t = await freshStore()
  stores.push(t)
  await t.store.command({ op: 'profile.create', profile: { name: '长历史' } })
  const id = t.store.state.profiles.at(-1)!.id
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: `m${i}`,
    text: `事实 ${i}: ${'the user keeps a long running project and its conventions '.repeat(13)}`,
    source: 'user' as const,
    at: 1_700_000_000_000 + i * 60_000,
  }))
  // A bulk write of the whole memory, then one that empties it: its entry of about a megabyte is the history's one
  // (the first went past the characters bound), and no items are left to read.
  await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items: [] } } })
  expect(JSON.stringify(historyOf(t.store, id)).length).toBeGreaterThan(900_000)

  const store = await t.open()
  const target = { profileId: id }
  const parsed = await parsedDuring(() => store.command({ op: 'memory.add', target, items: [{ text: '第一条' }] }))
  // Reading the entry parsed almost a million characters; the save itself parses a few small rows.
  expect(parsed).toBeLessThan(50_000)

  // The old entry, no longer the newest, is past the characters bound: the new one alone stays, here and after a
  // restart.
  const [entry] = historyOf(store, id)
  expect(historyOf(store, id)).toHaveLength(1)
  expect(entry!.added.map((it) => it.text)).toEqual(['第一条'])
  const again = await t.open()
  expect(historyOf(again, id)).toEqual(historyOf(store, id))
  // And it undoes as any entry does.
  await store.command({ op: 'memory.revert', target, entryId: entry!.id })
  expect(store.state.profiles.find((p) => p.id === id)!.memory.items).toEqual([])
}, 120_000)

it('a history of small entries on disk keeps its newest 100 through saves, as one read whole would', async () => {
  const t = await freshStore()
  stores.push(t)
  await t.store.command({ op: 'profile.create', profile: { name: '多条' } })
  const id = t.store.state.profiles.at(-1)!.id
  const target = { profileId: id }
  for (let i = 0; i < 100; i++) await t.store.command({ op: 'memory.add', target, items: [{ text: `事实 ${i} 🙂` }] })
  const before = historyOf(t.store, id).map((e) => e.id)
  expect(before).toHaveLength(100)

  const store = await t.open()
  // Two saves at once (one batch) and one after: each drops the oldest entry and keeps its own.
  await Promise.all([
    store.command({ op: 'memory.add', target, items: [{ text: '新的 a' }] }),
    store.command({ op: 'memory.add', target, items: [{ text: '新的 b' }] }),
  ])
  await store.command({ op: 'memory.add', target, items: [{ text: '新的 c' }] })
  const after = historyOf(store, id)
  expect(after).toHaveLength(100)
  expect(after.slice(0, 97).map((e) => e.id)).toEqual(before.slice(3))
  expect(after.slice(97).flatMap((e) => e.added.map((it) => it.text))).toEqual(['新的 a', '新的 b', '新的 c'])
  const again = await t.open()
  expect(historyOf(again, id)).toEqual(after)
}, 120_000)
