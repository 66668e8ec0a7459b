/**
 * Prepared statements of one database connection, each SQL text prepared once and reused: preparing costs more than
 * running most of the store's statements. Owns only the cache; it never runs a statement itself.
 */
import type { DatabaseSync, StatementSync } from './sqlite.ts'

/** The prepared statements of one connection, by their SQL text. */
export class Statements {
  readonly #db: DatabaseSync
  readonly #prepared = new Map<string, StatementSync>()

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  /** The statement of `sql`, prepared on first use. */
  get(sql: string): StatementSync {
    let s = this.#prepared.get(sql)
    if (s === undefined) {
      s = this.#db.prepare(sql)
      this.#prepared.set(sql, s)
    }
    return s
  }

  /** Forget every statement (after the tables they name were dropped and made anew). */
  clear(): void {
    this.#prepared.clear()
  }
}
