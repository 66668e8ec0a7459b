/**
 * The guard that keeps each command off the rows set aside (set-aside.ts): asked for every command before its batch
 * is written, so that only the command that would touch such a row is refused, and the rest of the batch is written.
 * It never writes; the write itself asks again, row by row, as its last line of defence.
 */
import { userItemsOf, type MemoryItem, type State } from '../../state/model.ts'
import { changedKeys, diffKeys } from '../../state/sessions.ts'
import { profileChanges } from './profile-changes.ts'
import { USER_OWNER } from './rows.ts'
import type { SetAside } from './set-aside.ts'

/**
 * Throw (StoreError `conflict`) when going from `prev` to `next` would write a row set aside. Free when no row is
 * set aside.
 */
export function guardChange(aside: SetAside, prev: State, next: State): void {
  if (aside.size === 0) return
  const items = (owner: string, before: readonly MemoryItem[] | undefined, after: readonly MemoryItem[]) => {
    if (before === after) return
    const had = new Set(before)
    for (const it of after) if (!had.has(it)) aside.guard('memory_items', `${owner}/${it.id}`)
  }
  const { changed, previous } = profileChanges(prev, next)
  changed.forEach((p, i) => {
    aside.guard('profiles', p.id)
    items(p.id, previous[i]?.memory.items, p.memory.items)
  })
  if (prev.user !== next.user) items(USER_OWNER, userItemsOf(prev), userItemsOf(next))
  if (prev.sessions !== next.sessions) {
    for (const key of changedKeys(prev.sessions, next.sessions) ?? diffKeys(prev.sessions, next.sessions)) {
      if (next.sessions.get(key) !== undefined) aside.guard('sessions', key)
    }
  }
  if (prev.memoryUndo !== next.memoryUndo) {
    for (const [id, entry] of Object.entries(next.memoryUndo ?? {}))
      if (prev.memoryUndo?.[id] !== entry) aside.guard('memory_undo', id)
  }
}
