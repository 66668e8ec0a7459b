/**
 * Memory lists a command wrote and the store need not hold: a command can ask that the lists it changed be kept
 * after its commit as a restart keeps every list, on disk until a reader looks at them (lib/state/lazy-list.ts),
 * instead of as the arrays it made. It owns the mark and the swap; which lists the database reads back, and how, is
 * db/'s (read-rows.ts).
 *
 * Why: an own import writes thousands of items into each of up to 95 profiles, and each profile's last batch left its
 * whole list in memory as objects: about 300 MB more after 95 × 5,200 items, held until the next start, for lists no
 * one had looked at. Swapped at the commit of the batch that completes them, the lists change in the same snapshot
 * as the batch's own change, so whoever compares snapshots sees that one change and nothing else.
 */
import { isLazyList } from '../state/lazy-list.ts'
import { sameContents } from '../commands/transfer.ts'
import type { State } from '../state/model.ts'
import type { Database } from './db/database.ts'
import { storedValuesAt } from './stored-values.ts'

/**
 * Marks a command whose changed memory lists are kept on disk after its commit (never sent over HTTP: a symbol does
 * not survive JSON). Only the own import sets it, on the batch that completes a profile.
 */
export const LISTS_ON_DISK = Symbol('agent-profiles: the lists this command writes are kept on disk after it')

/** Whether `cmd` carries {@link LISTS_ON_DISK}. */
export function wantsListsOnDisk(cmd: unknown): boolean {
  return typeof cmd === 'object' && cmd !== null && LISTS_ON_DISK in cmd
}

/** The ids of the profiles whose memory list `next` holds as a new array, compared with `prev` (by identity). */
export function listsChanged(prev: State, next: State): string[] {
  const before = new Map(prev.profiles.map((p) => [p.id, p.memory.items]))
  return next.profiles
    .filter((p) => before.get(p.id) !== p.memory.items && !isLazyList(p.memory.items))
    .map((p) => p.id)
}

/**
 * `state` with the memory list of each profile of `ids` replaced by the list as the database `db` holds it,
 * read when a reader first looks; `state` itself when `ids` is empty. Called right after the commit that wrote
 * `state`, so the rows hold exactly the lists replaced. Each such profile keeps the contents an import compares
 * (transfer.ts `sameContents`), so the next batch of the import does not read its list back.
 */
export function withListsOnDisk(state: State, ids: ReadonlySet<string>, db: Pick<Database, 'itemsOnDisk'>): State {
  if (ids.size === 0) return state
  const profiles = state.profiles.map((p) => {
    if (!ids.has(p.id) || isLazyList(p.memory.items)) return p
    const kept = { ...p, memory: { ...p.memory, items: db.itemsOnDisk(p.id, Date.now(), storedValuesAt) } }
    sameContents(p, kept)
    return kept
  })
  return { ...state, profiles }
}
