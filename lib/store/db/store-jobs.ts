/**
 * The store's work that may take hundreds of milliseconds and needs no state of the running store: the copy a backup
 * takes (`VACUUM INTO`), the creation of the database on a fresh home, the whole-file integrity check, the index of
 * the item columns and the checkpoint of what an own import wrote. Each runs on a connection of its own, so
 * the store's thread (store-thread.ts) hands it to a worker and its event loop keeps answering meanwhile. It never
 * touches the store's own connection, and never prunes or lists backups (backups.ts does).
 */
import { AvatarFiles } from './avatars.ts'
import { BUSY_TIMEOUT_MS, Connection } from './connection.ts'
import { layoutOf } from './layout.ts'
import { openDatabase } from './open.ts'
import { privateFile } from './private-files.ts'
import { checkFile, type CheckAnswer } from './quick-check.ts'
import { DatabaseSync } from './sqlite.ts'
import { finishKinds } from './item-kinds.ts'
import { finishTextKeys } from './text-keys.ts'
import { appendRows, type AppendAnswer, type AppendJob } from './append-rows.ts'

/**
 * A job: `copy` writes a consistent copy of what is committed in `file` to `target` (WAL included, compacted, the
 * user's alone); `create` makes the database `file` (and its directory) as the first save would, and closes it;
 * `check` runs `quick_check` on every real table of `file` and answers what it found (quick-check.ts); `kinds` makes the
 * index of the item columns once they are filled and counts the rows (item-kinds.ts `finishKinds`), which reads every
 * row; `textKeys` makes the index of the rows' text keys once they are filled (text-keys.ts `finishTextKeys`); `checkpoint`
 * syncs the WAL of `file` and copies what it holds into the database file (durable-later.ts); `append` writes one
 * batch of an own import's memory items from their bytes (append-rows.ts).
 */
export type StoreJob =
  | { kind: 'copy'; file: string; target: string }
  | { kind: 'create'; file: string }
  | { kind: 'check'; file: string }
  | { kind: 'kinds'; file: string }
  | { kind: 'textKeys'; file: string }
  | { kind: 'checkpoint'; file: string }
  | AppendJob

/** What a job answers: the check its findings, the others nothing. */
export type JobAnswer<J extends StoreJob> = J extends { kind: 'check' }
  ? CheckAnswer
  : J extends { kind: 'append' }
    ? AppendAnswer
    : undefined

/** Run `job` on this thread. Throws what SQLite or the file system threw; a copy that fails leaves `target` to its caller. */
export function runStoreJob<J extends StoreJob>(job: J): JobAnswer<J>
export function runStoreJob(job: StoreJob): CheckAnswer | AppendAnswer | undefined {
  if (job.kind === 'check') return checkFile(job.file, BUSY_TIMEOUT_MS)
  if (job.kind === 'append') return appendRows(job)
  if (job.kind === 'kinds' || job.kind === 'textKeys') {
    const db = new DatabaseSync(job.file, { timeout: BUSY_TIMEOUT_MS })
    try {
      ;(job.kind === 'kinds' ? finishKinds : finishTextKeys)(new Connection(job.file, db))
    } finally {
      db.close()
    }
    return undefined
  }
  if (job.kind === 'checkpoint') {
    checkpoint(job.file)
    return undefined
  }
  if (job.kind === 'create') {
    const layout = layoutOf(job.file)
    openDatabase({ layout, avatars: new AvatarFiles(layout.avatarDir), create: true }).close()
    return undefined
  }
  // Read-only: in WAL mode a reader takes a snapshot of what is committed and never blocks the store's writes.
  const db = new DatabaseSync(job.file, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
  try {
    db.prepare('VACUUM INTO ?').run(job.target)
  } finally {
    db.close()
  }
  privateFile(job.target)
  return undefined
}

/**
 * Sync `file`'s WAL and copy the pages it holds into the database file, then sync that: what SQLite's automatic
 * checkpoint does inside a commit, here on a connection of its own. PASSIVE: it takes no lock a writer or a reader
 * waits for, and copies what no reader still needs (the rest waits for the next one).
 */
function checkpoint(file: string): void {
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS })
  try {
    db.exec('PRAGMA synchronous = FULL')
    db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()
  } finally {
    db.close()
  }
}
