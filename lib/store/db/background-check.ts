/**
 * The database's full integrity check, run after the store has started instead of at every open: `PRAGMA quick_check`
 * reads every page of every table, which with years of memory is most of the time an open takes. It runs one table
 * per step, on a read-only connection of its own, so that the event loop serves turns between steps; it never writes
 * a row and never throws. Damage it finds is reported (lastError, the log) and marked beside the database, so that
 * the next open runs the full check and keeps the file aside, salvaging every row still readable (open-store.ts):
 * what the user saves meanwhile goes to the same file, and that salvage copies it like any other row.
 */
import { writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { BUSY_TIMEOUT_MS } from './connection.ts'
import type { Problem } from './load.ts'
import { isIndexProblem } from './memory-index.ts'
import { DatabaseSync } from './sqlite.ts'

/** Time before the first step and between steps: the start and a first turn come first. */
const STEP_MS = 50

/** The file beside `databaseFile` that says its last full check found damage: the next open checks it whole. */
export function checkDueFile(databaseFile: string): string {
  return `${databaseFile}.check-due`
}

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

/** What the background check tells its store. */
export interface CheckReport {
  /** Damage was found: the problem for lastError and the log. */
  damaged(problem: Problem): void
}

/** Start the full check of `file` in the background; returns a function that stops it (at close). */
export function checkInBackground(file: string, report: CheckReport): () => void {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let db: DatabaseSync | undefined
  let tables: string[] = []
  const lines: string[] = []
  const stop = () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
    try {
      db?.close()
    } catch {
      // Already closed.
    }
    db = undefined
  }
  const finish = () => {
    stop()
    const found = lines.filter((l) => !isIndexProblem(l))
    if (found.length > 0) {
      const name = basename(file)
      const detail = found.slice(0, 3).join('; ')
      try {
        writeFileSync(checkDueFile(file), `${new Date().toISOString()} ${detail}\n`, { mode: 0o600 })
      } catch {
        // The report below still says it; the next open's check then relies on reading the damage.
      }
      report.damaged({
        message: `${name} failed its integrity check (${detail}); it is kept aside and its readable rows are saved at the next start`,
        why: { key: 'damaged', params: { file: name }, detail },
      })
    }
  }
  const step = () => {
    timer = undefined
    if (stopped) return
    try {
      if (db === undefined) {
        db = new DatabaseSync(file, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
        tables = checkedTables(db)
      } else {
        const table = tables.shift()
        if (table !== undefined) lines.push(...checkTable(db, table))
      }
      if (db !== undefined && tables.length === 0) return finish()
    } catch (e) {
      // A file SQLite cannot read at all is damage too; one that went away (the store closed) is nothing to say.
      if (db === undefined) return stop()
      lines.push(e instanceof Error ? e.message : String(e))
      return finish()
    }
    timer = setTimeout(step, STEP_MS)
    timer.unref()
  }
  timer = setTimeout(step, STEP_MS)
  timer.unref()
  return stop
}
