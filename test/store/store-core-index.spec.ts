/**
 * The first turn's core render reads the core of a profile by key (#44): with 100,000 items in ten profiles, the
 * render's statements reach the pinned items and the newest a budget can take through the index on the item
 * columns, and take the count of the rest from the profile's counts, never reading every row of the profile (asserted by query plans and rows
 * returned, not by a time). The columns a database of schema 3 lacks are filled in the background after the start,
 * in steps that a kill interrupts without losing anything, and the next start resumes where the last step ended.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import { isInMemory } from '../../lib/state/lazy-list.ts'
import { renderParts } from '../../lib/prompt/render.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { seededStore, until } from '../support/store-helpers.ts'
import { itemRowsDuring, recordStatements } from '../support/statements.ts'
import { longItem } from '../support/memory-items.ts'
import { childArgs } from '../support/children.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0).reverse()) await d()
})

/** The i-th item of profile p (memory-items.ts), every 7th also a suggestion awaiting approval. */
function itemOf(p: number, i: number): MemoryItem {
  return { ...longItem(p, i), ...(i % 7 === 3 ? { pending: true as const } : {}) }
}

/**
 * A store file of `profiles` profiles of `per` items each, written into the rows directly (as years of saves leave
 * them; the store's own commands take minutes for 100,000): the file, the profiles' ids and a store on it.
 */
async function seeded(profiles: number, per: number) {
  const seeded = await seededStore(profiles, per, itemOf)
  disposers.push(seeded.t.dispose)
  return seeded
}

/** The plan lines of `sql` that read every row of a profile: a scan, or a search by the profile alone through rows. */
function wholeProfileReads(db: DatabaseSync, sql: string): string[] {
  if (!/memory_items/.test(sql)) return []
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail)
  return plan.filter(
    (d) =>
      d.startsWith('SCAN memory_items') ||
      /^SEARCH memory_items USING (PRIMARY KEY|INDEX \w+) \(profile_id=\?\)$/.test(d),
  )
}

/** The active profile's render after a fresh open, with what it read, and the render of the same items in memory. */
async function firstRender(file: string, id: string, p: number, per: number) {
  // Recorded from before the open: the store prepares its statements once.
  const ran = recordStatements()
  const store = await openStore({ file })
  disposers.push(() => store.close())
  const profile = store.state.profiles.find((x) => x.id === id)!
  const options = { memoryBudget: 3000, recall: true }
  ran.length = 0
  const render = itemRowsDuring(() => renderParts(profile, undefined, options))
  const statements = [...new Set(ran)]
  expect(isInMemory(profile.memory.items)).toBe(false)
  const items = Array.from({ length: per }, (_, i) => itemOf(p, i))
  const whole = renderParts({ ...profile, memory: { ...profile.memory, items } }, undefined, options)
  return { store, render, statements, whole }
}

describe('the first core render of a store of 100,000 items', () => {
  it('reads the core rows by key: no statement reads every row of the profile, rows ≤ pinned + budget', async () => {
    const PROFILES = 10
    const PER = 10_000
    const { file, ids } = await seeded(PROFILES, PER)
    // The first profile: a factory one, with the persona a render needs to say its memory at all.
    const { render, statements, whole } = await firstRender(file, ids[0]!, 0, PER)
    expect(render.value).toEqual(whole)
    const pinned = Array.from({ length: PER }, (_, i) => itemOf(0, i)).filter(
      (it) => it.pinned === true && it.archived !== true && it.pending !== true,
    ).length
    expect(render.rows).toBeLessThanOrEqual(pinned + Math.floor(3000 / 4) + 1)
    expect(statements.filter((s) => /memory_items/.test(s)).length).toBeGreaterThan(0)
    const plans = new DatabaseSync(file, { readOnly: true })
    try {
      expect(statements.flatMap((sql) => wholeProfileReads(plans, sql).map((d) => `${d} ← ${sql}`))).toEqual([])
    } finally {
      plans.close()
    }
  }, 180_000)
})

/** Make the file what schema 3 wrote: no item columns, no triggers, no index, no counts (a user's file before this). */
function asSchema3(file: string): void {
  const db = new DatabaseSync(file)
  db.exec(`DROP TRIGGER memory_items_kind_insert; DROP TRIGGER memory_items_kind_update; DROP INDEX memory_items_newest;
    DROP TRIGGER memory_counts_insert; DROP TRIGGER memory_counts_delete; DROP TRIGGER memory_counts_update;
    DROP TABLE memory_counts; ALTER TABLE memory_items DROP COLUMN kind; ALTER TABLE memory_items DROP COLUMN item_at;
    DELETE FROM meta WHERE key IN ('kinds', 'kindsAfter', 'counts'); UPDATE meta SET value = 3 WHERE key = 'schema'`)
  db.close()
}

const digest = (rows: unknown) => createHash('sha256').update(JSON.stringify(rows)).digest('hex')

/** What the file holds: every item row's key, position and text, and the fill's state. */
function rowsOf(file: string) {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const rows = db.prepare('SELECT profile_id, id, pos, data FROM memory_items ORDER BY profile_id, id').all()
    const meta = (k: string) =>
      (db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as { value?: unknown })?.value
    const columns = db.prepare("SELECT 1 FROM pragma_table_info('memory_items') WHERE name = 'kind'").get()
    if (columns === undefined)
      return {
        rows: digest(rows),
        count: rows.length,
        kinds: meta('kinds'),
        after: undefined,
        filled: 0,
        wrong: rows.length,
      }
    const filled = (db.prepare('SELECT count(*) AS n FROM memory_items WHERE kind IS NOT NULL').get() as { n: number })
      .n
    const wrong = db
      .prepare(
        `SELECT count(*) AS n FROM memory_items WHERE kind IS NOT ((instr(data, '"pending":true') > 0)
          + 2 * (instr(data, '"archived":true') > 0) + 4 * (instr(data, '"pinned":true') > 0))
          OR item_at IS NOT json_extract(data, '$.at')`,
      )
      .get() as { n: number }
    return {
      rows: digest(rows),
      count: rows.length,
      kinds: meta('kinds'),
      after: meta('kindsAfter'),
      filled,
      wrong: wrong.n,
    }
  } finally {
    db.close()
  }
}

describe('the item columns of a database of schema 3', () => {
  it('are filled after the start, not at it, with the render right meanwhile and no copy of the file taken', async () => {
    const { file, t } = await seeded(3, 2_000)
    asSchema3(file)
    const before = rowsOf(file)
    const store: ProfileStore = await openStore({ file, kindsBatch: 500 })
    disposers.push(() => store.close())
    // The open migrated the schema and filled nothing: every row is the background's to fill.
    expect(rowsOf(file).filled).toBe(0)
    // And Diagnostics says so until it ends.
    expect(store.health.upgrade).toBe('running')
    const profile = store.state.profiles[0]!
    const items = Array.from({ length: 2_000 }, (_, i) => itemOf(0, i))
    const options = { memoryBudget: 3000, recall: true }
    expect(renderParts(profile, undefined, options)).toEqual(
      renderParts({ ...profile, memory: { ...profile.memory, items } }, undefined, options),
    )
    await until(() => rowsOf(file).kinds === 'done' && store.health.upgrade === undefined, 'the fill')
    const after = rowsOf(file)
    expect(after).toMatchObject({ rows: before.rows, filled: before.count, wrong: 0 })
    expect(readdirSync(t.dir).filter((f) => /\.v3-/.test(f))).toEqual([])
  }, 120_000)

  it("tell an open page when the upgrade ends, so Diagnostics' row goes without a reload", async () => {
    const { file } = await seeded(3, 2_000)
    asSchema3(file)
    const store: ProfileStore = await openStore({ file, kindsBatch: 500 })
    disposers.push(() => store.close())
    // What the page shows after each push: the upgrade's row and the integrity check's (which also pushes).
    const now = () => ({ upgrade: store.health.upgrade, check: store.health.check?.state })
    const shown = [now()]
    store.onHealth(() => shown.push(now()))
    expect(shown[0]!.upgrade).toBe('running')
    await until(() => rowsOf(file).kinds === 'done' && store.health.upgrade === undefined, 'the fill')
    // The end was pushed on its own: the page went from the running row to none with the check's row unchanged,
    // not only when the check happened to end after it.
    const end = shown.findIndex((h) => h.upgrade === undefined)
    expect(end).toBeGreaterThan(0)
    expect(shown[end - 1]).toEqual({ upgrade: 'running', check: shown[end]!.check })
  }, 120_000)

  it('loses nothing when the process is killed mid-fill, and the next start resumes after the last step', async () => {
    const { file, ids } = await seeded(3, 2_000)
    asSchema3(file)
    const before = rowsOf(file)
    const child = spawn(process.execPath, childArgs('kinds-child', file, '300'), {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise((r) => child.on('exit', r))
    await until(() => rowsOf(file).filled >= 900, 'some steps of the fill')
    child.kill('SIGKILL')
    await exited
    const killed = rowsOf(file)
    expect(killed.rows).toBe(before.rows)
    expect(killed.kinds).toBeUndefined()
    expect(killed.filled).toBeLessThan(before.count)
    expect(killed.wrong).toBe(before.count - killed.filled)
    // A row the killed process filled is marked: a fill that started again from the first row would mend it.
    const [owner, id] = JSON.parse(String(killed.after)) as [string, string]
    const mark = new DatabaseSync(file)
    mark.prepare('UPDATE memory_items SET kind = 99 WHERE profile_id = ? AND id = ?').run(owner, id)
    mark.close()
    const store = await openStore({ file, kindsBatch: 300 })
    disposers.push(() => store.close())
    await until(() => rowsOf(file).kinds === 'done', 'the fill after the restart')
    const done = rowsOf(file)
    expect(done.rows).toBe(before.rows)
    expect(done.filled).toBe(before.count)
    expect(done.wrong).toBe(1)
    expect(ids).toContain(owner)
  }, 120_000)
})
