/**
 * Freezing a new snapshot of the store's state, deeply, at the cost of what changed: what the previous snapshot
 * already froze is passed over by identity. Owns that walk only; it never copies or changes a value.
 */
import { isLazyList } from '../state/lazy-list.ts'
import { isSessions } from '../state/sessions.ts'
import { changedParts } from '../state/list-ends.ts'

/**
 * Freeze what is not frozen yet; unchanged subtrees of the previous snapshot already are, so this is O(change). The
 * conversation settings are an immutable map already (their settings are frozen as they go in, see sessions.ts), and
 * a lazy list freezes what it reads (lazy-list.ts): freezing it here would read it.
 *
 * `was` is what stood at the same place in the previous snapshot (frozen): an element that is the same object as the
 * one at its index there is passed over with one comparison. A save copies a list of 10,000 items to add one, and
 * asking each of the 9,999 others whether it is frozen cost a third of the save at 100,000 items.
 */
export function deepFreeze<T>(value: T, was?: unknown): T {
  if (value === was || typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  if (isLazyList(value) || isSessions(value)) return value
  Object.freeze(value)
  // A lazy list is never indexed: reading an element would read its rows.
  const prev =
    typeof was === 'object' && was !== null && !isLazyList(was) ? (was as Record<string, unknown>) : undefined
  if (Array.isArray(value)) {
    const old = Array.isArray(prev) ? (prev as unknown[]) : undefined
    // The entries both share outside the changed parts are frozen already; a list a save made by appending, editing
    // or removing is known to share them without comparing (list-ends.ts).
    const parts =
      old === undefined ? [{ b0: 0, b1: 0, a0: 0, a1: value.length }] : changedParts(old, value as unknown[])
    for (const { b0, b1, a0, a1 } of parts)
      for (let i = a0; i < a1; i++) {
        // The entry it replaced, if any (frozen: its unchanged parts are passed over).
        const was: unknown = b0 + i - a0 < b1 ? old?.[b0 + i - a0] : undefined
        const v: unknown = value[i]
        if (v !== was) deepFreeze(v, was)
      }
  } else for (const [k, v] of Object.entries(value)) deepFreeze(v, prev?.[k])
  return value
}
