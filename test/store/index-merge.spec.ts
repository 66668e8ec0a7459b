/**
 * Saves after a bulk write cost what they change, not the segments the bulk write left (#44): the store merges the
 * memory index's segments in the background after a write of thousands of items, so a later save never pays for
 * that merge; a merge the close cut short is finished by the next start; ordinary saves never start one. Asserted by
 * the index blocks each save rewrites (read by a second connection) and what the index answers, never by a time.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { bulkLoadedStore, freshStore, indexMerged, mergeMarked } from '../support/store-helpers.ts'

type Store = Awaited<ReturnType<typeof freshStore>>
const stores: Store[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

const PROFILES = 3
const PER_PROFILE = 2_000
const SAVES = 150

/** A store whose three profiles were each saved whole with `PER_PROFILE` items (what an import or a restore writes). */
async function bulkLoaded(options: { mergePages?: number } = {}): Promise<{ t: Store; ids: string[] }> {
  const loaded = await bulkLoadedStore(PROFILES, PER_PROFILE, options)
  stores.push(loaded.t)
  return loaded
}

describe('the index after a bulk write', () => {
  it('is merged in the background, so that later saves rewrite only their own part of it', async () => {
    const { t, ids } = await bulkLoaded()
    await indexMerged(t.store.file)
    const ro = new DatabaseSync(t.store.file, { readOnly: true })
    const blocks = () =>
      new Set((ro.prepare('SELECT id FROM memory_fts_data').all() as { id: number }[]).map((r) => r.id))
    const written: number[] = []
    try {
      let before = blocks()
      for (let k = 0; k < SAVES; k++) {
        await t.store.command({
          op: 'memory.add',
          target: { profileId: ids[k % PROFILES]! },
          items: [{ text: `第${k}次保存：用户提到了项目${k % 17}的新进展` }],
        })
        const now = blocks()
        written.push([...now].filter((b) => !before.has(b)).length + [...before].filter((b) => !now.has(b)).length)
        before = now
      }
    } finally {
      ro.close()
    }
    // Counted with 3 × 2,000 items: 318 blocks over the 150 saves, the largest 25 (unmerged: 1,342, one save 424,
    // merging what the bulk write left; at 3 × 9,900 items 1,649 and 559, merged 309 and 35).
    expect(Math.max(...written)).toBeLessThanOrEqual(64)
    expect(written.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3 * SAVES)
  })

  it('is merged by the next start when the close cut the merge short, and finds the same items', async () => {
    const { t, ids } = await bulkLoaded({ mergePages: 1 })
    const find = (store: Store['store']) => store.searchIndex((index) => index.ranked(ids, ['k17'], 20))
    const hits = find(t.store)
    expect(hits?.length).toBeGreaterThan(0)
    await t.store.close()
    expect(mergeMarked(t.store.file)).toBe(true)
    const again = await t.open()
    await indexMerged(t.store.file)
    expect(mergeMarked(t.store.file)).toBe(false)
    expect(find(again)).toEqual(hits)
  })

  it('is merged once when an earlier version made it (which kept no track of merges)', async () => {
    const { t } = await bulkLoaded({ mergePages: 1 })
    await t.store.close()
    const raw = new DatabaseSync(t.store.file)
    raw.exec('DROP TABLE memory_index_merge')
    raw.close()
    expect(mergeMarked(t.store.file)).toBe(false)
    await t.open(t.store.file, { mergePages: 1 })
    expect(mergeMarked(t.store.file)).toBe(true)
  })

  it('is never marked for a merge by ordinary saves', async () => {
    const t = await freshStore()
    stores.push(t)
    const target = { profileId: t.store.state.profiles[0]!.id }
    for (let k = 0; k < 20; k++) await t.store.command({ op: 'memory.add', target, items: [{ text: `第${k}条记忆` }] })
    const db = new DatabaseSync(t.store.file, { readOnly: true })
    try {
      expect(db.prepare('SELECT count(*) AS n FROM memory_index_merge').get()).toEqual({ n: 0 })
    } finally {
      db.close()
    }
  })
})
