/**
 * node:sqlite whose databases record every statement they prepare or run, for specs that assert what ran on the
 * spec's own thread (`vi.mock('node:sqlite', …)` reaches this thread only: a worker thread loads the real module).
 */
import type * as Sqlite from 'node:sqlite'

/** `real` with a DatabaseSync that pushes each statement's text to `seen` before it runs. */
export function recordingSqlite(real: typeof Sqlite, seen: string[]): typeof Sqlite {
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
