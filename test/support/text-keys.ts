/**
 * The rows' text keys (lib/store/db/text-keys.ts) as a spec sees them in a store's file: a file made what schema 6
 * wrote (no keys, no trigger, no index), and what the file holds of the keys and their fill.
 */
import { createHash } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import { normalizeMemory } from '../../lib/shared/memory-text.ts'
import { textKeyOf } from '../../lib/store/db/text-keys.ts'

/** Make the file what schema 6 wrote: no text key column, trigger or index, no fill in meta (a user's file before). */
export function asSchema6(file: string): void {
  const db = new DatabaseSync(file)
  db.exec(`DROP TRIGGER memory_items_text_key_stale; DROP INDEX memory_items_text_key;
    ALTER TABLE memory_items DROP COLUMN text_key;
    DELETE FROM meta WHERE key IN ('textKeys', 'textKeysAfter'); UPDATE meta SET value = 6 WHERE key = 'schema'`)
  db.close()
}

/** The key a row's text should have (NULL when the row's data has no text). */
function expectedKey(data: string): number | null {
  try {
    const v = JSON.parse(data) as { text?: unknown }
    return typeof v.text === 'string' ? textKeyOf(normalizeMemory(v.text)) : null
  } catch {
    return null
  }
}

/**
 * What the file holds: a digest of every item row's key, position and text, how many rows there are, how many have a
 * key and how many of those are not their text's, the fill's meta, and whether the index is there.
 */
export function keysOf(file: string) {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const has = db.prepare("SELECT 1 FROM pragma_table_info('memory_items') WHERE name = 'text_key'").get()
    const rows = db
      .prepare(
        `SELECT profile_id, id, pos, data${has === undefined ? ', NULL AS text_key' : ', text_key'} FROM memory_items
          ORDER BY profile_id, id`,
      )
      .all() as { profile_id: string; id: string; pos: number; data: string; text_key: number | null }[]
    const meta = (k: string) =>
      (db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as { value?: unknown } | undefined)?.value
    const keyed = rows.filter((r) => r.text_key !== null)
    const digest = createHash('sha256')
      .update(JSON.stringify(rows.map(({ text_key: _k, ...row }) => row)))
      .digest('hex')
    return {
      rows: digest,
      count: rows.length,
      keyed: keyed.length,
      wrong: keyed.filter((r) => r.text_key !== (expectedKey(r.data) ?? -1)).length,
      done: meta('textKeys'),
      after: meta('textKeysAfter'),
      indexed: db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_items_text_key'").get() !== undefined,
    }
  } finally {
    db.close()
  }
}
