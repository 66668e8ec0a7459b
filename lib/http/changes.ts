/**
 * What one saved change did, found by comparing the snapshot before it with the one after: which profiles were added
 * or changed (and whose memory), which were removed, whether the order or the default moved, which conversations'
 * settings changed. Owns only that comparison; who hears about it is the push channel's (http/events.ts).
 *
 * Why by identity: snapshots are frozen and a command replaces only what it touched, so an untouched profile or
 * setting is the very same object in both, and the comparison costs the profiles (at most 200) plus the settings that
 * changed, never a deep walk of anything.
 */
import type { State } from '../state/model.ts'
import { changedKeys, diffKeys, pinCounts } from '../state/sessions.ts'
import { undoTimes } from './wire.ts'
import type { Change } from '../shared/wire-state.ts'

/** Past this many changed conversations a change names none and says `reload` instead (an import, a prune). */
const SESSIONS_NAMED = 200

/**
 * The conversations whose settings differ between two snapshots, walking the map's lineage (O(changed keys));
 * undefined when more changed than a page should fetch one by one.
 */
function changedSessions(prev: State['sessions'], next: State['sessions']): string[] | undefined {
  if (prev === next) return []
  const keys = changedKeys(prev, next, SESSIONS_NAMED) ?? diffKeys(prev, next)
  return keys.size > SESSIONS_NAMED ? undefined : [...keys]
}

/** What changed from `prev` to `next`; undefined when the two show the browser the same data. */
export function diffStates(prev: State, next: State): Change | undefined {
  const before = new Map(prev.profiles.map((p) => [p.id, p]))
  const profiles: string[] = []
  const memory: string[] = []
  for (const p of next.profiles) {
    const old = before.get(p.id)
    if (old === p) continue
    profiles.push(p.id)
    if (old === undefined || old.memory !== p.memory) memory.push(p.id)
  }
  const after = new Set(next.profiles.map((p) => p.id))
  const removed = prev.profiles.filter((p) => !after.has(p.id)).map((p) => p.id)
  const moved =
    removed.length > 0 ||
    prev.profiles.length !== next.profiles.length ||
    next.profiles.some((p, i) => prev.profiles[i]?.id !== p.id)
  const sessions = changedSessions(prev.sessions, next.sessions) ?? []
  const undoChanged = prev.memoryUndo !== next.memoryUndo
  const change: Change = { profiles, memory, removed, sessions }
  if (prev.sessions !== next.sessions) {
    // The state's own view of the conversations (pins per profile, how many have settings) changed with them.
    change.pins = Object.fromEntries(pinCounts(next.sessions))
    change.conversations = next.sessions.size
  }
  if (moved) change.order = next.profiles.map((p) => p.id)
  if (prev.activeId !== next.activeId) change.activeId = next.activeId
  if (undoChanged) change.undo = undoTimes(next)
  if (prev.user !== next.user) change.user = next.user?.items.length ?? 0
  const empty =
    profiles.length === 0 &&
    removed.length === 0 &&
    prev.sessions === next.sessions &&
    !moved &&
    change.activeId === undefined &&
    !undoChanged &&
    prev.user === next.user
  return empty ? undefined : change
}
