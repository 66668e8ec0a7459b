/**
 * Taking the day's backup after a write: when today has no backup yet, one is taken once the callers have their
 * answers (a turn of the event loop later). Its copy (`VACUUM INTO`, tens to hundreds of milliseconds, growing with
 * the database: see bench/backup.bench.ts) runs on a worker thread with a connection of its own ({@link takeBackup}),
 * never on the store's connection, so that the event loop keeps answering pages and turns while it is written; it
 * copies what is committed, which includes the write that asked for it. Only once the new backup is in place are the
 * old ones pruned, so a backup that fails (a full disk) costs none of them; the failure is reported (the store's
 * Diagnostics and its log say the day has no backup), never thrown, and tried again after RETRY_MS rather than at
 * every write. The backup files themselves are db/backups.ts's. The store takes the copy a restore makes first with
 * the same {@link takeBackup}.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { dayOf, hasBackup, makeBackup, pruneBackups } from './db/backups.ts'
import type { Database } from './db/database.ts'
import type { Layout } from './db/layout.ts'
import { runInThread } from './db/store-thread.ts'

/** After a failed backup, the next write tries again only this much later: a full disk is not freed by a save. */
const RETRY_MS = 10 * 60_000

/**
 * Make backup `name` of the store's database as {@link makeBackup} does, its copy written on a worker thread with a
 * connection of its own (db/store-thread.ts), so that the event loop keeps answering while it is written. What it copies
 * is what is committed, the last write that asked for it included.
 */
export function takeBackup(layout: Layout, name: string): Promise<boolean> {
  return makeBackup(layout, name, (target) => runInThread({ kind: 'copy', file: layout.file, target }))
}

/** What the daily backup needs of its store. */
export interface DailyBackupOptions {
  layout: Layout
  /** The database to copy when the backup runs; undefined when there is none, or the store is closing. */
  database(): Database | undefined
  /** The backup of `day` could not be made (`error`: why); the backups before it are all still there. */
  failed(day: string, error: unknown): void
}

/** The daily backup of one store. */
export class DailyBackup {
  readonly #options: DailyBackupOptions
  /** The day whose backup is known to exist (checked once a day, not per write). */
  #backedUpDay: string | undefined
  /** The backup being taken, until it is in place or has failed. */
  #running: Promise<void> | undefined
  /** When the last backup failed, so that the next write does not try again at once. */
  #failedAt = -Infinity

  constructor(options: DailyBackupOptions) {
    this.#options = options
  }

  /** After a write: take today's backup soon, unless it exists or is under way. */
  due(): void {
    const day = dayOf(Date.now())
    if (day === this.#backedUpDay || this.#running !== undefined || Date.now() - this.#failedAt < RETRY_MS) return
    if (hasBackup(this.#options.layout, day)) {
      this.#backedUpDay = day
      return
    }
    this.#running = this.#take(day).finally(() => {
      this.#running = undefined
    })
  }

  /** Resolves once no backup is being taken (the store waits for it before it closes). */
  async idle(): Promise<void> {
    await this.#running
  }

  /** Take backup `day`, then prune; a failure is reported, never thrown. */
  async #take(day: string): Promise<void> {
    await nextTurn()
    try {
      const db = this.#options.database()
      if (db === undefined || db.readOnly !== undefined) return
      const { layout } = this.#options
      await takeBackup(layout, day)
      pruneBackups(layout)
      this.#backedUpDay = day
    } catch (e) {
      this.#failedAt = Date.now()
      this.#options.failed(day, e)
    }
  }
}
