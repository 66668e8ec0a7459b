/**
 * Recording the SQL every node:sqlite statement of this process runs (any connection, the store's own included), for
 * the specs that assert what a store does rather than how long it takes. The recording ends with the test.
 */
import { DatabaseSync, StatementSync } from 'node:sqlite'
import { afterEach, vi } from 'vitest'

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

/**
 * Count the rows of memory items whose text comes back from now on: through `all`, `get`, or a statement stepped with
 * `iterate` (a row counts when its reader takes it: a reader that stops early has not read the rest). `stop` ends the
 * spies and answers the count.
 */
function countItemRows(): () => number {
  let rows = 0
  const proto = StatementSync.prototype as unknown as Record<'all' | 'get' | 'iterate', (...a: unknown[]) => unknown>
  const { all, get, iterate } = proto
  const counted = (sql: string, out: unknown[]) => {
    if (/FROM memory_items\b/.test(sql))
      rows += out.filter((r) => r !== null && typeof r === 'object' && 'data' in r).length
  }
  vi.spyOn(proto, 'all').mockImplementation(function (this: StatementSync, ...a: unknown[]) {
    const out = all.apply(this, a) as unknown[]
    counted(this.sourceSQL, out)
    return out
  } as never)
  vi.spyOn(proto, 'get').mockImplementation(function (this: StatementSync, ...a: unknown[]) {
    const out = get.apply(this, a)
    counted(this.sourceSQL, out === undefined ? [] : [out])
    return out
  } as never)
  vi.spyOn(proto, 'iterate').mockImplementation(function (this: StatementSync, ...a: unknown[]) {
    const sql = this.sourceSQL
    const stepped = iterate.apply(this, a) as Iterable<unknown>
    return (function* () {
      for (const r of stepped) {
        counted(sql, [r])
        yield r
      }
    })()
  } as never)
  return () => {
    vi.restoreAllMocks()
    return rows
  }
}

/** What `run` answers, and the rows of memory items whose text came back while it ran. The spies end with the call. */
export function itemRowsDuring<T>(run: () => T): { value: T; rows: number } {
  const stop = countItemRows()
  try {
    const value = run()
    return { value, rows: stop() }
  } finally {
    stop()
  }
}

/** As {@link itemRowsDuring}, for work that ends when its promise settles (a command through the store's queue). */
export async function itemRowsWhile<T>(run: () => Promise<T>): Promise<{ value: T; rows: number }> {
  const stop = countItemRows()
  try {
    const value = await run()
    return { value, rows: stop() }
  } finally {
    stop()
  }
}
