/**
 * The merge rules of a sync: what two machines' versions of the travelling data become, given the version they last
 * shared (three-way, over the parsed files of the base, ours and theirs; git only finds the base and stores the
 * result, it never merges a file's text). Pure: no git, no clock, no store.
 *
 * - A fact saved on each side ends up on both; the order is ours, then what only theirs has, in theirs' order.
 * - A deletion travels as a deletion: an item or profile the base had and one side removed is gone, unless the other
 *   side changed it meanwhile (then it is kept, and for a profile the user is told). The base says what was there,
 *   so no tombstone is needed: the other side's unchanged copy is recognised as the one that was deleted.
 * - A field, summary or item edited differently on both sides keeps the newer side's value (the side whose commit is
 *   later). The older memory item or summary becomes an entry of that list's history, so "restore" in the history
 *   brings it back; a profile field the history cannot hold (a role, the rules…) is named in a note with the text it
 *   lost.
 * - Histories are united by entry id, oldest first, within the history's bounds.
 */
import { LIMITS, type MemoryItem, type MemoryWrite, type Profile } from '../state/model.ts'
import { boundHistory } from '../commands/history.ts'
import { EDITABLE_FIELDS, type EditableField } from '../shared/command-inputs.ts'
import { itemLine, type SyncedProfile, type SyncedUser } from './layout.ts'
import type { MergeNote } from '../shared/sync.ts'

export type { MergeNote }

/** The profile fields merged one by one (memory is merged item by item). */
const PROFILE_FIELDS: readonly (Exclude<EditableField, 'memory'> | 'card' | 'createdAt')[] = [
  ...EDITABLE_FIELDS.filter((f): f is Exclude<EditableField, 'memory'> => f !== 'memory'),
  'card',
  'createdAt',
]

/** How a merge runs: which side is newer, the time and ids of the history entries it writes. */
export interface MergeContext {
  /** Our side's last change is later than theirs (their commit times): ours wins a clash. */
  oursNewer: boolean
  now: number
  newId: (prefix: string) => string
}

/** JSON with sorted keys: equal values give equal text whatever order their keys were made in. */
function canonical(v: unknown): string {
  if (v === undefined) return 'undefined'
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`
}

const same = (a: unknown, b: unknown) => a === b || canonical(a) === canonical(b)

/** What a three-way merge of one value gives, and whether it was a clash. */
function pick<T>(base: T | undefined, ours: T, theirs: T, oursNewer: boolean): { value: T; lost?: T } {
  if (same(ours, theirs)) return { value: ours }
  if (base !== undefined && same(base, ours)) return { value: theirs }
  if (base !== undefined && same(base, theirs)) return { value: ours }
  return oursNewer ? { value: ours, lost: theirs } : { value: theirs, lost: ours }
}

/**
 * Three-way merge of a memory list by item id. `lost` pairs each clash's losing version (`before`) with the one kept
 * (`after`), as a history entry's edits are written, so that reverting the entry brings the loser back.
 */
export function mergeItems(
  base: readonly MemoryItem[],
  ours: readonly MemoryItem[],
  theirs: readonly MemoryItem[],
  oursNewer: boolean,
): { items: MemoryItem[]; lost: { before: MemoryItem; after: MemoryItem }[] } {
  const baseBy = new Map(base.map((it) => [it.id, itemLine(it)]))
  const theirsBy = new Map(theirs.map((it) => [it.id, it]))
  const oursIds = new Set(ours.map((it) => it.id))
  const items: MemoryItem[] = []
  const lost: { before: MemoryItem; after: MemoryItem }[] = []
  for (const mine of ours) {
    const was = baseBy.get(mine.id)
    const other = theirsBy.get(mine.id)
    if (other === undefined) {
      // Deleted there, unless it was never there (new here) or changed here since (kept: nothing is lost).
      if (was === undefined || was !== itemLine(mine)) items.push(mine)
      continue
    }
    const a = itemLine(mine)
    const b = itemLine(other)
    if (a === b || was === b) items.push(mine)
    else if (was === a) items.push(other)
    else if (oursNewer) {
      items.push(mine)
      lost.push({ before: other, after: mine })
    } else {
      items.push(other)
      lost.push({ before: mine, after: other })
    }
  }
  for (const other of theirs) {
    if (oursIds.has(other.id)) continue
    const was = baseBy.get(other.id)
    // Deleted here, unless new there or changed there since.
    if (was === undefined || was !== itemLine(other)) items.push(other)
  }
  return { items, lost }
}

/** Histories united by entry id, oldest first (ties by id), within the bounds of a profile's history. */
export function mergeHistory(...lists: (readonly MemoryWrite[])[]): MemoryWrite[] {
  const byId = new Map<string, MemoryWrite>()
  for (const list of lists) for (const w of list) if (!byId.has(w.id)) byId.set(w.id, w)
  const all = [...byId.values()].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return all.length === 0 ? all : boundHistory(all, false)
}

/** The history entry that keeps what a clash lost, or undefined when nothing was lost. */
function lostEntry(
  lost: { before: MemoryItem; after: MemoryItem }[],
  summary: { before: string; after: string } | undefined,
  ctx: MergeContext,
): MemoryWrite | undefined {
  if (lost.length === 0 && summary === undefined) return undefined
  const w: MemoryWrite = { id: ctx.newId('h'), at: ctx.now, who: 'user', added: [], removed: [], edited: lost }
  if (summary !== undefined) w.summary = summary
  return w
}

/** The field names of a profile a merge takes one by one. */
type MergedField = (typeof PROFILE_FIELDS)[number]

/**
 * Field `field` of `out` (a copy of ours) set to the three-way merge of the sides' values; absent when the merge says
 * so. Returns what a clash lost, or undefined.
 */
function mergeField<F extends MergedField>(
  out: Profile,
  field: F,
  base: Profile | undefined,
  ours: Profile,
  theirs: Profile,
  oursNewer: boolean,
): { lost: Profile[F] } | undefined {
  const r = pick(base?.[field], ours[field], theirs[field], oursNewer)
  if (r.value === undefined) delete out[field]
  else out[field] = r.value
  return 'lost' in r && r.lost !== undefined ? { lost: r.lost } : undefined
}

/** A profile's fields merged one by one, and what each clash lost. */
function mergeFields(
  base: Profile | undefined,
  ours: Profile,
  theirs: Profile,
  ctx: MergeContext,
): { profile: Profile; notes: MergeNote[] } {
  const out: Profile = { ...ours }
  const notes: MergeNote[] = []
  for (const field of PROFILE_FIELDS) {
    if (field === 'createdAt') {
      // The same profile made on two machines (the factory ones) was made when it was first made.
      out.createdAt = Math.min(ours.createdAt, theirs.createdAt)
      continue
    }
    const clash = mergeField(out, field, base, ours, theirs, ctx.oursNewer)
    if (clash !== undefined)
      notes.push({
        kind: 'field',
        profileId: ours.id,
        name: String(out.name),
        field,
        kept: ctx.oursNewer ? 'here' : 'there',
        lost: typeof clash.lost === 'string' ? clash.lost : canonical(clash.lost),
      })
  }
  return { profile: out, notes }
}

/**
 * One profile merged: its fields, its memory and summary, its history. Absent means the profile is not on that side
 * (deleted, or never there). The result is absent when the profile is deleted.
 */
export function mergeProfile(
  base: SyncedProfile | undefined,
  ours: SyncedProfile | undefined,
  theirs: SyncedProfile | undefined,
  ctx: MergeContext,
): { merged: SyncedProfile | undefined; notes: MergeNote[] } {
  if (ours === undefined && theirs === undefined) return { merged: undefined, notes: [] }
  if (ours === undefined || theirs === undefined) {
    const present = (ours ?? theirs)!
    if (base === undefined) return { merged: present, notes: [] }
    if (unchanged(base, present)) return { merged: undefined, notes: [] }
    const note: MergeNote = {
      kind: 'kept',
      profileId: present.profile.id,
      name: present.profile.name,
      deletedOn: ours === undefined ? 'here' : 'there',
    }
    return { merged: present, notes: [note] }
  }
  const { profile, notes } = mergeFields(base?.profile, ours.profile, theirs.profile, ctx)
  const m = mergeMemory(
    base?.profile.memory,
    { ...ours.profile.memory, history: ours.history },
    { ...theirs.profile.memory, history: theirs.history },
    ctx,
    LIMITS.memoryItems,
  )
  if (m.lost > 0) notes.push({ kind: 'memory', profileId: profile.id, name: profile.name, count: m.lost })
  const { summary, items, history } = m.merged
  return { merged: { profile: { ...profile, memory: { summary, items } }, history }, notes }
}

/** A memory as it travels: its summary, items and history. */
interface TravellingMemory extends SyncedUser {
  summary: string
}

/**
 * A memory merged: its items by id, its summary as a field (a clash keeps the newer, the other goes in the history
 * entry that keeps what the clash lost), its history united; at most `limit` items. `lost` counts what clashes lost.
 * A profile's memory merges so, and so does the user's memory of a team profile, which travels without the fields.
 */
export function mergeMemory(
  base: { summary?: string; items: readonly MemoryItem[] } | undefined,
  ours: TravellingMemory,
  theirs: TravellingMemory,
  ctx: MergeContext,
  limit: number,
): { merged: { summary: string; items: MemoryItem[]; history: MemoryWrite[] }; lost: number } {
  const m = mergeItems(base?.items ?? [], ours.items, theirs.items, ctx.oursNewer)
  const s = pick(base?.summary, ours.summary, theirs.summary, ctx.oursNewer)
  const summaryLost = s.lost === undefined ? undefined : { before: s.lost, after: s.value }
  const entry = lostEntry(m.lost, summaryLost, ctx)
  const history = mergeHistory(ours.history, theirs.history, entry === undefined ? [] : [entry])
  const merged = { summary: s.value, items: m.items.slice(0, limit), history }
  return { merged, lost: m.lost.length + (summaryLost === undefined ? 0 : 1) }
}

/** The user layer merged like a profile's memory (it has no fields, no summary and is never deleted as a whole). */
export function mergeUser(
  base: SyncedUser,
  ours: SyncedUser,
  theirs: SyncedUser,
  ctx: MergeContext,
): { merged: SyncedUser; lost: number } {
  const none = (u: SyncedUser) => ({ ...u, summary: '' })
  const { merged, lost } = mergeMemory(none(base), none(ours), none(theirs), ctx, LIMITS.userItems)
  return { merged: { items: merged.items, history: merged.history }, lost }
}

/** Whether a profile reads exactly as it did in the base (its history aside: merging never counts it as an edit). */
function unchanged(base: SyncedProfile, now: SyncedProfile): boolean {
  const a = base.profile
  const b = now.profile
  return (
    PROFILE_FIELDS.every((f) => same(a[f], b[f])) &&
    a.memory.summary === b.memory.summary &&
    a.memory.items.length === b.memory.items.length &&
    a.memory.items.every((it, i) => itemLine(it) === itemLine(b.memory.items[i]!))
  )
}
