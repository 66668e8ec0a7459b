/**
 * The texts of an owner's item rows, unchecked: what a save into a list still on disk compares its new texts against
 * without reading the list into the state, either every row's text (lib/commands/item-list.ts keysOnDisk) or, once
 * the rows carry their texts' keys (text-keys.ts), only the rows whose key is a new text's. Every row a checked read
 * keeps (read-rows.ts) is JSON with a string `text`, given here as it is; a row the read would set aside may add a
 * text. It never checks, keeps or writes a row.
 */
import { LIMITS } from '../../state/model.ts'
import { isRecord } from '../../validate/state.ts'
import type { Connection } from './connection.ts'
import { COLUMNS, rowsOf } from './row-read.ts'
import { USER_OWNER } from './rows.ts'
import { textKeyOf } from './text-keys.ts'
import type { Said } from '../../state/lazy-list.ts'

/**
 * The `text` of each of `owner`'s rows that has one; undefined when the owner has more rows than its limit (a read
 * keeps the first of them only, so a text past them says nothing of the list). Parsed here rather than by SQLite's
 * JSON functions, which took twice as long over 10,000 rows.
 */
export function rowTexts(conn: Connection, owner: string): string[] | undefined {
  const rows = rowsOf(
    'memory_items',
    COLUMNS.data,
    conn.statement('SELECT data FROM memory_items WHERE profile_id = ?').all(owner),
  )
  if (rows.length > (owner === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems)) return undefined
  return rows.flatMap((r) => {
    const text = textOf(r.data)
    return text === undefined ? [] : [text]
  })
}

/**
 * Whether the text of one of `owner`'s rows (but those of the ids `except`), in the form `formOf` gives, is one of
 * `forms`: the rows whose key is one
 * of the forms' are read (a few, or none), each compared by its text, since two texts may share a key. Undefined
 * when the keys cannot tell: `indexed` false (the fill has not ended), or a row of the owner has no key (written by
 * other code: text-keys.ts).
 */
export function rowsSay(conn: Connection, owner: string, want: Said & { indexed: boolean }): boolean | undefined {
  if (!want.indexed) return undefined
  const unkeyed = conn.statement('SELECT 1 FROM memory_items WHERE profile_id = ? AND text_key IS NULL LIMIT 1')
  if (unkeyed.get(owner) !== undefined) return undefined
  const keys = [...want.forms].map(textKeyOf)
  // The ids from the index alone (it covers them), then each row by its primary key: asked for the data with the key
  // in the same WHERE, SQLite (with no statistics) walked every row of the profile through its primary key instead.
  const rows = rowsOf(
    'memory_items',
    COLUMNS.itemData,
    conn
      .statement(
        `SELECT id, data FROM memory_items WHERE (profile_id, id) IN (SELECT profile_id, id FROM memory_items
          WHERE profile_id = ?1 AND text_key IN (SELECT value FROM json_each(?2)))`,
      )
      .all(owner, JSON.stringify(keys)),
  )
  return rows.some((r) => {
    if (want.except?.has(r.id) === true) return false
    const text = textOf(r.data)
    return text !== undefined && want.forms.has(want.formOf(text))
  })
}

/** The `text` of a row's JSON, or undefined when it is not JSON or has no text (a read sets such a row aside). */
function textOf(data: string): string | undefined {
  try {
    const v: unknown = JSON.parse(data)
    return isRecord(v) && typeof v.text === 'string' ? v.text : undefined
  } catch {
    return undefined
  }
}
