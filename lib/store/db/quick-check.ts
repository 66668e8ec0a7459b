/**
 * SQLite's `quick_check`, table by table: which tables are checked and what the check of one says. Shared by the
 * open-time check (open.ts, on the opening connection) and the background check's thread (check-worker.ts, on a
 * read-only connection of its own). It never decides what a finding means and never writes a row.
 */
import type { DatabaseSync } from './sqlite.ts'

/** The tables `quick_check` is run on by name: every real table (FTS5's own check of the index reads every document). */
export function checkedTables(db: DatabaseSync): string[] {
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as {
    name: string
    sql: string | null
  }[]
  return rows.filter((t) => !/^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name)
}

/** The lines `quick_check` reports for one table, `ok` left out. */
export function checkTable(db: DatabaseSync, table: string): string[] {
  const quoted = `"${table.replaceAll('"', '""')}"`
  const rows = db.prepare(`PRAGMA quick_check(${quoted})`).all() as { quick_check: string }[]
  return rows.map((r) => r.quick_check).filter((l) => l !== 'ok')
}
