/**
 * The store's node:sqlite (lib/store/db/sqlite.ts) whose databases record every statement they prepare or run, for
 * specs that assert what ran on the spec's own thread (`vi.mock` of that module reaches this thread only: a worker
 * thread loads the real one).
 */
import type * as Sqlite from 'node:sqlite'

/** What the store's sqlite module exports at run time. */
interface StoreSqlite {
  DatabaseSync: typeof Sqlite.DatabaseSync
}

/** `real` with a DatabaseSync that pushes each statement's text to `seen` before it runs. */
export function recordingSqlite(real: StoreSqlite, seen: string[]): StoreSqlite {
  class DatabaseSync extends real.DatabaseSync {
    override prepare(sql: string): Sqlite.StatementSync {
      seen.push(sql)
      return super.prepare(sql)
    }
    override exec(sql: string): void {
      seen.push(sql)
      super.exec(sql)
    }
  }
  return { ...real, DatabaseSync }
}
