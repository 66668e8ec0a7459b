/**
 * What every command module shares: the clock and id source a command receives, the shape of its outcome, and the
 * small state edits they all make (find a profile, replace one, set a conversation's setting, pick a free name,
 * unpin conversations of removed profiles). Pure functions; it never dispatches a command (the dispatcher imports
 * the command modules, and they import only this kit and the provenance policy, so no command module depends on
 * another).
 */
import { LIMITS } from '../state/model.ts'
import type { MemoryItem, Profile, SessionSetting, Sessions, State } from '../state/model.ts'
import { put } from '../state/sessions.ts'
import { normalizedItem } from '../shared/memory-text.ts'
import type { Notice, NoticeKey, NoticeParams } from '../shared/notices.ts'
import { targetSchemaOf, type MemoryTarget } from '../shared/memory-target.ts'
import { bareRecord, id, invalid, isEmptySetting, parse, record } from '../validate/state.ts'
import { StoreError } from '../shared/errors.ts'

/** The clock and id source an operation may use. */
export interface OpContext {
  now: number
  /** A fresh random id with the given prefix. */
  newId: (prefix: string) => string
  /** False to leave memory writes out of the history (only the benchmark of its cost does). */
  recordHistory?: boolean
}

/** The outcome of one operation. `changed: false` means nothing needs writing. */
export interface OpResult {
  state: State
  notice: Notice
  extra?: Record<string, unknown>
  changed: boolean
}

/**
 * A notice: its key and the values its wording uses, never a sentence (the page words it in the user's language,
 * lib/client/copy). A key's values are typed by its entry in NOTICES, so a missing or misspelt one fails the build.
 */
export function notice<K extends NoticeKey>(
  key: K,
  ...params: [keyof NoticeParams<K>] extends [never] ? [] : [NoticeParams<K>]
): Notice {
  return params[0] === undefined ? { key } : { key, params: params[0] }
}

/** The profile with this id, or a `not-found` refusal naming `field`. */
export function findProfile(state: State, profileId: unknown, field: string): Profile {
  const wanted = id(profileId, field)
  const found = state.profiles.find((p) => p.id === wanted)
  if (found === undefined) throw new StoreError('not-found', `${field}: no profile with id "${wanted}"`, field)
  return found
}

/**
 * A memory target checked by the schema of the form its keys say (`{profileId}`, `{sessionId}` or `{user: true}`),
 * so a refusal names that form's field.
 */
export function targetOf(v: unknown): MemoryTarget {
  const t = record(v, 'target')
  const schema = targetSchemaOf(t)
  if (schema === undefined) throw invalid('target', 'must be {profileId}, {sessionId} or {user: true}')
  return parse(schema, t, 'target')
}

/** The state with one profile replaced (same id). */
export function withProfile(state: State, next: Profile): State {
  return { ...state, profiles: state.profiles.map((p) => (p.id === next.id ? next : p)) }
}

/**
 * The state with one conversation's setting replaced; an empty setting is deleted (otherwise the count of
 * customised conversations would include every conversation ever opened). Refuses a new entry past the limit.
 */
export function withSession(state: State, key: string, next: SessionSetting): State {
  const exists = state.sessions.has(key)
  if (isEmptySetting(next)) return exists ? { ...state, sessions: put(state.sessions, key, undefined) } : state
  if (!exists && state.sessions.size >= LIMITS.sessions) {
    throw invalid('sessions', `already holds ${LIMITS.sessions} conversation settings, the limit`, LIMITS.sessions)
  }
  return { ...state, sessions: put(state.sessions, key, next) }
}

/** The state with the user layer's items replaced; an emptied layer is left out, as a state loaded from disk has it. */
export function withUser(state: State, items: MemoryItem[]): State {
  const { user: _old, ...rest } = state
  return items.length > 0 ? { ...rest, user: { items } } : rest
}

/** Items of `extra` whose text `base` does not already hold, re-id'd where an id is taken. */
export function carry(base: readonly MemoryItem[], extra: readonly MemoryItem[], ctx: OpContext): MemoryItem[] {
  const texts = new Set(base.map((it) => normalizedItem(it)))
  const ids = new Set(base.map((it) => it.id))
  const out: MemoryItem[] = []
  for (const it of extra) {
    if (texts.has(normalizedItem(it))) continue
    texts.add(normalizedItem(it))
    const fresh = ids.has(it.id) ? { ...it, id: ctx.newId('m') } : it
    ids.add(fresh.id)
    out.push(fresh)
  }
  return out
}

/** `base`, or `base<sep>2`, `base<sep>3`… — the first not in `taken`, cut to fit `limit`. */
export function unique(base: string, taken: ReadonlySet<string>, limit: number, sep = ' '): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : `${sep}${n}`
    const candidate = base.slice(0, limit - suffix.length) + suffix
    if (!taken.has(candidate)) return candidate
  }
}

/**
 * Unpin every conversation pinned to a profile that is not in `keep`, and drop such profiles from every cast; returns
 * the new sessions, how many conversations were unpinned and how many casts lost a member.
 */
export function unbindMissing(
  sessions: Sessions,
  keep: ReadonlySet<string>,
): { sessions: Sessions; unbound: number; uncast: number } {
  let unbound = 0
  let uncast = 0
  let next = sessions
  for (const [key, s] of sessions) {
    const pinGone = s.profileId !== null && !keep.has(s.profileId)
    const cast = s.cast?.filter((id) => keep.has(id))
    const castGone = cast !== undefined && cast.length !== s.cast!.length
    if (!pinGone && !castGone) continue
    if (pinGone) unbound++
    if (castGone) uncast++
    const loose: SessionSetting = { ...s, profileId: pinGone ? null : s.profileId }
    if (castGone) {
      if (cast.length > 0) loose.cast = cast
      else delete loose.cast
    }
    next = put(next, key, isEmptySetting(loose) ? undefined : loose)
  }
  return { sessions: next, unbound, uncast }
}

/**
 * `state` with `profileId`'s undo copy replaced by `entry` (or dropped). An emptied map is left out, the form a
 * state loaded from disk has, so a reopened store equals the one that saved it.
 */
export function withUndo(state: State, profileId: string, entry?: { memory: Profile['memory']; at: number }): State {
  const undo = bareRecord(Object.entries(state.memoryUndo ?? {}).filter(([k]) => k !== profileId))
  if (entry !== undefined) undo[profileId] = entry
  const { memoryUndo: _old, ...rest } = state
  return Object.keys(undo).length > 0 ? { ...rest, memoryUndo: undo } : rest
}
