/**
 * The texts of an owner's item rows, unchecked: what a save into a list still on disk compares its new texts against
 * (lib/commands/item-list.ts keysOnDisk) without reading the list into the state. Every row a checked read keeps
 * (read-rows.ts) is JSON with a string `text`, given here as it is; a row the read would set aside may add a text.
 * It never checks, keeps or writes a row.
 */
import { LIMITS } from '../../state/model.ts'
import { isRecord } from '../../validate/state.ts'
import type { Connection } from './connection.ts'
import { COLUMNS, rowsOf } from './row-read.ts'
import { USER_OWNER } from './rows.ts'

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

/** The `text` of a row's JSON, or undefined when it is not JSON or has no text (a read sets such a row aside). */
function textOf(data: string): string | undefined {
  try {
    const v: unknown = JSON.parse(data)
    return isRecord(v) && typeof v.text === 'string' ? v.text : undefined
  } catch {
    return undefined
  }
}
