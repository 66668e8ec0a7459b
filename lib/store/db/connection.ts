/**
 * One open SQLite connection to the database: its prepared statements, its `meta` values, its revision, whether
 * another connection committed, and its write transaction. It never knows what a row means (load.ts, reload.ts and
 * write.ts do) and never decides whether the file may be opened (open.ts does).
 */
import type { DatabaseSync, StatementSync } from './sqlite.ts'
import { Statements } from './statements.ts'
import { COLUMNS, rowOf } from './row-read.ts'
import { columnsOf } from './schema.ts'

/** How long a commit waits for another process's transaction before it fails (they take milliseconds). */
export const BUSY_TIMEOUT_MS = 10_000

/** SQLite's result code of an error of node:sqlite, when it carries one. */
export function sqliteCode(e: unknown): number | undefined {
  const code = (e as { errcode?: unknown }).errcode
  return typeof code === 'number' ? code & 0xff : undefined
}

/** Another connection holds the lock this one asked for. */
const SQLITE_BUSY = 5

/** One connection, with the data version and the transaction it last saw. */
export class Connection {
  /** The database file. */
  readonly path: string
  /** The connection itself, for the few statements that are not prepared once (schema, attach, index upkeep). */
  readonly sql: DatabaseSync
  readonly #statements: Statements
  #dataVersion: number
  #inTransaction = false
  #closed = false
  /** The automatic checkpoint's pages to put back after a `later` transaction; undefined outside one. */
  #relaxed: number | undefined

  constructor(path: string, sql: DatabaseSync) {
    this.path = path
    this.sql = sql
    this.#statements = new Statements(sql)
    this.#dataVersion = this.pragma('data_version')
  }

  /** A numeric pragma's value. */
  pragma(name: string): number {
    return Number(Object.values(this.sql.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0)
  }

  /** The statement for `sql`, prepared once per connection. */
  statement(sql: string): StatementSync {
    return this.#statements.get(sql)
  }

  /** Whether `table` has `column` (a database opened read-only may predate it). */
  hasColumn(table: string, column: string): boolean {
    return columnsOf(this.sql, table).includes(column)
  }

  /** A value of `meta`. */
  meta(key: string): unknown {
    const row = this.statement('SELECT value FROM meta WHERE key = ?').get(key)
    return row === undefined ? undefined : rowOf('meta', COLUMNS.meta, row).value
  }

  /** Set a value of `meta`. */
  setMeta(key: string, value: string | number): void {
    this.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, value)
  }

  /** The revision the database holds now (0: nothing was ever saved). */
  revision(): number {
    return Number(this.meta('revision') ?? 0)
  }

  /** Whether nothing was ever saved in this database (no revision, no profile, no turn). */
  isEmpty(): boolean {
    const count = (table: string) =>
      rowOf(table, COLUMNS.count, this.statement(`SELECT count(*) AS n FROM ${table}`).get()).n
    return this.revision() === 0 && count('profiles') === 0 && count('turns') === 0
  }

  /** Whether another connection committed since the last call (or since opening). About a microsecond. */
  changed(): boolean {
    const now = rowOf('data_version', COLUMNS.dataVersion, this.statement('PRAGMA data_version').get()).data_version
    if (now === this.#dataVersion) return false
    this.#dataVersion = now
    return true
  }

  /** Start a write transaction, waiting (busy timeout) for another process's to end: only at open, for a migration. */
  begin(): void {
    this.sql.exec('BEGIN IMMEDIATE')
    this.#inTransaction = true
  }

  /**
   * Start the write transaction of a batch if no other process holds the write lock; false when one does. It never
   * waits: node:sqlite's busy timeout waits synchronously, which would stop this whole dsh process (its pages, its
   * turns) for as long as the other process writes, so the store waits between tries on the event loop instead.
   *
   * `later`: a batch of an own import alone, committed without waiting for the disk on this thread (a sync here held
   * the event loop 5–95 ms per batch on a busy disk). The commit hands the WAL's new pages to the system and returns:
   * synchronous OFF, so not even the WAL's header is synced here when the WAL starts over (NORMAL did that: 22 syncs
   * on this thread in one import of 95,000 items, seen with strace), and no automatic checkpoint, the step that
   * copies pages into the database file and syncs it. A killed process loses nothing (the system holds the write); a
   * power cut before the import's own sync loses this batch and nothing else, since SQLite's recovery keeps the WAL's
   * frames only up to the last whole commit whose checksums hold, and no page reaches the database file but through
   * a checkpoint that syncs the WAL first. The import syncs the WAL off the event loop, and checkpoints it on a worker
   * thread, before it writes the next batch (lib/store/db/durable-later.ts). SQLite takes the setting only outside a
   * transaction, so it is set here and put back as soon as the transaction ends.
   */
  tryBegin(later = false): boolean {
    this.sql.exec('PRAGMA busy_timeout = 0')
    if (later) this.#relax()
    try {
      this.begin()
      return true
    } catch (e) {
      this.#restore()
      if (sqliteCode(e) === SQLITE_BUSY) return false
      throw e
    } finally {
      this.sql.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    }
  }

  /** Commit the open transaction. */
  commit(): void {
    this.sql.exec('COMMIT')
    this.#inTransaction = false
    this.#restore()
  }

  /** Undo the open transaction, if any; never throws (a failed rollback leaves SQLite to roll back on close). */
  rollback(): void {
    if (!this.#inTransaction) return
    this.#inTransaction = false
    try {
      this.sql.exec('ROLLBACK')
    } catch {
      // SQLite rolls back by itself after some errors; there is nothing left to undo.
    }
    this.#restore()
  }

  #relax(): void {
    this.#relaxed = this.pragma('wal_autocheckpoint')
    this.sql.exec('PRAGMA synchronous = OFF; PRAGMA wal_autocheckpoint = 0')
  }

  /** Back to a commit that is durable when it returns; never throws (the next `later` batch sets it again anyway). */
  #restore(): void {
    if (this.#relaxed === undefined) return
    try {
      this.sql.exec(`PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = ${this.#relaxed}`)
      this.#relaxed = undefined
    } catch {
      // Still inside a transaction SQLite did not end: the rollback that follows puts it back.
    }
  }

  /** Whether {@link close} ran: every statement prepared on it is finalized, and a read must open the file anew. */
  get closed(): boolean {
    return this.#closed
  }

  /** Close the connection, rolling back what is open. */
  close(): void {
    this.rollback()
    this.#closed = true
    this.sql.close()
  }
}
