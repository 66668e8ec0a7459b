/**
 * What a pull changes in the store: the `sync.apply` command that takes the store from the version of what travels
 * it had (`before`, the files of our last commit) to the merged or pulled version (`after`), carrying only what
 * differs — per profile its fields when they changed, the items put and removed, the order when it moved, the
 * history entries it added — so the store's work follows the change. Pure.
 */
import type { MemoryItem, MemoryWrite, Profile } from '../state/model.ts'
import type { CommandInput } from '../shared/schema-commands.ts'
import { itemLine, profileFiles, writeLine, PROFILE_FILES, type SyncedProfile, type SyncedUser } from './layout.ts'

type ListDelta = NonNullable<CommandInput<'sync.apply'>['user']>
/** One profile's part of a `sync.apply` command. */
export type ProfileDelta = CommandInput<'sync.apply'>['profiles'][number]

/**
 * How a list's history went from `before` to `after` as `sync.apply` takes it — the oldest entries that went, then
 * the entries appended — or undefined when it did not change. A pull grows a history at its end and the bound drops
 * its oldest entries, so the entries sent are the new ones; a history changed otherwise (a merge weaving both sides'
 * entries) drops every entry and adds the whole. Kept entries are compared by their line (the same object: at once).
 */
export function historyChange(
  before: readonly MemoryWrite[],
  after: readonly MemoryWrite[],
): ListDelta['history'] | undefined {
  const first = after[0]
  const at = first === undefined ? before.length : before.findIndex((w) => w.id === first.id)
  const drop = at < 0 ? before.length : at
  const kept = before.length - drop
  const same = (a: MemoryWrite, b: MemoryWrite) => a === b || writeLine(a) === writeLine(b)
  const whole = kept > after.length || before.slice(drop).some((w, i) => !same(w, after[i]!))
  if (whole) return { drop: before.length, add: [...after] }
  if (drop === 0 && kept === after.length) return undefined
  return { drop, add: after.slice(kept) }
}

/** The delta of one memory list, or undefined when it did not change. */
function listDelta(
  before: readonly MemoryItem[],
  after: readonly MemoryItem[],
  historyBefore: readonly MemoryWrite[],
  historyAfter: readonly MemoryWrite[],
): ListDelta | undefined {
  const was = new Map(before.map((it) => [it.id, itemLine(it)]))
  const now = new Set(after.map((it) => it.id))
  const put = after.filter((it) => was.get(it.id) !== itemLine(it))
  const remove = before.filter((it) => !now.has(it.id)).map((it) => it.id)
  // The order the store makes of these edits (in place, then appended) and the one wanted.
  const added = new Set(put.filter((it) => !was.has(it.id)).map((it) => it.id))
  const made = [
    ...before.filter((it) => now.has(it.id)).map((it) => it.id),
    ...after.filter((it) => added.has(it.id)).map((it) => it.id),
  ]
  const reordered = made.some((x, i) => x !== after[i]!.id)
  const history = historyChange(historyBefore, historyAfter)
  if (put.length === 0 && remove.length === 0 && !reordered && history === undefined) return undefined
  const d: ListDelta = {}
  if (put.length > 0) d.put = put
  if (remove.length > 0) d.remove = remove
  if (reordered) d.order = after.map((it) => it.id)
  if (history !== undefined) d.history = history
  return d
}

/** Whether two versions of a profile differ in anything but memory (the files a person reads say it). */
export function fieldsDiffer(a: Profile, b: Profile): boolean {
  const fa = profileFiles({ ...a, memory: { summary: a.memory.summary, items: [] } })
  const fb = profileFiles({ ...b, memory: { summary: b.memory.summary, items: [] } })
  return fa[PROFILE_FILES.json] !== fb[PROFILE_FILES.json] || fa[PROFILE_FILES.markdown] !== fb[PROFILE_FILES.markdown]
}

/**
 * One profile's delta from `before` to `after` (either absent: not there); `seenAt` is its `updatedAt` in the store
 * when the sync read it. Undefined when nothing changed.
 */
export function profileDelta(
  id: string,
  before: SyncedProfile | undefined,
  after: SyncedProfile | undefined,
  seenAt: number | undefined,
): ProfileDelta | undefined {
  const seen = seenAt === undefined ? {} : { seenAt }
  if (after === undefined) return before === undefined ? undefined : { id, ...seen, delete: true }
  const memory = listDelta(
    before?.profile.memory.items ?? [],
    after.profile.memory.items,
    before?.history ?? [],
    after.history,
  )
  const fields = before === undefined || fieldsDiffer(before.profile, after.profile)
  if (!fields && memory === undefined) return undefined
  const d: ProfileDelta = { id, ...seen }
  if (fields) d.profile = { ...after.profile, memory: { summary: after.profile.memory.summary, items: [] } }
  if (memory !== undefined) d.memory = memory
  return d
}

/** The user layer's delta, or undefined when it did not change. */
export function userDelta(before: SyncedUser, after: SyncedUser): ListDelta | undefined {
  return listDelta(before.items, after.items, before.history, after.history)
}
