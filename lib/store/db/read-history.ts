/**
 * Reading the memory history lists' rows: which lists there are, in the order the state keeps them, and one list's
 * entries (all, some by id, their sizes, its newest entry's id), each entry checked alone by this version's rules and
 * set aside when it breaks them. read-rows.ts decides which lists are read and when; this never writes a row.
 */
import { HISTORY_LIMITS, type MemoryWrite } from '../../state/model.ts'
import { memoryWrite, sessionId } from '../../validate/state.ts'
import type { Connection } from './connection.ts'
import type { SetAside } from './set-aside.ts'
import { COLUMNS, rowOf, rowsOf, rowsSetAside } from './row-read.ts'
import type { StoredValues } from './stored-values.ts'
import type { Sized } from '../../state/lazy-list.ts'

/** The checked reads of one database's history rows. */
export class HistoryRows {
  readonly #conn: Connection
  readonly #aside: SetAside

  constructor(conn: Connection, aside: SetAside) {
    this.#conn = conn
    this.#aside = aside
  }

  /**
   * The keys of the memory history lists the rows hold, in the order the state keeps them: least recently written
   * first. Read from the revision index alone (its entries carry the list's key); lists last written by the same
   * batch are ordered by their rows' positions, as the batch wrote them.
   */
  keys(): string[] {
    const lists = rowsOf(
      'memory_history',
      COLUMNS.listRev,
      this.#conn
        .statement(
          'SELECT list, max(rev) AS rev FROM memory_history INDEXED BY memory_history_by_rev GROUP BY list ORDER BY 2',
        )
        .all(),
    )
    const last = this.#conn.statement('SELECT max(pos) AS pos FROM memory_history WHERE list = ? AND rev = ?')
    const tied = (i: number) => lists[i - 1]?.rev === lists[i]!.rev || lists[i + 1]?.rev === lists[i]!.rev
    const pos = new Map<string, number>()
    lists.forEach((l, i) => {
      if (tied(i)) pos.set(l.list, rowOf('memory_history', COLUMNS.pos, last.get(l.list, l.rev)).pos)
    })
    return lists
      .map((l, i) => ({ ...l, i }))
      .sort((a, b) => a.rev - b.rev || (pos.get(a.list) ?? a.i) - (pos.get(b.list) ?? b.i))
      .map((l) => l.list)
  }

  /**
   * The id of a history list's newest entry, from its row's key alone; not told when the list holds more rows than
   * its limit (the read keeps the oldest of them) or when that row was set aside.
   */
  lastEntryId(key: string): { found: boolean; id?: string } {
    const count = this.#conn.statement('SELECT count(*) AS n FROM memory_history WHERE list = ?').get(key)
    if (rowOf('memory_history', COLUMNS.count, count).n > HISTORY_LIMITS.entries) return { found: false }
    const row = this.#conn.statement('SELECT id FROM memory_history WHERE list = ? ORDER BY pos DESC LIMIT 1').get(key)
    if (row === undefined) return { found: true }
    const last = rowOf('memory_history', COLUMNS.key, row)
    return this.#aside.has('memory_history', `${key}/${last.id}`) ? { found: false } : { found: true, id: last.id }
  }

  /**
   * Each entry's id and size (characters of its JSON as written: history.ts sizes an entry so), oldest first, from the
   * rows without reading their data; undefined when a read of the list would not give every row (more rows than its
   * limit, a row set aside).
   */
  entrySizes(key: string): Sized[] | undefined {
    const rows = rowsOf(
      'memory_history',
      COLUMNS.entrySize,
      this.#conn.statement('SELECT id, length(data) AS size FROM memory_history WHERE list = ? ORDER BY pos').all(key),
    )
    const whole =
      rows.length <= HISTORY_LIMITS.entries && !rows.some((r) => this.#aside.has('memory_history', `${key}/${r.id}`))
    return whole ? rows : undefined
  }

  /** One history list's entries (all, or those of `ids`), oldest first, each checked alone. */
  list(key: string, d: StoredValues, ids?: readonly string[]): MemoryWrite[] {
    if (ids === undefined) this.#aside.forgetPrefix('memory_history', `${key}/`)
    const list: MemoryWrite[] = []
    const sql = 'SELECT id, data FROM memory_history WHERE list = ?'
    for (const row of rowsSetAside(
      'memory_history',
      COLUMNS.itemData,
      ids === undefined
        ? this.#conn.statement(`${sql} ORDER BY pos`).all(key)
        : this.#conn
            .statement(`${sql} AND id IN (SELECT value FROM json_each(?)) ORDER BY pos`)
            .all(key, JSON.stringify(ids)),
      this.#aside,
      (r) => `${key}/${String(r.id)}`,
    )) {
      const at = `${key}/${row.id}`
      if (list.length >= HISTORY_LIMITS.entries) {
        this.#aside.overLimit('memory_history', at, HISTORY_LIMITS.entries, 'entries')
        continue
      }
      const entry = this.#aside.take('memory_history', at, () => {
        const f = `memory_history.${at}`
        if (key.startsWith('s:')) sessionId(key.slice(2), f)
        return d.write(memoryWrite(JSON.parse(row.data), f), f)
      })
      if (entry !== undefined) list.push(entry)
    }
    return list
  }
}
