/**
 * A history entry written beside megabyte entries reads what it writes, not those entries (#41): one pulled fact on a
 * store whose profiles each keep a bulk edit's entry (about a megabyte: the newest entry is kept whole past the
 * characters bound) inserts its history row and drops the one it replaces without reading the others' data. While the
 * history table was keyed by (list, id) with the data in the key, every cell a key search passed whose data spilled
 * onto overflow pages was read whole: hundreds of reads per entry written. Counted in read calls of this thread (the
 * store's SQLite runs on it), not in time.
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, it } from 'vitest'
import { freshStore } from '../support/store-helpers.ts'

type Store = Awaited<ReturnType<typeof freshStore>>
const stores: Store[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

/** Profiles that each keep one bulk edit's history entry. */
const PROFILES = 8
/** Items of each bulk edit: about 1 MB of history entry each. */
const ITEMS = 1_200

/** Read calls this thread has made so far (`syscr`: each pread of a page of the file is one). */
function readCalls(): number {
  const line = readFileSync('/proc/thread-self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('syscr:'))
  return Number(line?.split(': ')[1])
}

it('one history entry written beside megabyte entries reads a handful of pages, not their data', async () => {
  const t = await freshStore()
  stores.push(t)
  const { store } = t
  while (store.state.profiles.length < PROFILES)
    await store.command({ op: 'profile.create', profile: { name: `档案${store.state.profiles.length}` } })
  const ids = store.state.profiles.map((p) => p.id)
  for (const [p, id] of ids.entries()) {
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      id: `m${p}-${i}`,
      text: `fact ${p}-${i}: ${'the user keeps a long running project and its conventions '.repeat(13)}`,
      source: 'user' as const,
      at: 1_700_000_000_000 + i * 60_000,
    }))
    await store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  }
  const big = Object.values(store.state.history ?? {}).filter((l) => JSON.stringify(l).length > 900_000)
  expect(big).toHaveLength(PROFILES)
  // The profile in the middle of the lists' key order: the key searches pass the others' entries on both sides.
  const target = { profileId: [...ids].sort()[PROFILES / 2]! }
  // Its first save drops its own bulk entry (no longer the newest, past the bound): that frees the entry's pages,
  // which are read to be freed. What is asserted is a save after it, as a pull of one fact is.
  await store.command({ op: 'memory.add', target, items: [{ text: '同步拉来的第一条' }] })
  const reads: number[] = []
  for (let i = 0; i < 3; i++) {
    const before = readCalls()
    await store.command({ op: 'memory.add', target, items: [{ text: `同步拉来的第 ${i + 2} 条`, source: 'tool' }] })
    reads.push(readCalls() - before)
  }
  // Each save still holds the others' entries beside its own.
  expect(Object.values(store.state.history ?? {}).filter((l) => JSON.stringify(l).length > 900_000)).toHaveLength(
    PROFILES - 1,
  )
  // One megabyte of data is 250 pages of 4 KB; a write that reads none of it reads a few pages (2–3 here; the table of
  // schema 4 read 509–752 per save).
  expect(reads.filter((n) => n >= 100)).toEqual([])
}, 120_000)
