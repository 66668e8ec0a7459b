/**
 * Conversation settings as the store holds them: an immutable map (session id → setting) that knows, for a map made
 * from another by these functions, which keys changed in between, and how many conversations pin each profile.
 * Owns only that bookkeeping; what a setting may hold is lib/validate's, what a command does to it lib/commands'.
 *
 * Why a persistent map rather than a frozen record: a user's second year brings 100,000 conversations, and copying a
 * record of that size for every pin costs ~100 ms; an Immutable.js map shares all but the changed path (O(log n)).
 * Why the lineage: the store writes only the rows a batch changed, and the state reply carries pin counts; both are
 * found by walking from the new map back to the one before it instead of comparing every conversation.
 */
import { Map as ImmutableMap, isMap } from 'immutable'
import type { SessionSetting, Sessions } from './model.ts'

export type { Sessions } from './model.ts'

/**
 * The Immutable.js map a Sessions value is. Every one is made here as one, and Immutable's `Map` hands a map back as it
 * is (no copy); any other value of the interface would be copied into one.
 */
const asMap = (s: Sessions): ImmutableMap<string, SessionSetting> => ImmutableMap(s)

/** For a map made by `put`, the map it was made from and the key that changed. */
const lineage = new WeakMap<Sessions, { parent: Sessions; key: string }>()
/** Pins per profile id, per map already counted. */
const pinCache = new WeakMap<Sessions, ReadonlyMap<string, number>>()

/** A setting as the map holds it: frozen with its memories, so no reader can change a saved setting in place. */
function frozen(s: SessionSetting): SessionSetting {
  if (Object.isFrozen(s)) return s
  for (const m of s.memories) Object.freeze(m)
  Object.freeze(s.memories)
  return Object.freeze(s)
}

/** A map of these entries. */
export function sessionsOf(entries: Iterable<[string, SessionSetting]> = []): Sessions {
  const out: [string, SessionSetting][] = []
  for (const [key, s] of entries) out.push([key, frozen(s)])
  const map: Sessions = ImmutableMap(out)
  return map
}

/** Whether a value is a sessions map (for freezing, which must not descend into one). */
export function isSessions(value: unknown): value is Sessions {
  return isMap(value)
}

/** `sessions` with `key` set to `value` (deleted when undefined), remembering which key changed. */
export function put(sessions: Sessions, key: string, value: SessionSetting | undefined): Sessions {
  const map = asMap(sessions)
  const next: Sessions = value === undefined ? map.delete(key) : map.set(key, frozen(value))
  // Immutable.js hands out one shared empty map: a lineage recorded on it would link every emptied map to another
  // one's history (and, once a map made from it empties again, into a loop that `changedKeys` never leaves).
  if (next !== sessions && next.size > 0) lineage.set(next, { parent: sessions, key })
  return next
}

/**
 * The keys whose settings differ between `prev` and `next`, when `next` was made from `prev` by `put` (in at most
 * `budget` steps); undefined when it was not, and the caller must compare the maps themselves.
 */
export function changedKeys(prev: Sessions, next: Sessions, budget = Infinity): Set<string> | undefined {
  const keys = new Set<string>()
  for (let at = next; at !== prev; budget--) {
    const link = lineage.get(at)
    if (link === undefined || budget <= 0) return undefined
    keys.add(link.key)
    at = link.parent
  }
  return keys
}

/** The keys of two unrelated maps whose settings differ (O(size of both)). */
export function diffKeys(prev: Sessions, next: Sessions): Set<string> {
  const keys = new Set<string>()
  for (const [key, value] of next) if (prev.get(key) !== value) keys.add(key)
  for (const key of prev.keys()) if (!next.has(key)) keys.add(key)
  return keys
}

function countPins(sessions: Sessions): Map<string, number> {
  const counts = new Map<string, number>()
  for (const s of sessions.values())
    if (s.profileId !== null) counts.set(s.profileId, (counts.get(s.profileId) ?? 0) + 1)
  return counts
}

/**
 * How many conversations pin each profile. Counted once for a map with no counted ancestor, then carried from one map
 * to the next by its changed keys, so a pin costs O(1) here however many conversations there are.
 */
export function pinCounts(sessions: Sessions): ReadonlyMap<string, number> {
  const cached = pinCache.get(sessions)
  if (cached !== undefined) return cached
  const chain: { map: Sessions; parent: Sessions; key: string }[] = []
  let base: ReadonlyMap<string, number> | undefined
  for (let at = sessions; base === undefined;) {
    const link = lineage.get(at)
    if (link === undefined) break
    chain.push({ map: at, ...link })
    at = link.parent
    base = pinCache.get(at)
  }
  if (base === undefined) {
    const counts = countPins(sessions)
    pinCache.set(sessions, counts)
    return counts
  }
  let counts = base
  for (const { map, parent, key } of chain.reverse()) {
    const next = new Map(counts)
    const was = parent.get(key)?.profileId ?? null
    const now = map.get(key)?.profileId ?? null
    if (was !== null) next.set(was, next.get(was)! - 1)
    if (now !== null) next.set(now, (next.get(now) ?? 0) + 1)
    if (was !== null && next.get(was) === 0) next.delete(was)
    pinCache.set(map, next)
    counts = next
  }
  return counts
}
