/**
 * Taking the day's backup after a write: when today has no backup yet, one is taken once the callers have their
 * answers (a turn of the event loop later). It takes tens to hundreds of milliseconds (see bench/backup.bench.ts), so
 * it runs once a day only. Only once the new backup is in place are the old ones pruned, so a backup that fails (a
 * full disk) costs none of them; the failure is reported (the store's Diagnostics and its log say the day has no
 * backup), never thrown, and tried again after RETRY_MS rather than at every write. The backup files themselves are
 * db/backups.ts's.
 */
import { dayOf, hasBackup, makeBackup, pruneBackups } from './db/backups.ts'
import type { Database } from './db/database.ts'
import type { Layout } from './db/layout.ts'

/** After a failed backup, the next write tries again only this much later: a full disk is not freed by a save. */
const RETRY_MS = 10 * 60_000

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
  /** A backup is being taken. */
  #backingUp = false
  /** When the last backup failed, so that the next write does not try again at once. */
  #failedAt = -Infinity

  constructor(options: DailyBackupOptions) {
    this.#options = options
  }

  /** After a write: take today's backup soon, unless it exists or is under way. */
  due(): void {
    const day = dayOf(Date.now())
    if (day === this.#backedUpDay || this.#backingUp || Date.now() - this.#failedAt < RETRY_MS) return
    if (hasBackup(this.#options.layout, day)) {
      this.#backedUpDay = day
      return
    }
    this.#backingUp = true
    setImmediate(() => {
      try {
        const db = this.#options.database()
        if (db !== undefined && db.readOnly === undefined) {
          makeBackup(this.#options.layout, day, (path) => db.vacuumInto(path))
          pruneBackups(this.#options.layout)
        }
        this.#backedUpDay = day
      } catch (e) {
        this.#failedAt = Date.now()
        this.#options.failed(day, e)
      } finally {
        this.#backingUp = false
      }
    })
  }
}
