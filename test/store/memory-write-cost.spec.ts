/**
 * A memory write costs what it changes, not the history (#44): every statement a save, an edit and a delete run on a
 * store of thousands of items is looked up by key, never a scan of a table that grows with the memory; and a save
 * keeps the index's per-word counts (what recall ranks by) instead of reading them all again, while they stay equal
 * to counts read afresh. Asserted by what runs (query plans, statements), not by a time.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { distinctTerms } from '../../lib/shared/search-terms.ts'
import type { MemoryIndex } from '../../lib/store/db/memory-index.ts'
import { bulkLoadedStore, freshStore } from '../support/store-helpers.ts'
import { recordStatements } from '../support/statements.ts'

type Store = Awaited<ReturnType<typeof freshStore>>
const stores: Store[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

/** Tables whose rows grow with the memory and its history (the rest hold a row per profile or setting). */
const GROWING = /^(memory_items|memory_history|memory_docs|memory_fts\w*|history\w*|turns|sessions|set_aside\w*)$/

/** The plan lines of `sql` that read a growing table whole: a SCAN, or a virtual table asked with no constraint. */
function scans(db: DatabaseSync, sql: string): string[] {
  if (/^\s*(BEGIN|COMMIT|ROLLBACK|PRAGMA|SAVEPOINT|RELEASE)/i.test(sql)) return []
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail)
  return plan.filter((d) => {
    const m = /^SCAN (\w+)/.exec(d)
    if (m === null || !GROWING.test(m[1]!)) return false
    // FTS5 asked by rowid (`0:=`) or by a MATCH (`0:M…`) is a look-up; `0:` alone reads every row.
    return !/VIRTUAL TABLE INDEX \d+:.+/.test(d)
  })
}

const PROFILES = 3
const PER_PROFILE = 2_000

async function longStore(): Promise<{ t: Store; ids: string[] }> {
  const loaded = await bulkLoadedStore(PROFILES, PER_PROFILE)
  stores.push(loaded.t)
  return loaded
}

describe('a memory write on a long history', () => {
  it('runs no statement that scans a table growing with the memory: save, edit, delete', async () => {
    const ran = recordStatements()
    const { t, ids } = await longStore()
    const target = { profileId: ids[1]! }
    // Warm: the first touch of a list on disk reads it (once, not per write); what is asserted is every write after.
    await t.store.command({ op: 'memory.add', target, items: [{ text: '预热的一条记忆' }] })
    ran.length = 0
    const added = await t.store.command({ op: 'memory.add', target, items: [{ text: '用户下周去青岛出差' }] })
    const id = added.added[0]!.id
    await t.store.command({ op: 'memory.update', target, itemId: id, text: '用户下周去青岛出差，住三天' })
    await t.store.command({ op: 'memory.remove', target, itemId: 'm1-5' })
    expect(ran.length).toBeGreaterThan(5)
    const plans = new DatabaseSync(t.store.file, { readOnly: true })
    try {
      const found = [...new Set(ran)].flatMap((sql) => scans(plans, sql).map((d) => `${d} ← ${sql}`))
      expect(found).toEqual([])
    } finally {
      plans.close()
    }
  })

  it('keeps the per-word counts across its own saves, equal to counts read afresh', async () => {
    const ran = recordStatements()
    const { t, ids } = await longStore()
    const target = { profileId: ids[0]! }
    const asked = [...distinctTerms('项目 进展 青岛 出差'), 'k5']
    const stats = (index: MemoryIndex) => {
      const s = index.termStats(asked)
      return { docs: s.docs, meanTerms: s.meanTerms, df: asked.map((w) => s.df.get(w)) }
    }
    t.store.searchIndex(stats)
    const added = await t.store.command({
      op: 'memory.add',
      target,
      items: [{ text: '用户下周去青岛出差，项目有进展' }, { text: '第二条：青岛的海鲜过敏 k5' }],
    })
    await t.store.command({ op: 'memory.remove', target, itemId: 'm0-5' })
    await t.store.command({ op: 'memory.update', target, itemId: added.added[1]!.id, text: '第二条：青岛出差 k5' })
    ran.length = 0
    const kept = t.store.searchIndex(stats)
    // Nothing of the vocabulary was read again: every asked word's count was brought along by the writes.
    expect(ran.filter((sql) => sql.includes('memory_vocab'))).toEqual([])
    // And the counts are what a fresh read says (another store on the same file reads them afresh).
    const other = await t.open()
    expect(kept).toEqual(other.searchIndex(stats))
    expect(kept!.df.every((n) => n !== undefined && n > 0)).toBe(true)
  })
})
