/**
 * The background integrity check's thread: opens the database read-only on a connection of its own, runs
 * `quick_check` on every real table (quick-check.ts) and posts what it found, once. node:sqlite is synchronous, so on
 * the host's thread the check of a large table held the event loop for as long as it read; here it holds nothing the
 * host needs. Started and stopped by background-check.ts, its only user, which decides what a finding means; built to
 * `dist/check-worker.js` beside `dist/index.js` (scripts/build.mjs). It never writes to the database or the disk.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { checkTable, checkedTables } from './quick-check.ts'
import { DatabaseSync } from './sqlite.ts'

/** What the thread is given: the database file, and how long its reads wait for a writer's lock. */
export interface CheckJob {
  file: string
  busyTimeoutMs: number
}

/**
 * The thread's one answer: `gone` when the file could not be opened (the store closed, the file went away), else the
 * tables it checked and the lines `quick_check` (or SQLite, failing to read a page) reported.
 */
export type CheckAnswer = { kind: 'gone'; message: string } | { kind: 'done'; tables: string[]; lines: string[] }

/** Run the check of `job.file`. */
function run(job: CheckJob): CheckAnswer {
  let db: DatabaseSync
  try {
    db = new DatabaseSync(job.file, { readOnly: true, timeout: job.busyTimeoutMs })
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

parentPort?.postMessage(run(workerData as CheckJob))
