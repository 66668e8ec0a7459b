/**
 * Taking the day's backup after a write: when today has no backup yet, one is taken once the callers have their
 * answers (a turn of the event loop later). It takes tens to hundreds of milliseconds (see bench/backup.bench.ts), so
 * it runs once a day only; a failure is logged, never thrown. The backup files themselves are db/backups.ts's.
 */
import { dayOf, hasBackup, makeBackup } from './db/backups.ts'
import type { Database } from './db/database.ts'
import type { Layout } from './db/layout.ts'
import { errorText } from '../shared/errors.ts'

/** What the daily backup needs of its store. */
export interface DailyBackupOptions {
  layout: Layout
  /** The database to copy when the backup runs; undefined when there is none, or the store is closing. */
  database(): Database | undefined
  warn(message: string): void
}

/** The daily backup of one store. */
export class DailyBackup {
  readonly #options: DailyBackupOptions
  /** The day whose backup is known to exist (checked once a day, not per write). */
  #backedUpDay: string | undefined
  /** A backup is being taken. */
  #backingUp = false

  constructor(options: DailyBackupOptions) {
    this.#options = options
  }

  /** After a write: take today's backup soon, unless it exists or is under way. */
  due(): void {
    const day = dayOf(Date.now())
    if (day === this.#backedUpDay || this.#backingUp) return
    if (hasBackup(this.#options.layout, day)) {
      this.#backedUpDay = day
      return
    }
    this.#backingUp = true
    setImmediate(() => {
      try {
        const db = this.#options.database()
        if (db !== undefined && db.readOnly === undefined)
          makeBackup(this.#options.layout, day, (path) => db.vacuumInto(path))
        this.#backedUpDay = day
      } catch (e) {
        this.#options.warn(`agent-profiles: the daily backup failed: ${errorText(e)}`)
      } finally {
        this.#backingUp = false
      }
    })
  }
}
