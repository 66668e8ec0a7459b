/**
 * What the user's first turn and first state reply pay for years of memory (#44): after a fresh open, the render of
 * the active profile's prompt and the count of every profile's memory read as much of the file with 10,000 items a
 * profile as with 1,000. Counted, not timed: the read calls this thread made (/proc/thread-self/io `syscr`: SQLite
 * reads a page a call, the store's runs on this thread) and the item rows whose text came back. The counts kept by
 * triggers (item-counts.ts) stay equal to the rows through every kind of change, and a database of the schema
 * before them gets them after the start, in the background.
 */
import { readFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { countsOf } from '../../lib/state/model.ts'
import { renderParts } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { seededStore, until } from '../support/store-helpers.ts'
import { itemRowsDuring } from '../support/statements.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0).reverse()) await d()
})

const PINNED = 3
const BUDGET = 3000

/** The i-th item of profile p: the first three pinned whatever the length, a third archived, every 7th pending. */
function itemOf(p: number, i: number): MemoryItem {
  return {
    id: `m${p}-${i}`,
    text: `第${i}条 profile ${p} fact about topic${i % 997}`,
    source: 'auto',
    at: 1_700_000_000_000 + i,
    ...(i < PINNED ? { pinned: true as const } : {}),
    ...(i % 3 === 0 && i >= PINNED ? { archived: true as const } : {}),
    ...(i % 7 === 3 ? { pending: true as const } : {}),
  }
}

/** A store file of three profiles of `per` items each, written into the rows directly (as years of saves leave them). */
async function seeded(per: number): Promise<{ file: string; ids: string[] }> {
  const { t, file, ids } = await seededStore(3, per, itemOf)
  disposers.push(t.dispose)
  return { file, ids }
}

/** Read calls this thread has made so far (SQLite reads the file a page a call). */
function readCalls(): number {
  const line = readFileSync('/proc/thread-self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('syscr:'))
  return Number(line?.split(': ')[1])
}

/** What `run` read: the read calls, and the rows of memory items whose text came back. */
function readDuring<T>(run: () => T): { value: T; calls: number; rows: number } {
  const before = readCalls()
  const { value, rows } = itemRowsDuring(run)
  return { value, calls: readCalls() - before, rows }
}

/** A fresh open of `file` (nothing of it in the connection's cache yet), closed after the test. */
async function opened(file: string): Promise<ProfileStore> {
  const store = await openStore({ file })
  disposers.push(() => store.close())
  return store
}

describe('the first turn after a fresh open, at 1,000 and at 10,000 items a profile', () => {
  it("renders the active profile's prompt reading the same rows and pages, what the budget holds and no more", async () => {
    const reads: { calls: number; rows: number }[] = []
    for (const per of [1_000, 10_000]) {
      const { file, ids } = await seeded(per)
      const store = await opened(file)
      const profile = store.state.profiles.find((x) => x.id === ids[0])!
      const options = { memoryBudget: BUDGET, recall: true }
      const render = readDuring(() => renderParts(profile, undefined, options))
      // The same render as the whole list's in memory.
      const items = Array.from({ length: per }, (_, i) => itemOf(0, i))
      expect(render.value).toEqual(
        renderParts({ ...profile, memory: { ...profile.memory, items } }, undefined, options),
      )
      reads.push({ calls: render.calls, rows: render.rows })
    }
    const [small, large] = reads as [{ calls: number; rows: number }, { calls: number; rows: number }]
    // The pinned items, then the newest until they pass the budget (each line takes its text and 3 characters): the
    // one that passes it is the last row read. Before this: 572 and 754 rows (the newest 751 a budget of 4-character
    // lines could hold, and the pinned), and every item of the profile counted through the index.
    const line = Math.min(...Array.from({ length: 10_000 }, (_, i) => itemOf(0, i).text.length)) + 3
    for (const r of [small, large]) expect(r.rows).toBeLessThanOrEqual(PINNED + Math.ceil(BUDGET / line) + 1)
    // Ten times the items: at most a level more of each b-tree it passes through (now 14 → 17 read calls; before
    // this 50 → 151).
    expect(large.calls).toBeLessThanOrEqual(small.calls + 8)
  }, 120_000)

  it("counts every profile's memory reading one row of counts each, not their items", async () => {
    const reads: number[] = []
    for (const per of [1_000, 10_000]) {
      const { file, ids } = await seeded(per)
      const store = await opened(file)
      const count = readDuring(() => countsOf(store.state).memories)
      expect(count.value).toBe(ids.length * per)
      expect(count.rows).toBe(0)
      reads.push(count.calls)
    }
    // Now 3 read calls at both sizes; before this, 42 → 457: each profile's index entries walked.
    expect(reads[1]).toBeLessThanOrEqual(reads[0]! + 4)
  }, 120_000)
})

/** The counts table, and the same counted from the rows' text by another connection: they must be equal. */
function countsAndRows(file: string): { counts: unknown[]; rows: unknown[]; done: unknown } {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const has = (key: string) => `(instr(data, '"${key}":true') > 0)`
    return {
      counts: db.prepare('SELECT * FROM memory_counts ORDER BY profile_id').all(),
      rows: db
        .prepare(
          `SELECT profile_id, count(*) AS items, sum(${has('archived')}) AS archived, sum(${has('pending')}) AS pending,
            sum(NOT ${has('archived')} AND NOT ${has('pending')}) AS memory FROM memory_items GROUP BY profile_id ORDER BY profile_id`,
        )
        .all(),
      done: (db.prepare("SELECT value FROM meta WHERE key = 'counts'").get() as { value?: unknown } | undefined)?.value,
    }
  } finally {
    db.close()
  }
}

describe('the memory counts kept by triggers', () => {
  it('stay equal to the rows through every command that changes them, and a write of an older version', async () => {
    const { file, ids } = await seeded(300)
    const check = () => {
      const { counts, rows } = countsAndRows(file)
      expect(counts).toEqual(rows)
    }
    check()
    const store = await opened(file)
    const target = { profileId: ids[1]! }
    const steps: unknown[] = [
      { op: 'memory.add', target, items: [{ text: '新的事实：用户喜欢爬山', source: 'tool' }] },
      { op: 'memory.update', target, itemId: 'm1-20', text: '改过的事实' },
      { op: 'memory.remove', target, itemId: 'm1-11' },
      // A suggestion (every 7th from the 3rd) becomes memory.
      { op: 'memory.approve', target, itemId: 'm1-10' },
      { op: 'memory.clear', target },
      {
        op: 'profile.update',
        id: ids[2]!,
        // One item kept as it was, one archived by the edit (its row's kind changes in place), the rest deleted.
        patch: { memory: { summary: '', items: [itemOf(2, 4), { ...itemOf(2, 5), archived: true }] } },
      },
      { op: 'profile.delete', id: ids[2]! },
    ]
    for (const c of steps) {
      await store.command(c as never)
      check()
    }
    const counted = countsOf(store.state).memories
    expect(counted).toBe(store.state.profiles.reduce((n, p) => n + [...p.memory.items].length, 0))
    await store.close()
    // A process of the schema before: rows without their columns, a text changed in place (the kinds' triggers fill
    // the columns, and the counts follow).
    const old = new DatabaseSync(file)
    old
      .prepare('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?)')
      .run(ids[0]!, 'old-1', 99_999, JSON.stringify({ ...itemOf(0, 1), id: 'old-1', pending: true }))
    old
      .prepare('UPDATE memory_items SET data = ? WHERE profile_id = ? AND id = ?')
      .run(JSON.stringify({ ...itemOf(0, 20), archived: true }), ids[0]!, 'm0-20')
    old.close()
    check()
  }, 120_000)

  it('come to a database of the schema before them after the start, in the background, with the render right meanwhile', async () => {
    const { file, ids } = await seeded(2_000)
    // What the schema before left: no counts, the index by position, schema 4.
    const db = new DatabaseSync(file)
    db.exec(`DROP TRIGGER memory_counts_insert; DROP TRIGGER memory_counts_delete; DROP TRIGGER memory_counts_update;
      DROP TABLE memory_counts; DROP INDEX memory_items_newest;
      CREATE INDEX memory_items_kinds ON memory_items (profile_id, kind, pos, item_at);
      DELETE FROM meta WHERE key = 'counts'; UPDATE meta SET value = 4 WHERE key = 'schema'`)
    db.close()
    const store = await opened(file)
    expect(store.health.upgrade).toBe('running')
    const profile = store.state.profiles.find((p) => p.id === ids[0])!
    const options = { memoryBudget: BUDGET, recall: true }
    const items = Array.from({ length: 2_000 }, (_, i) => itemOf(0, i))
    expect(renderParts(profile, undefined, options)).toEqual(
      renderParts({ ...profile, memory: { ...profile.memory, items } }, undefined, options),
    )
    expect(countsOf(store.state).memories).toBe(ids.length * 2_000)
    await until(() => countsAndRows(file).done === 'done' && store.health.upgrade === undefined, 'the counts')
    const { counts, rows } = countsAndRows(file)
    expect(counts).toEqual(rows)
    const check = new DatabaseSync(file, { readOnly: true })
    const indexes = check
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memory_items' AND sql IS NOT NULL")
      .all()
    check.close()
    // The index by position is gone; the text keys' (schema 7: this file kept it from the schema it was made with) stays.
    expect(indexes.map((r) => r.name).sort()).toEqual(['memory_items_newest', 'memory_items_text_key'])
  }, 120_000)
})
