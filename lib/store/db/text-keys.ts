/**
 * What a memory item row says of its text outside its JSON: `text_key`, a 48-bit number made from the text's compared
 * form (lib/shared/memory-text.ts `normalizeMemory`), with the index `memory_items_text_key` on (profile_id, text_key),
 * so that a save's duplicate check in a list still on disk looks up the rows whose key is the new text's (row-texts.ts
 * `rowsSay`) instead of reading and normalising every row of the profile. A key is a hash: two texts may share one, so
 * a row found by key is compared by its text all the same. It owns the column's definition, the trigger that empties a
 * key its text no longer has, the key of a text, and the background fill of the rows written before the column; it
 * never reads an item into the state.
 *
 * The compared form is this code's rule, which SQL cannot compute: the store's writes (write.ts) set each row's key
 * beside its text. A row written by other code (a process of the version before, a restore of an older backup) has
 * no key (NULL), or keeps a key its text no longer has, which the trigger empties; so a NULL key means "not known",
 * and a profile with one is checked by reading its rows' texts, as before.
 *
 * The fill runs in bounded steps, each its own transaction that records the last key it filled (meta
 * `textKeysAfter`), so a kill loses at most the step under way and the next start resumes after it; once every row is
 * filled the index is made and `textKeys` = 'done' written in meta in the same transaction, on the store's worker
 * thread (it reads every row). Until then the duplicate check reads the rows' texts, as before: correct either way.
 * Rows other code wrote without a key after that are found at the next start (one search of the index per owner) and
 * given theirs by the same job, a few a step.
 */
import { hash } from 'node:crypto'
import { normalizeMemory } from '../../shared/memory-text.ts'
import { isRecord } from '../../validate/state.ts'
import type { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowsOf } from './row-read.ts'
import { committed, fillAfter, type FillConnection, type FillStep } from './item-kinds.ts'

/** The column, for a new database's memory_items (schema.ts) and the migration that adds it. */
export const TEXT_KEY_COLUMN = 'text_key INTEGER'

/** The key of a row whose data has no text (not JSON, or no string `text`): the read sets such a row aside. */
const NO_TEXT = -1

/** The key of a compared form: the first 48 bits of its SHA-1, a number JavaScript and SQLite hold exactly. */
export function textKeyOf(form: string): number {
  return Number.parseInt(hash('sha1', form, 'hex').slice(0, 12), 16)
}

/** The key of a row's stored JSON: its text's ({@link textKeyOf} of its compared form), or {@link NO_TEXT}. */
function dataKeyOf(data: string): number {
  let v: unknown
  try {
    v = JSON.parse(data)
  } catch {
    return NO_TEXT
  }
  return isRecord(v) && typeof v.text === 'string' ? textKeyOf(normalizeMemory(v.text)) : NO_TEXT
}

/**
 * The trigger: a row whose text changes while its key does not (code that writes the text alone: a process of the
 * version before, or a hand's edit) loses its key, which would otherwise say a text the row no longer has. The store's
 * own writes set the key again after the text (write.ts), in a statement that changes the key alone.
 */
export const TEXT_KEY_TRIGGER = `
CREATE TRIGGER IF NOT EXISTS memory_items_text_key_stale AFTER UPDATE OF data ON memory_items
  WHEN NEW.data IS NOT OLD.data AND NEW.text_key IS OLD.text_key AND NEW.text_key IS NOT NULL
  BEGIN UPDATE memory_items SET text_key = NULL WHERE profile_id = NEW.profile_id AND id = NEW.id; END;
`

/** The index the duplicate check looks up: a profile's rows by key (a NULL key first, found in one step). */
export const TEXT_KEY_INDEX = 'CREATE INDEX IF NOT EXISTS memory_items_text_key ON memory_items (profile_id, text_key)'

/** The statement that sets one row's key alone (parameters: key, profile_id, id): no trigger on the text runs. */
export const SET_TEXT_KEY = 'UPDATE memory_items SET text_key = ? WHERE profile_id = ? AND id = ?'

/** Meta keys: whether every row's key is filled and indexed, and the last row key the fill reached. */
const DONE = 'textKeys'
const AFTER = 'textKeysAfter'

/** Whether every row written before the column has its key and the index is made, so the look-up may be used. */
export function textKeysReady(meta: (key: string) => unknown): boolean {
  return meta(DONE) === 'done'
}

/** Mark a new database, whose rows all get their keys from the store's writes. */
export function markTextKeysReady(db: DatabaseSync): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
    DONE,
    'done',
  )
}

/**
 * The first owner with a row that has no key, once the fill has ended (a row other code wrote since: see the module
 * header); undefined when there is none. One search of the index per owner, none of the rows.
 */
function unkeyedOwner(conn: FillConnection): string | undefined {
  const next = conn.sql.prepare('SELECT profile_id FROM memory_items WHERE profile_id > ? ORDER BY profile_id LIMIT 1')
  const unkeyed = conn.sql.prepare('SELECT 1 FROM memory_items WHERE profile_id = ? AND text_key IS NULL LIMIT 1')
  for (let row = next.get(''); row !== undefined; row = next.get(row.profile_id)) {
    if (typeof row.profile_id !== 'string') return undefined
    if (unkeyed.get(row.profile_id) !== undefined) return row.profile_id
  }
  return undefined
}

/**
 * Whether every row has its key and the index is made: the fill ended, and no row was written without a key since
 * (such rows send their profile's duplicate check back to the texts until a fill gives them their keys).
 */
export function textKeysFilled(conn: FillConnection): boolean {
  return textKeysReady((k) => conn.meta(k)) && unkeyedOwner(conn) === undefined
}

/**
 * One step of the fill, in its own transaction: the next `limit` rows after the last one filled get their keys, or,
 * once the fill has ended, the next `limit` rows without a key of one owner. 'busy': another connection holds the
 * write lock (tried again later). Resumes from meta after a kill. Rows written after the fill began have their keys
 * from the write; filled again here, they get the same.
 */
export function fillTextKeysStep(conn: FillConnection, limit: number): FillStep {
  if (textKeysFilled(conn)) return 'done'
  if (conn.sql.isTransaction || !conn.tryBegin()) return 'busy'
  return committed(conn, () =>
    textKeysReady((k) => conn.meta(k)) ? fillUnkeyed(conn, limit) : fillLocked(conn, limit),
  )
}

/** Keys for up to `limit` rows without one, of the first owner that has such rows ('done' when none is left). */
function fillUnkeyed(conn: FillConnection, limit: number): FillStep {
  const owner = unkeyedOwner(conn)
  if (owner === undefined) return 'done'
  const rows = rowsOf(
    'memory_items',
    COLUMNS.itemData,
    conn.sql
      .prepare('SELECT id, data FROM memory_items WHERE profile_id = ? AND text_key IS NULL LIMIT ?')
      .all(owner, limit),
  )
  const set = conn.sql.prepare(SET_TEXT_KEY)
  for (const r of rows) set.run(dataKeyOf(r.data), owner, r.id)
  return 'more'
}

function fillLocked(conn: FillConnection, limit: number): FillStep {
  return fillAfter(conn, AFTER, 'item', limit, (rows) => {
    const set = conn.sql.prepare(SET_TEXT_KEY)
    for (const r of rows) set.run(dataKeyOf(r.data), r.profile_id, r.id)
  })
}

/**
 * The fill's last step, once every row has its key: the index made and the database marked done, in one transaction
 * (a kill meanwhile leaves none of it, and the next start makes it again). Reads every row once: the store runs it on
 * its worker thread (store-jobs.ts), off the event loop.
 */
export function finishTextKeys(conn: FillConnection): void {
  conn.begin()
  committed(conn, () => {
    if (textKeysReady((k) => conn.meta(k))) return
    conn.sql.exec(TEXT_KEY_INDEX)
    conn.setMeta(DONE, 'done')
    conn.sql.prepare('DELETE FROM meta WHERE key = ?').run(AFTER)
  })
}
