/**
 * What one saved change did, found by comparing the snapshot before it with the one after: which profiles were added
 * or changed (and whose memory), which were removed, whether the order or the default moved, which conversations'
 * settings changed. Owns only that comparison; who hears about it is the push channel's (http/events.ts).
 *
 * Why by identity: snapshots are frozen and a command replaces only what it touched, so an untouched profile or
 * setting is the very same object in both, and the comparison costs the profiles (at most 200) plus the settings that
 * changed, never a deep walk of anything.
 */
import type { State } from '../shared/model.ts'
import { undoTimes } from './wire.ts'
import type { Change } from '../shared/contract.ts'

/** The conversations whose settings differ between two snapshots: only the keys of a replaced map are compared. */
export function changedSessions(prev: State['sessions'], next: State['sessions']): string[] {
  if (prev === next) return []
  const out: string[] = []
  for (const [id, setting] of Object.entries(next)) if (prev[id] !== setting) out.push(id)
  for (const id of Object.keys(prev)) if (!(id in next)) out.push(id)
  return out
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
  const moved = removed.length > 0 || prev.profiles.length !== next.profiles.length
    || next.profiles.some((p, i) => prev.profiles[i]?.id !== p.id)
  const sessions = changedSessions(prev.sessions, next.sessions)
  const undoChanged = prev.memoryUndo !== next.memoryUndo
  const change: Change = { profiles, memory, removed, sessions }
  if (moved) change.order = next.profiles.map((p) => p.id)
  if (prev.activeId !== next.activeId) change.activeId = next.activeId
  if (undoChanged) change.undo = undoTimes(next)
  const empty = profiles.length === 0 && removed.length === 0 && sessions.length === 0 && !moved
    && change.activeId === undefined && !undoChanged
  return empty ? undefined : change
}
