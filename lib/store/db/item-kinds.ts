/**
 * What a memory item row says of itself outside its JSON: `kind` (pending, archived, pinned as bits) and `item_at`
 * (its time), with the index `memory_items_newest` on (profile_id, kind, item_at, pos), so that the core a render needs
 * (the pinned items, the newest memory until the budget is full) is read through the index instead of every row of a
 * profile, and the rows are counted by kind (item-counts.ts). It owns those columns' definition, the triggers that
 * keep them equal to the JSON whoever writes (this version's writes, an older version still running, a restore of an
 * older backup), and the background fill of the rows written before them; it never reads an item into the state
 * (read-rows.ts does).
 *
 * The fill runs in bounded steps, each its own transaction that records the last key it filled (meta `kindsAfter`),
 * so a kill loses at most the step under way and the next start resumes after it; the index is made and the rows
 * counted once every row is filled, and `kinds` and `counts` = 'done' in meta are written in the same transaction:
 * until then the reads use the JSON, as before (they are correct either way, only slower). A database whose fill an
 * earlier version ended (`kinds` done, no `counts`) goes to that last step at once.
 */
import type { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowsOf, type Row } from './row-read.ts'
import { KIND } from './kind-bits.ts'
import { COUNTS_DONE, recountItems } from './item-counts.ts'

/**
 * The kind of an item from its stored text, told as the tally always has: the store writes each item with
 * JSON.stringify, where a quote inside a text is always escaped, so `"pinned":true` can only be the item's own key.
 */
const kindOf = (data: string) =>
  `((instr(${data}, '"pending":true') > 0) * ${KIND.pending} + (instr(${data}, '"archived":true') > 0) * ${KIND.archived} + (instr(${data}, '"pinned":true') > 0) * ${KIND.pinned})`

/** The item's time as the render counts it (absent: 0); NULL for a row that is not JSON (read-rows sets it aside). */
const atOf = (data: string) => `(CASE WHEN json_valid(${data}) THEN coalesce(json_extract(${data}, '$.at'), 0) END)`

/**
 * The upsert of an item row that sets its columns itself (write.ts; parameters profile_id, id, pos, data, and the
 * text's key, text-keys.ts): the kinds' triggers then find them right and write nothing more. A row whose text
 * changes while its key stays loses the key to text-keys.ts's trigger: the writer sets it again after.
 */
export const UPSERT_ITEM = `INSERT INTO memory_items (profile_id, id, pos, data, kind, item_at, text_key)
  VALUES (?1, ?2, ?3, ?4, ${kindOf('?4')}, ${atOf('?4')}, ?5)
  ON CONFLICT DO UPDATE SET pos = excluded.pos, data = excluded.data, kind = excluded.kind, item_at = excluded.item_at,
    text_key = excluded.text_key`

/** The columns, for a new database's memory_items (schema.ts) and the migration that adds them. */
export const KIND_COLUMNS = ['kind INTEGER', 'item_at'] as const

/** Set a row's columns from its text, when they differ: after any insert, and after any change of its text. */
const keep = `
  WHEN NEW.kind IS NOT ${kindOf('NEW.data')} OR NEW.item_at IS NOT ${atOf('NEW.data')}
  BEGIN UPDATE memory_items SET kind = ${kindOf('NEW.data')}, item_at = ${atOf('NEW.data')}
    WHERE profile_id = NEW.profile_id AND id = NEW.id; END;`

/**
 * The triggers: the columns follow the text whoever writes it, so a restore or a salvage of rows without them, or a
 * process of the version before that writes before it notices the newer schema (then it stops writing), leaves them
 * right.
 */
export const KIND_TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS memory_items_kind_insert AFTER INSERT ON memory_items ${keep}
CREATE TRIGGER IF NOT EXISTS memory_items_kind_update AFTER UPDATE OF data ON memory_items ${keep}
`

/**
 * The index the core reads go through, made once every row is filled (see the module header): a profile's pinned
 * items by kind, and its memory newest first (by time, then position, as the render ranks it), so a render reads
 * the newest items until its budget is full and stops, whatever order an import left the positions in.
 */
export const KIND_INDEX =
  'CREATE INDEX IF NOT EXISTS memory_items_newest ON memory_items (profile_id, kind, item_at, pos)'

/**
 * The index of schema 4 before it (by position), dropped where the new one is made: no read goes through it any
 * more, and every write of an item would still pay for it.
 */
const OLD_INDEX = 'DROP INDEX IF EXISTS memory_items_kinds'

/** Meta keys: whether the columns are filled and indexed, and the last key the fill reached. */
const DONE = 'kinds'
const AFTER = 'kindsAfter'

/** Whether every row's columns are filled, the index made and the rows counted, so reads may use them. */
export function kindsReady(meta: (key: string) => unknown): boolean {
  return meta(DONE) === 'done' && meta(COUNTS_DONE) === 'done'
}

/** Mark a database whose rows are all filled already (a new one, made by schema.ts before it has a connection). */
export function markKindsReady(db: DatabaseSync): void {
  const set = db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  )
  for (const key of [DONE, COUNTS_DONE]) set.run(key, 'done')
}

/** What a fill needs of a connection: connection.ts's Connection (not imported: it imports schema.ts). */
export interface FillConnection {
  readonly sql: DatabaseSync
  meta(key: string): unknown
  setMeta(key: string, value: string): void
  /** Begin the write transaction, waiting for another process's (its busy timeout). */
  begin(): void
  /** Begin the write transaction without waiting; false when another process holds the lock. */
  tryBegin(): boolean
  commit(): void
  rollback(): void
}

/** Run `work` in the transaction `conn` has begun: committed when it returns, rolled back when it throws. */
export function committed<T>(conn: FillConnection, work: () => T): T {
  try {
    const out = work()
    conn.commit()
    return out
  } catch (e) {
    conn.rollback()
    throw e
  }
}

/** How a step of the fill ended: 'filled' when no row is left to fill and the index is still to make. */
export type FillStep = 'busy' | 'more' | 'filled' | 'done'

/**
 * One step of the fill, in its own transaction: the next `limit` rows after the last key filled get their columns.
 * 'busy': another connection holds the write lock (the step is tried again later). Resumes from meta after a kill.
 * Rows written after the fill began need none: the triggers set theirs.
 */
export function fillKindsStep(conn: FillConnection, limit: number): FillStep {
  const db = conn.sql
  // Done at an earlier start (every start but the one after the migration): no write lock taken to learn it.
  if (kindsReady((k) => conn.meta(k))) return 'done'
  // A batch of the store's own is open on this connection, or another process writes: tried again later.
  if (db.isTransaction || !conn.tryBegin()) return 'busy'
  return committed(conn, () => fillLocked(conn, limit))
}

function fillLocked(conn: FillConnection, limit: number): FillStep {
  if (kindsReady((k) => conn.meta(k))) return 'done'
  // Filled by an earlier version, which made its index and counted nothing: the finish is what is left.
  if (conn.meta(DONE) === 'done') return 'filled'
  return fillAfter(conn, AFTER, 'itemKey', limit, (keys, after) => {
    const last = keys.at(-1)!
    conn.sql
      .prepare(
        `UPDATE memory_items SET kind = ${kindOf('data')}, item_at = ${atOf('data')}
        WHERE (profile_id, id) > (?, ?) AND (profile_id, id) <= (?, ?)`,
      )
      .run(after[0], after[1], last.profile_id, last.id)
  })
}

/** The memory rows' columns a fill walking them in key order may read. */
type WalkedColumns = 'itemKey' | 'item'

/**
 * One step of a fill that walks the memory rows in key order: the next `limit` rows after the mark kept in meta under
 * `afterKey`, read by `columns`, handed to `write` with the mark they follow, then the mark moved past the last of
 * them; 'filled' when none is left. A kill between steps resumes from the mark.
 */
export function fillAfter<C extends WalkedColumns>(
  conn: FillConnection,
  afterKey: string,
  columns: C,
  limit: number,
  write: (rows: Row<C>[], after: [string, string]) => void,
): FillStep {
  const after = parseAfter(conn.meta(afterKey))
  const spec = COLUMNS[columns]
  const rows = rowsOf(
    'memory_items',
    spec,
    conn.sql
      .prepare(
        `SELECT ${Object.keys(spec).join(', ')} FROM memory_items WHERE (profile_id, id) > (?, ?)
          ORDER BY profile_id, id LIMIT ?`,
      )
      .all(after[0], after[1], limit),
  )
  const last = rows.at(-1)
  if (last === undefined) return 'filled'
  write(rows, after)
  conn.setMeta(afterKey, JSON.stringify([last.profile_id, last.id]))
  return 'more'
}

/**
 * The fill's last step, once every row is filled: the index made, the rows counted (item-counts.ts) and the database
 * marked done, in one transaction (a kill meanwhile leaves none of it, and the next start makes it again). Reads
 * every row once: the store runs it on its worker thread (store-jobs.ts), off the event loop.
 */
export function finishKinds(conn: FillConnection): void {
  // The worker's own connection: its busy timeout waits for the store's batch off the event loop.
  conn.begin()
  committed(conn, () => {
    if (kindsReady((k) => conn.meta(k))) return
    conn.sql.exec(`${OLD_INDEX}; ${KIND_INDEX}`)
    recountItems(conn.sql)
    conn.setMeta(DONE, 'done')
    conn.setMeta(COUNTS_DONE, 'done')
    conn.sql.prepare('DELETE FROM meta WHERE key = ?').run(AFTER)
  })
}

/** The last row key a fill reached, from meta (nothing filled yet: before every key). */
function parseAfter(value: unknown): [string, string] {
  if (typeof value !== 'string') return ['', '']
  try {
    const v: unknown = JSON.parse(value)
    if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string') return [v[0], v[1]]
  } catch {
    // Not ours: the fill starts again from the first key, which only costs time.
  }
  return ['', '']
}
