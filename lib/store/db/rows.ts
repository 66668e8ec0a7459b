/**
 * What the code that reads rows and the code that writes them share: the owner key of the user layer, the empty
 * state, the read of a row's JSON and of the fields of an item the search index reads (each row kind's columns and type
 * are in row-read.ts). It never runs a statement.
 *
 * Why rows: a batch writes the profiles, memory items and conversation settings it changed and nothing else, so a
 * commit costs the same with 100,000 conversations as with none. Every row carries the revision that wrote it
 * (`rev`), so another process reloads only rows newer than the revision it holds; removed conversations leave a
 * tombstone in `sessions_gone` for the same reason, and clearing all of them sets `sessionsReset` instead. A process
 * holding a revision older than `sessionsReset` reloads every conversation's settings, which is also what lets the
 * oldest tombstones go (see GONE_KEPT in write.ts).
 */
import type { MemoryItem, State } from '../../state/model.ts'
import { sessionsOf } from '../../state/sessions.ts'
import { isRecord } from '../../validate/core.ts'

/**
 * The owner key of the user layer's rows in memory_items: no profile id can start with `:`, and a database written
 * before the user layer has no such rows, so it opens with an empty user layer and loses nothing. meta `userRev`
 * is the revision that last wrote them, so another process reloads them only when they changed.
 */
export const USER_OWNER = ':user'

/** A state with nothing in it: what an empty database holds, the base of its first write. */
export const EMPTY: State = { version: 1, activeId: '', profiles: [], sessions: sessionsOf() }

/** A conversation without memory items, as the write of its settings compares them. */
export const NO_MEMORIES: readonly MemoryItem[] = Object.freeze([])

/** A row's JSON, or undefined when it is not JSON (such a row is set aside at load; the index leaves it out). */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** What the search index reads of a memory item: its id, its text, its search keys and when it was saved. */
export type IndexedItem = Pick<MemoryItem, 'id' | 'text' | 'keys' | 'at'>

/**
 * Whether a row's parsed JSON holds what the index reads of an item, each field of its kind. A row that does not is
 * left out of the index (its load sets it aside), so a `keys` of another kind never reaches the term builder.
 */
export function isIndexedItem(v: unknown): v is IndexedItem {
  return (
    isRecord(v) &&
    typeof v.id === 'string' &&
    typeof v.text === 'string' &&
    (v.keys === undefined || typeof v.keys === 'string') &&
    (v.at === undefined || typeof v.at === 'number')
  )
}

/** The items of a conversation's settings row (its parsed JSON) that hold what the index reads; none when it is not one. */
export function indexedMemories(setting: unknown): IndexedItem[] {
  return isRecord(setting) && Array.isArray(setting.memories) ? setting.memories.filter(isIndexedItem) : []
}
