/**
 * The rows this version's rules refuse, one row at a time: a row with a field over a limit, an unknown value, a
 * dangling id or text that is not JSON is left out of the state and listed here with its table, key and reason, and
 * every other row still loads (a later version that raised a limit writes such rows; going back one version must not
 * cost the rest). It never writes: a row set aside stays in the database exactly as it is, and the write path asks
 * {@link SetAside.has} before it touches a row, so no write of this version deletes or overwrites one.
 */
import type { SetAsideRow } from '../../shared/meta.ts'
import type { SetAsideWhy } from '../../shared/reasons.ts'
import { StoreError } from '../../shared/errors.ts'

/** One row set aside: why (the log's English and the page's key), and whether it is in the state all the same. */
interface Entry {
  reason: string
  why: SetAsideWhy
  mended: boolean
}

/** Why a row that did not read is set aside: the refusal it met, as data, or text that is not JSON. */
function whyOf(e: StoreError | SyntaxError): SetAsideWhy {
  if (e instanceof SyntaxError) return { key: 'not-json' }
  const { code, field, limit, rule } = e
  return {
    key: 'refused',
    refusal: {
      code,
      ...(field === undefined ? {} : { field }),
      ...(limit === undefined ? {} : { limit }),
      ...(rule === undefined ? {} : { rule }),
    },
  }
}

/** Rows listed at most (a database full of rows of a newer version says so in the count, not in 100,000 lines). */
const SET_ASIDE_LISTED = 200

/** The rows set aside in one database, by table and key. */
export class SetAside {
  readonly #rows = new Map<string, Map<string, Entry>>()
  #count = 0

  /** Read one row with `read`; a refusal of this version's rules (or JSON that does not parse) sets it aside. */
  take<T>(table: string, key: string, read: () => T): T | undefined {
    try {
      const value = read()
      this.forget(table, key)
      return value
    } catch (e) {
      if (!(e instanceof StoreError) && !(e instanceof SyntaxError)) throw e
      this.refused(table, key, e)
      return undefined
    }
  }

  /** Set a row aside for the refusal `e` it met (or its text that is not JSON). */
  refused(table: string, key: string, e: StoreError | SyntaxError): void {
    this.add(table, key, e.message, whyOf(e))
  }

  /**
   * Set a row aside for `reason` (the log's words; `why` is the page's); `mended` when it is in the state all the same, with the broken part read in the one
   * way it can be (an active id naming nothing → the first profile): the next write of it is this version's own.
   */
  add(table: string, key: string, reason: string, why: SetAsideWhy, mended = false): void {
    let keys = this.#rows.get(table)
    if (keys === undefined) this.#rows.set(table, (keys = new Map()))
    if (!keys.has(key)) this.#count++
    keys.set(key, { reason, why, mended })
  }

  /** Set aside a row past the `limit` rows of its kind (`what`: the kind, as the log names it). */
  overLimit(table: string, key: string, limit: number, what: string): void {
    this.add(table, key, `over the limit of ${limit} ${what}`, { key: 'over-limit', params: { count: limit } })
  }

  /** Whether the row `key` of `table` is set aside. */
  has(table: string, key: string): boolean {
    return this.#rows.get(table)?.has(key) === true
  }

  /** The keys of `table` set aside (those starting with `prefix`, when given). */
  keys(table: string, prefix = ''): string[] {
    return [...(this.#rows.get(table)?.keys() ?? [])].filter((k) => k.startsWith(prefix))
  }

  /** The row was read again and loads now, or it is gone. */
  forget(table: string, key: string): void {
    if (this.#rows.get(table)?.delete(key) === true) this.#count--
  }

  /** Forget every row of `table` whose key starts with `prefix` (an owner read again as a whole). */
  forgetPrefix(table: string, prefix: string): void {
    for (const key of this.keys(table, prefix)) this.forget(table, key)
  }

  clear(): void {
    this.#rows.clear()
    this.#count = 0
  }

  get size(): number {
    return this.#count
  }

  /** The rows, at most SET_ASIDE_LISTED of them, in table order. */
  list(): SetAsideRow[] {
    const out: SetAsideRow[] = []
    for (const [table, keys] of this.#rows) {
      for (const [key, { reason, why, mended }] of keys) {
        if (out.length >= SET_ASIDE_LISTED) return out
        out.push(mended ? { table, key, why, reason, mended } : { table, key, why, reason })
      }
    }
    return out
  }

  /** Throw when a write would touch a row set aside: this version must never replace what it cannot read. */
  guard(table: string, key: string): void {
    const row = this.#rows.get(table)?.get(key)
    if (row === undefined || row.mended) return
    throw new StoreError(
      'conflict',
      `${table} row "${key}" is set aside (${row.reason}); this version of the plugin cannot change it`,
    )
  }
}
