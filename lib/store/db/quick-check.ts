/**
 * SQLite's `quick_check`, table by table: which tables are checked and what the check of one says. Shared by the
 * open-time check (open.ts, on the opening connection) and the background check (`checkFile`, run on the store's worker thread by
 * store-jobs.ts, on a read-only connection of its own). It never decides what a finding means and never writes a row.
 */
import { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowsOf } from './row-read.ts'

/** The tables `quick_check` is run on by name: every real table (FTS5's own check of the index reads every document). */
export function checkedTables(db: DatabaseSync): string[] {
  const rows = rowsOf(
    'sqlite_master',
    COLUMNS.table,
    db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all(),
  )
  return rows.filter((t) => !/^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name)
}

/** The lines `quick_check` reports for one table, `ok` left out. */
export function checkTable(db: DatabaseSync, table: string): string[] {
  const quoted = `"${table.replaceAll('"', '""')}"`
  const rows = rowsOf('quick_check', COLUMNS.quickCheck, db.prepare(`PRAGMA quick_check(${quoted})`).all())
  return rows.map((r) => r.quick_check).filter((l) => l !== 'ok')
}

/**
 * What the whole-file check of a database found: `gone` when the file could not be opened (the store closed, the file
 * went away), else the tables it checked and the lines `quick_check` (or SQLite, failing to read a page) reported.
 */
export type CheckAnswer = { kind: 'gone'; message: string } | { kind: 'done'; tables: string[]; lines: string[] }

/** Check every real table of `file` on a read-only connection of its own, waiting `busyTimeoutMs` for a writer's lock. */
export function checkFile(file: string, busyTimeoutMs: number): CheckAnswer {
  let db: DatabaseSync
  try {
    db = new DatabaseSync(file, { readOnly: true, timeout: busyTimeoutMs })
  } catch (e) {
    return { kind: 'gone', message: e instanceof Error ? e.message : String(e) }
  }
  const checked: string[] = []
  const lines: string[] = []
  try {
    for (const table of checkedTables(db)) {
      checked.push(table)
      lines.push(...checkTable(db, table))
    }
  } catch (e) {
    // A page SQLite cannot read is damage too.
    lines.push(e instanceof Error ? e.message : String(e))
  } finally {
    db.close()
  }
  return { kind: 'done', tables: checked, lines }
}
