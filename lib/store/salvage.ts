/**
 * Salvage of a damaged database: every row of our tables that SQLite can still read is taken from it, table by table
 * and row by row, and copied as it is into the fresh database that replaces it, so the user keeps what survived
 * instead of the factory profiles. Rows are read in key order from the front until a damaged page stops the read, then
 * from the back until one stops it again; a table with an index on its key (sessions) is read key by key through
 * it as well, so one bad page costs only the rows on it. It never judges the rows (the load sets aside what breaks
 * the rules) and never writes the damaged file.
 */
import { DatabaseSync } from 'node:sqlite'
import type { Salvage } from '../shared/contract.ts'
import { APPLICATION_ID } from './schema.ts'

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
  tables: { name: string; columns: string[]; rows: Record<string, unknown>[] }[]
  saved: number
  /** Rows counted but unreadable; a lower bound when `uncounted`. */
  lost: number
  /** Some table could not be counted at all. */
  uncounted: boolean
}

type Row = Record<string, unknown>

/** Read the rows of `sql` one at a time until the first error; every row read before it is kept. */
function readUntilError(db: DatabaseSync, sql: string, params: unknown[], into: Row[]): void {
  try {
    for (const row of db.prepare(sql).iterate(...(params as never[])) as Iterable<Row>) into.push(row)
  } catch {
    // A damaged page: what came before it is kept, the rest is read from the other end.
  }
}

/** The number `sql` answers, or undefined when the pages it needs are damaged. */
function countOf(db: DatabaseSync, sql: string): number | undefined {
  try {
    return Number((db.prepare(sql).get() as { n: number }).n)
  } catch {
    return undefined
  }
}

/** Every readable row of one table, each once. */
function tableRows(db: DatabaseSync, table: (typeof TABLES)[number]): { rows: Row[]; expected: number | undefined } {
  const keyOf = (r: Row) => JSON.stringify(table.key.map((k) => r[k]))
  const order = table.key.join(', ')
  const found: Row[] = []
  readUntilError(db, `SELECT * FROM ${table.name} ORDER BY ${order}`, [], found)
  readUntilError(db, `SELECT * FROM ${table.name} ORDER BY ${table.key.map((k) => `${k} DESC`).join(', ')}`, [], found)
  const byIndex = table.index === undefined ? undefined : countOf(db, `SELECT count(*) AS n FROM ${table.name} INDEXED BY ${table.index}`)
  if (table.index !== undefined) {
    // Keys from the index (its own pages), each row then looked up alone: a damaged page of the table costs its rows only.
    const keys: Row[] = []
    readUntilError(db, `SELECT ${order} FROM ${table.name} INDEXED BY ${table.index}`, [], keys)
    const one = db.prepare(`SELECT * FROM ${table.name} WHERE ${table.key.map((k) => `${k} = ?`).join(' AND ')}`)
    for (const k of keys) {
      try {
        const row = one.get(...(table.key.map((c) => k[c]) as never[])) as Row | undefined
        if (row !== undefined) found.push(row)
      } catch {
        // This row's page is damaged.
      }
    }
  }
  const rows = new Map<string, Row>()
  for (const r of found) rows.set(keyOf(r), r)
  const expected = countOf(db, `SELECT count(*) AS n FROM ${table.name}`) ?? byIndex
  return { rows: [...rows.values()], expected: expected === undefined ? undefined : Math.max(expected, rows.size) }
}

/** The columns of a table in a database, or [] when it has no such table (or its schema cannot be read). */
function columnsOf(db: DatabaseSync, table: string): string[] {
  try {
    return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name)
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
    if (Number((db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id) !== APPLICATION_ID) {
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
export function copySurvivors(file: string, survivors: Survivors, keptAs: string): Salvage {
  const db = new DatabaseSync(file)
  try {
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const t of survivors.tables) {
        const have = new Set(columnsOf(db, t.name))
        const columns = t.columns.filter((c) => have.has(c))
        if (columns.length === 0) continue
        const insert = db.prepare(`INSERT OR REPLACE INTO ${t.name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
        for (const row of t.rows) insert.run(...(columns.map((c) => row[c] ?? null) as never[]))
      }
      db.exec('COMMIT')
    } catch (e) {
      db.exec('ROLLBACK')
      throw e
    }
  } finally {
    db.close()
  }
  return { saved: survivors.saved, lost: survivors.lost, ...(survivors.uncounted ? { lostUncounted: true as const } : {}), keptAs }
}
