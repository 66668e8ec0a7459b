import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0)) await d()
})

const sqliteOf = (file: string) => file.replace(/\.json$/, '.sqlite')

/** A store whose active profile holds `n` items, closed; its data file. */
async function storeOf(n: number): Promise<{ file: string; owner: string }> {
  const t = await freshStore()
  disposers.push(t.dispose)
  const owner = t.store.state.activeId
  const items = Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: `第${i}条长期记忆 about topic${i}`,
    source: 'auto' as const,
    at: 1_700_000_000_000 + i,
  }))
  await t.store.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items } } })
  await t.store.close()
  return { file: t.file, owner }
}

/** Every SQL text this process prepares or runs while `run` goes on. */
async function statementsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const { prepare, exec } = DatabaseSync.prototype
  vi.spyOn(DatabaseSync.prototype, 'prepare').mockImplementation(function (this: DatabaseSync, sql: string) {
    seen.push(sql)
    return prepare.call(this, sql)
  })
  vi.spyOn(DatabaseSync.prototype, 'exec').mockImplementation(function (this: DatabaseSync, sql: string) {
    seen.push(sql)
    return exec.call(this, sql)
  })
  await run()
  vi.restoreAllMocks()
  return seen
}

describe('a long memory history at start', () => {
  it('opening reads no document of the search index (each table checked by name, the index trusted by its revision); a damaged index is rebuilt by the first query', async () => {
    const { file, owner } = await storeOf(2_000)
    let store: ProfileStore | undefined
    const sql = await statementsDuring(async () => {
      store = await openStore({ file })
    })
    disposers.push(() => store!.close())
    // FTS5's integrity check reads every document of the index, and so does a whole-file quick_check (which runs it).
    expect(sql.filter((s) => /integrity-check/.test(s))).toEqual([])
    expect(sql.filter((s) => /quick_check\s*$/i.test(s.trim()))).toEqual([])
    // The data's own tables are still checked, every one of them.
    expect(sql).toContain('PRAGMA quick_check("memory_items")')
    expect(sql).toContain('PRAGMA quick_check("profiles")')
    expect(sql.some((s) => /INSERT INTO memory_fts \(text/.test(s))).toBe(false)
    const hits = store!.searchIndex((index) => index.ranked([owner], ['topic1234'], 10)) ?? []
    expect(hits.map((h) => h.item)).toContain('m1234')
    await store!.close()
    // Trusted, not unchecked: an index damaged inside its blocks is rebuilt by the first query that meets it.
    const db = new DatabaseSync(sqliteOf(file))
    db.exec('UPDATE memory_fts_data SET block = zeroblob(length(block)) WHERE id > 10')
    db.close()
    store = await openStore({ file })
    expect(store.lastError).toBeNull()
    expect((store.searchIndex((index) => index.ranked([owner], ['topic77'], 10)) ?? []).map((h) => h.item)).toContain(
      'm77',
    )
    expect(store.searchIndex((index) => index.containing(owner, 'topic1999'))).toEqual(['m1999'])
  })
})
