/**
 * Salvage of a damaged database: every row of our tables that SQLite can still read is taken from it, table by table
 * and row by row, and copied as it is into the fresh database that replaces it, so the user keeps what survived
 * instead of the factory profiles. Rows are read in key order; where a damaged page stops the read, the key space is
 * searched for the first key past it and the read resumes there, so one bad page costs only the rows on it. It never
 * judges the rows (the load sets aside what breaks the rules) and never writes the damaged file.
 */
import { rmSync } from 'node:fs'
import { basename } from 'node:path'
import type { Salvage } from '../../shared/meta.ts'
import { errorText } from '../../shared/errors.ts'
import type { AvatarFiles } from './avatars.ts'
import type { Database } from './database.ts'
import { databaseFiles, type Layout } from './layout.ts'
import type { Loaded } from './load.ts'
import { openDatabase } from './open.ts'
import { COLUMNS, rowOf } from './row-read.ts'
import { APPLICATION_ID, columnsOf as tableColumns } from './schema.ts'
import { DatabaseSync, type SQLOutputValue } from './sqlite.ts'
import type { StoredValuesAt } from './stored-values.ts'

/** Our tables, with their key columns (the order the rows are read in). */
const TABLES: readonly { name: string; key: readonly string[]; index?: string }[] = [
  { name: 'meta', key: ['key'] },
  { name: 'profiles', key: ['id'] },
  { name: 'memory_items', key: ['profile_id', 'id'] },
  { name: 'sessions', key: ['id'], index: 'sessions_by_rev' },
  { name: 'sessions_gone', key: ['id'] },
  { name: 'memory_undo', key: ['profile_id'] },
  { name: 'turns', key: ['session_id', 'turn'] },
  { name: 'retired_profiles', key: ['id'] },
  { name: 'memory_history', key: ['list', 'id'] },
]

/** What could be read of a damaged database: rows by table, and how many rows its tables said they held. */
export interface Survivors {
  tables: { name: string; columns: string[]; rows: Row[] }[]
  saved: number
  /** Rows counted but unreadable; a lower bound when `uncounted`. */
  lost: number
  /** Some table could not be counted at all. */
  uncounted: boolean
}

type Row = Record<string, SQLOutputValue>

/** The rows of `table` (read through `index`, when named), or undefined when the pages it needs are damaged. */
function countOf(db: DatabaseSync, table: string, index?: string): number | undefined {
  try {
    const sql = `SELECT count(*) AS n FROM ${table}${index === undefined ? '' : ` INDEXED BY ${index}`}`
    return rowOf(table, COLUMNS.count, db.prepare(sql).get()).n
  } catch {
    return undefined
  }
}

/** Key text is compared as ASCII (every id and session id is): the search runs over strings of these code points. */
const BASE = 128n
/** Longest key the search places itself between (session ids are at most 128 characters). */
const KEY_LENGTH = 130

/** A key as a number in base 128 over KEY_LENGTH digits (characters past ASCII count as the highest digit). */
function keyNumber(key: string): bigint {
  let n = 0n
  for (let i = 0; i < KEY_LENGTH; i++) n = n * BASE + BigInt(Math.min(127, key.charCodeAt(i) || 0))
  return n
}

function keyText(n: bigint): string {
  const codes: number[] = []
  for (let i = 0; i < KEY_LENGTH; i++) {
    codes.unshift(Number(n % BASE))
    n /= BASE
  }
  while (codes.length > 0 && codes.at(-1) === 0) codes.pop()
  return String.fromCharCode(...codes)
}

/** The largest key the search tries: past every stored key. */
const TOP = keyText(BASE ** BigInt(KEY_LENGTH) - 1n)

/**
 * Every readable row of one table, each once, in key order. A read that stops at a damaged page resumes after it:
 * the first key column is searched (by halving the key space between the last key read and the end) for the
 * smallest key whose seek succeeds, which is the first key past the damage, and the read goes on from there. One
 * damaged page costs the rows on it (and, for a key of two columns, the rest of the first column's value it hit).
 */
function tableRows(db: DatabaseSync, table: (typeof TABLES)[number]): { rows: Row[]; expected: number | undefined } {
  const first = table.key[0]!
  const order = table.key.join(', ')
  const from = db.prepare(`SELECT * FROM ${table.name} WHERE ${first} >= ? ORDER BY ${order}`)
  const after = db.prepare(`SELECT ${first} AS k FROM ${table.name} WHERE ${first} > ? ORDER BY ${first} LIMIT 1`)
  /** The first value of the key column past `key`: a string, null past the end, undefined when the seek fails. */
  const probe = (key: string): string | null | undefined => {
    try {
      const row = after.get(key)
      return row === undefined ? null : String(row.k)
    } catch {
      return undefined
    }
  }
  const rows: Row[] = []
  let start: string | null = ''
  let last = ''
  while (start !== null) {
    let failed = false
    let read = false
    try {
      for (const row of from.iterate(start)) {
        rows.push(row)
        last = String(row[first])
        read = true
      }
    } catch {
      failed = true
    }
    if (!failed) break
    // Nothing read from `start`: its seek succeeds but its row lies on the damage, so the search goes past it (else
    // the same key is found again and again, and the salvage never ends).
    const past: string = read ? last : start
    // Resume past the damage: the smallest key above `past` whose seek succeeds.
    let lo = keyNumber(past)
    let hi = keyNumber(TOP)
    // Past the last key (or, when the last page is the damaged one, nothing more to find forward).
    let found: string | null | undefined = null
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n
      const at = probe(keyText(mid))
      if (at === undefined) lo = mid
      else {
        hi = mid
        found = at
      }
    }
    start = found === null || found === undefined || found <= past ? null : found
  }
  // From the other end too: rows past the last damage the forward search could not place itself after.
  const back: Row[] = []
  try {
    for (const row of db
      .prepare(`SELECT * FROM ${table.name} ORDER BY ${table.key.map((k) => `${k} DESC`).join(', ')}`)
      .iterate())
      back.push(row)
  } catch {
    // Stopped at the damage nearest the end.
  }
  const keyOf = (r: Row) => JSON.stringify(table.key.map((k) => r[k]))
  const seen = new Set(rows.map(keyOf))
  for (const row of back) if (!seen.has(keyOf(row))) rows.push(row)
  const byIndex = table.index === undefined ? undefined : countOf(db, table.name, table.index)
  const expected = countOf(db, table.name) ?? byIndex
  return { rows, expected: expected === undefined ? undefined : Math.max(expected, rows.length) }
}

/** The columns of a table in a database, or [] when it has no such table (or its schema cannot be read). */
function columnsOf(db: DatabaseSync, table: string): string[] {
  try {
    return tableColumns(db, table)
  } catch {
    return []
  }
}

/**
 * Read what survives of the database at `file` (in place, read-only, its -wal included); undefined when SQLite cannot
 * open it at all (not a database, or its first page is gone) or it is not ours.
 */
export function readSurvivors(file: string): Survivors | undefined {
  let db: DatabaseSync
  try {
    db = new DatabaseSync(file, { readOnly: true })
  } catch {
    return undefined
  }
  try {
    // Only our own database: another program's rows are not ours to copy.
    if (
      rowOf('application_id', COLUMNS.applicationId, db.prepare('PRAGMA application_id').get()).application_id !==
      APPLICATION_ID
    ) {
      db.close()
      return undefined
    }
  } catch {
    db.close()
    return undefined
  }
  try {
    const out: Survivors = { tables: [], saved: 0, lost: 0, uncounted: false }
    for (const table of TABLES) {
      const columns = columnsOf(db, table.name)
      if (columns.length === 0) continue
      const { rows, expected } = tableRows(db, table)
      // The schema number is the new database's own; the rest of meta (revision, active id…) is the user's.
      const kept = table.name === 'meta' ? rows.filter((r) => r.key !== 'schema') : rows
      out.tables.push({ name: table.name, columns, rows: kept })
      out.saved += kept.length
      if (expected === undefined) out.uncounted = true
      else out.lost += expected - rows.length
    }
    return out
  } finally {
    db.close()
  }
}

/**
 * Copy `survivors` into the database at `file` (just created, of the current schema) in one transaction; columns the
 * new schema lacks are left out, columns it added stay NULL. Returns the figures for Diagnostics.
 */
function copySurvivors(file: string, survivors: Survivors, keptAs: string): Salvage {
  const db = new DatabaseSync(file)
  try {
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const t of survivors.tables) {
        const have = new Set(columnsOf(db, t.name))
        const columns = t.columns.filter((c) => have.has(c))
        if (columns.length === 0) continue
        const insert = db.prepare(
          `INSERT OR REPLACE INTO ${t.name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        )
        for (const row of t.rows) insert.run(...columns.map((c) => row[c] ?? null))
      }
      db.exec('COMMIT')
    } catch (e) {
      db.exec('ROLLBACK')
      throw e
    }
  } finally {
    db.close()
  }
  return {
    saved: survivors.saved,
    lost: survivors.lost,
    ...(survivors.uncounted ? { lostUncounted: true as const } : {}),
    keptAs,
  }
}

/** What {@link salvageInto} copies, and where. */
export interface SalvageOptions {
  layout: Layout
  avatars: AvatarFiles
  /** What {@link readSurvivors} read of the damaged database before it was moved aside. */
  survivors: Survivors
  /** The name the damaged database was kept as. */
  keptAs: string
  /** Where a failure is reported. */
  warn(message: string): void
}

/**
 * A new database at `layout.file` holding the rows read from the damaged one, opened and loaded; undefined (and the
 * new file removed) when that fails, so that the store starts as if nothing was saved. The rows become the state's
 * values by `values` (lib/store's provenance).
 */
export function salvageInto(
  options: SalvageOptions,
  values: StoredValuesAt,
): { db: Database; loaded: Loaded; salvage: Salvage } | undefined {
  const { layout, avatars } = options
  let db: Database | undefined
  try {
    openDatabase({ layout, avatars, create: true }).close()
    const salvage = copySurvivors(layout.file, options.survivors, options.keptAs)
    db = openDatabase({ layout, avatars, create: false })
    const loaded = db.loadAll(Date.now(), values)
    if (loaded === undefined || loaded.state.profiles.length === 0) throw new Error('no profile could be read')
    return { db, loaded, salvage }
  } catch (e) {
    db?.close()
    options.warn(
      `agent-profiles: the rows read from ${basename(options.keptAs)} could not be copied into a new database: ${errorText(e)}`,
    )
    for (const f of databaseFiles(layout)) rmSync(f, { force: true })
    return undefined
  }
}
