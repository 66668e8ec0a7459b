/**
 * `sync.apply`: what a sync pulled from the repository, applied to the state as one command (atomic, serialized
 * with every other write, durable before anyone sees it). It carries only what changed — per profile its fields, the
 * items put and removed, the order when it moved, the history entries added and dropped — so its cost follows the
 * change, never the size of the memory. Items the user saved while the pull was on its way stay (they are not in the
 * delta, so they are neither removed nor reordered away); the next sync sends them. Host-only: the page never sends it.
 */
import {
  HISTORY_LIMITS,
  LIMITS,
  USER_HISTORY,
  type MemoryItem,
  type MemoryWrite,
  type Profile,
  type State,
} from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { invalid, memoryWrite, profile as parseProfile } from '../validate/state.ts'
import { boundHistory } from './history.ts'
import { notice, unbindMissing, withUser, type OpContext, type OpResult } from './kit.ts'
import { asStored, itemOf, profileOf, writeOf } from '../provenance/provenance.ts'
import { appended, itemById } from './item-list.ts'
import { StoreError } from '../shared/errors.ts'

type ListDelta = NonNullable<CommandOf<'sync.apply'>['user']>

/**
 * `items` with `puts` appended when the delta only adds new facts (nothing removed, no order, no put of an id the
 * list holds), made by item-list.ts's append (marked, so that the store's row write and freeze skip the old entries,
 * and handed the list's ids); undefined otherwise. A pull of one fact into 10,000 then costs the fact, not the list
 * (after the first look at a list).
 */
function appendedOnly(
  items: readonly MemoryItem[],
  puts: ReadonlyMap<string, MemoryItem>,
  delta: ListDelta,
): MemoryItem[] | undefined {
  if ((delta.remove?.length ?? 0) > 0 || delta.order !== undefined || puts.size === 0) return undefined
  for (const it of puts.values()) if (itemById(items, it.id) !== undefined) return undefined
  return appended(items, [...puts.values()])
}

/** A memory list with a delta applied: puts in place or appended, removals, then the order when one is given. */
function applyList(items: readonly MemoryItem[], delta: ListDelta, field: string, limit: number): MemoryItem[] {
  const stored = asStored(0)
  const puts = new Map<string, MemoryItem>()
  for (const o of delta.put ?? []) {
    if (o.id === undefined) throw invalid(`${field}.put`, 'every item needs its id')
    puts.set(o.id, itemOf(o, stored))
  }
  const grown = appendedOnly(items, puts, delta)
  if (grown !== undefined) {
    if (grown.length > limit)
      throw invalid(field, `would hold ${grown.length} items, over the limit of ${limit}`, limit)
    return grown
  }
  const removed = new Set(delta.remove ?? [])
  const out: MemoryItem[] = []
  for (const it of items) {
    if (removed.has(it.id)) continue
    const put = puts.get(it.id)
    out.push(put ?? it)
    puts.delete(it.id)
  }
  out.push(...puts.values())
  let list = out
  if (delta.order !== undefined) {
    const at = new Map(delta.order.map((x, i) => [x, i]))
    // Items the order does not name (saved here while the pull travelled) keep their place after the named ones.
    list = [...out].sort((a, b) => (at.get(a.id) ?? Infinity) - (at.get(b.id) ?? Infinity))
  }
  if (list.length > limit) throw invalid(field, `would hold ${list.length} items, over the limit of ${limit}`, limit)
  return list
}

/** A list's whole history as the delta gives it, each entry checked, within the history's bounds. */
export function historyOf(raw: readonly unknown[], field: string): MemoryWrite[] {
  if (raw.length > HISTORY_LIMITS.entries)
    throw invalid(field, `has ${raw.length} entries, over the limit of ${HISTORY_LIMITS.entries}`)
  const stored = asStored(0)
  return boundHistory(
    raw.map((w, i) => writeOf(memoryWrite(w, `${field}[${i}]`), `${field}[${i}]`, stored)),
    false,
  )
}

/**
 * A list's history after a pull: the store's (`current`, the history the sync read: the profile's `seenAt` and the
 * run's revision check refuse any other) without its `drop` oldest entries, then the entries the pull added, each
 * checked. Only the added entries are parsed, so a pulled fact costs its one entry, not the list's history.
 */
function historyAfter(current: readonly MemoryWrite[], delta: NonNullable<ListDelta['history']>, field: string) {
  if (delta.drop > current.length)
    throw invalid(`${field}.drop`, `drops ${delta.drop} entries of a history of ${current.length}`)
  return boundHistory([...current.slice(delta.drop), ...historyOf(delta.add, `${field}.add`)], false)
}

/** `sync.apply {profiles, user?}`. */
export function applySync(state: State, cmd: CommandOf<'sync.apply'>, ctx: OpContext): OpResult {
  const profiles = [...state.profiles]
  const history: Record<string, MemoryWrite[]> = Object.assign(Object.create(null), state.history)
  let count = 0
  cmd.profiles.forEach((d, i) => {
    const field = `profiles[${i}]`
    const at = profiles.findIndex((p) => p.id === d.id)
    const current = at < 0 ? undefined : profiles[at]!
    if (current?.updatedAt !== d.seenAt)
      throw new StoreError('conflict', `${field}: the profile "${d.id}" changed since the sync read it`, field)
    if (d.delete === true) {
      if (at < 0) return
      profiles.splice(at, 1)
      delete history[d.id]
      count++
      return
    }
    let fields: Profile
    if (d.profile !== undefined) {
      fields = profileOf(parseProfile(d.profile, `${field}.profile`), `${field}.profile`, asStored(ctx.now))
      if (fields.id !== d.id) throw invalid(`${field}.profile.id`, `must be "${d.id}"`)
    } else if (current !== undefined) fields = current
    else throw invalid(`${field}.profile`, `is missing for the new profile "${d.id}"`)
    const items =
      d.memory === undefined
        ? (current?.memory.items ?? [])
        : applyList(current?.memory.items ?? [], d.memory, `${field}.memory`, LIMITS.memoryItems)
    if (d.summary !== undefined && (d.profile !== undefined || current?.library === undefined))
      throw invalid(`${field}.summary`, 'is sent alone only for a team profile (others send it in their fields)')
    const summary = d.summary ?? fields.memory.summary
    const next: Profile = { ...fields, memory: { summary, items }, updatedAt: ctx.now }
    if (current === undefined) profiles.push(next)
    else profiles[at] = next
    if (d.memory?.history !== undefined)
      history[d.id] = historyAfter(history[d.id] ?? [], d.memory.history, `${field}.memory.history`)
    count++
  })
  if (profiles.length === 0) throw invalid('profiles', 'would delete every profile; one must stay')
  if (profiles.length > LIMITS.profiles)
    throw invalid('profiles', `would make ${profiles.length} profiles, over the limit of ${LIMITS.profiles}`)
  let next: State = { ...state, profiles, history }
  if (cmd.user !== undefined) {
    next = withUser(next, applyList(state.user?.items ?? [], cmd.user, 'user', LIMITS.userItems))
    if (cmd.user.history !== undefined)
      next.history![USER_HISTORY] = historyAfter(next.history?.[USER_HISTORY] ?? [], cmd.user.history, 'user.history')
  }
  const ids = new Set(profiles.map((p) => p.id))
  if (profiles.length !== state.profiles.length || state.profiles.some((p) => !ids.has(p.id))) {
    next.sessions = unbindMissing(state.sessions, ids).sessions
    if (!ids.has(next.activeId)) next.activeId = profiles[0]!.id
  }
  return {
    state: next,
    notice: notice('sync.applied', { count }),
    extra: { profiles: count },
    changed: count > 0 || cmd.user !== undefined,
  }
}
