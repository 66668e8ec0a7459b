/**
 * Recording the SQL every node:sqlite statement of this process runs (any connection, the store's own included), for
 * the specs that assert what a store does rather than how long it takes. The recording ends with the test.
 */
import { DatabaseSync, StatementSync } from 'node:sqlite'
import { afterEach } from 'vitest'

/** The SQL of each statement run from now on, in order (a statement prepared before this call shows as `?`). */
export function recordStatements(): string[] {
  const ran: string[] = []
  const sqlOf = new WeakMap<object, string>()
  const db = DatabaseSync.prototype as unknown as Record<string, (...a: unknown[]) => unknown>
  const st = StatementSync.prototype as unknown as Record<string, (...a: unknown[]) => unknown>
  const prepare = db.prepare!
  const exec = db.exec!
  db.prepare = function (this: unknown, sql: unknown, ...rest: unknown[]) {
    const s = prepare.call(this, sql, ...rest) as object
    sqlOf.set(s, String(sql))
    return s
  }
  db.exec = function (this: unknown, sql: unknown) {
    ran.push(String(sql))
    return exec.call(this, sql)
  }
  const runs = ['run', 'get', 'all', 'iterate'].map((k) => [k, st[k]!] as const)
  for (const [k, f] of runs) {
    st[k] = function (this: object, ...args: unknown[]) {
      ran.push(sqlOf.get(this) ?? '?')
      return f.apply(this, args)
    }
  }
  afterEach(() => {
    db.prepare = prepare
    db.exec = exec
    for (const [k, f] of runs) st[k] = f
  })
  return ran
}
