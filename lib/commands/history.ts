/**
 * The history of memory writes: after every command that changed a memory list (a profile's memory, a
 * conversation's own memories), one entry per changed list saying who, when, from which conversation and exactly
 * what changed; `memory.history` reads it and `memory.revert` undoes one entry (or some of its items) as a new write.
 * Pure functions over the state, like every command module; the bounds are HISTORY_LIMITS.
 *
 * A revert never loses what was saved after the entry: it removes only the items that entry added and that are
 * still there as it left them, puts back only removed items that nothing says again, and restores an edit or the
 * summary only while they still read as that entry left them.
 */
import { appendedOnDisk } from '../state/lazy-list.ts'
import { changedParts } from '../state/list-ends.ts'
import { changedTo } from '../state/items-on-disk.ts'
import { HISTORY_LIMITS, LIMITS, USER_HISTORY, historyKey, userItemsOf } from '../state/model.ts'
import type { MemoryItem, MemoryWrite, MemoryWriter, Profile, SessionSetting, State } from '../state/model.ts'
import type { MemoryHistoryEntry as HistoryEntry, MemoryTarget } from '../shared/memory-target.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { normalizeMemory, normalizedItem } from '../shared/memory-text.ts'
import { bareRecord, invalid, isRecord, sessionId as sessionIdOf } from '../validate/state.ts'
import { changedKeys, diffKeys } from '../state/sessions.ts'
import {
  findProfile,
  notice,
  targetOf,
  withProfile,
  withSession,
  withUser,
  type OpContext,
  type OpResult,
} from './kit.ts'
import { StoreError } from '../shared/errors.ts'

/** Who wrote, as the command says: the items' source for the tool and the job, else the kind of command. */
function writerOf(cmd: Record<string, unknown>): MemoryWriter {
  switch (cmd.op) {
    case 'memory.compress':
      return 'compress'
    case 'memory.undo':
    case 'memory.revert':
      return 'undo'
    case 'memory.approve':
      return 'user'
    case 'state.import':
    case 'profiles.importFiles':
    case 'memory.paste':
    case 'memory.learn':
      return 'import'
    case 'memory.add': {
      const first = Array.isArray(cmd.items) && isRecord(cmd.items[0]) ? cmd.items[0].source : undefined
      return first === 'tool' || first === 'auto' || first === 'import' ? first : 'user'
    }
    default:
      return 'user'
  }
}

/** The conversation a command came from, when it names one. */
function causeOf(cmd: Record<string, unknown>): string | undefined {
  if (typeof cmd.sessionId === 'string') return cmd.sessionId
  if (isRecord(cmd.target) && typeof cmd.target.sessionId === 'string') return cmd.target.sessionId
  const first = Array.isArray(cmd.items) && isRecord(cmd.items[0]) ? cmd.items[0].sessionId : undefined
  return typeof first === 'string' ? first : undefined
}

// Archiving is an edit in place: a compression's entry lists the items it condensed out, so reverting it brings them
// back into the core.
const sameItem = (a: MemoryItem, b: MemoryItem) =>
  a.text === b.text && a.pinned === b.pinned && a.pending === b.pending && a.archived === b.archived

/** What changed from `before` to `after` (by item id), or undefined when nothing did. */
function diff(
  before: readonly MemoryItem[],
  after: readonly MemoryItem[],
  summaryBefore: string,
  summaryAfter: string,
): Pick<MemoryWrite, 'added' | 'removed' | 'edited' | 'summary'> | undefined {
  const summary = summaryBefore === summaryAfter ? undefined : { before: summaryBefore, after: summaryAfter }
  // A change of a list still on disk (items-on-disk.ts) says what it did: comparing would read the list.
  const change = changedTo(before, after)
  if (change !== undefined) return summary === undefined ? change : { ...change, summary }
  // Only the parts outside the items both lists share as the same objects can differ (an item's id is unique in its
  // list): a save into a list of 10,000 compares the few items it touched, not every one by id.
  const parts = changedParts(before, after)
  const was0 = parts.flatMap(({ b0, b1 }) => before.slice(b0, b1))
  const now0 = parts.flatMap(({ a0, a1 }) => after.slice(a0, a1))
  const old = new Map(was0.map((it) => [it.id, it]))
  const now = new Set(now0.map((it) => it.id))
  const added: MemoryItem[] = []
  const edited: MemoryWrite['edited'] = []
  for (const it of now0) {
    const was = old.get(it.id)
    if (was === undefined) added.push(it)
    else if (was !== it && !sameItem(was, it)) edited.push({ before: was, after: it })
  }
  const removed = was0.filter((it) => !now.has(it.id))
  if (added.length === 0 && removed.length === 0 && edited.length === 0 && summary === undefined) return undefined
  return summary === undefined ? { added, removed, edited } : { added, removed, edited, summary }
}

/**
 * Characters of JSON of each entry, computed once (entries are immutable): code points, as SQLite's `length()` counts
 * the row an entry is written to, so that a list still on disk is bounded by its rows' sizes exactly as it would be
 * read (JSON.stringify escapes a lone surrogate, so every pair left is one character).
 */
const sizes = new WeakMap<MemoryWrite, number>()
function sizeOf(entry: MemoryWrite): number {
  let n = sizes.get(entry)
  if (n === undefined) {
    const json = JSON.stringify(entry)
    n = json.length - highSurrogates(json)
    sizes.set(entry, n)
  }
  return n
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/

/**
 * How many high surrogates `json` holds (each begins a pair that is one character), counted without a match array: a
 * bulk write's entry is a megabyte of JSON, and a global match made an array of every emoji in it to count them. A
 * text without any, the usual case, is told by one search that stops at the first.
 */
function highSurrogates(json: string): number {
  if (!HIGH_SURROGATE.test(json)) return 0
  let n = 0
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) n++
  }
  return n
}

/** How many of the oldest entries of a list of these sizes (oldest first) go past the bounds; the newest stays. */
function dropCount(sized: readonly number[], conversation: boolean): number {
  const maxEntries = conversation ? HISTORY_LIMITS.conversationEntries : HISTORY_LIMITS.entries
  const maxChars = conversation ? HISTORY_LIMITS.conversationChars : HISTORY_LIMITS.chars
  let chars = sized.reduce((n, size) => n + size, 0)
  let drop = 0
  while (sized.length - drop > 1 && (sized.length - drop > maxEntries || chars > maxChars)) chars -= sized[drop++]!
  return drop
}

/**
 * `list` with `entry` appended, its oldest entries dropped past the bounds of its kind of list. A list still on disk
 * stays there, bounded by its rows' sizes (lazy-list.ts `appendedOnDisk`): a command that writes memory reads none
 * of the history it appends to.
 */
function appended(list: readonly MemoryWrite[], entry: MemoryWrite, conversation: boolean): MemoryWrite[] {
  const bound = (sized: readonly number[]) => dropCount(sized, conversation)
  return appendedOnDisk(list, entry, sizeOf(entry), bound) ?? boundHistory([...list, entry], conversation)
}

/** A history list (oldest first) without its oldest entries past the bounds of its kind of list; the newest stays. */
export function boundHistory(out: MemoryWrite[], conversation: boolean): MemoryWrite[] {
  const drop = dropCount(out.map(sizeOf), conversation)
  return drop === 0 ? out : out.slice(drop)
}

const EMPTY = { summary: '', items: [] as MemoryItem[] }

/** The memory lists a command changed: key, items before/after, summary before/after. */
function changedLists(
  before: State,
  after: State,
): {
  key: string
  conversation: boolean
  items: [readonly MemoryItem[], readonly MemoryItem[]]
  summary: [string, string]
}[] {
  const out: ReturnType<typeof changedLists> = []
  if (before.profiles !== after.profiles) {
    const old = new Map(before.profiles.map((p) => [p.id, p]))
    for (const p of after.profiles) {
      const was = old.get(p.id)?.memory ?? EMPTY
      if (was === p.memory) continue
      out.push({
        key: p.id,
        conversation: false,
        items: [was.items, p.memory.items],
        summary: [was.summary, p.memory.summary],
      })
    }
  }
  if (before.user !== after.user) {
    out.push({
      key: USER_HISTORY,
      conversation: false,
      items: [userItemsOf(before), userItemsOf(after)],
      summary: ['', ''],
    })
  }
  if (before.sessions !== after.sessions) {
    const none: MemoryItem[] = []
    // The keys the command put, from the map's own lineage (a command costs what it changed); a map made anew
    // (clearing every conversation's settings, a load) is compared whole.
    for (const key of changedKeys(before.sessions, after.sessions, 1000) ?? diffKeys(before.sessions, after.sessions)) {
      const a = before.sessions.get(key)?.memories ?? none
      const b = after.sessions.get(key)?.memories ?? none
      if (a !== b) out.push({ key: `s:${key}`, conversation: true, items: [a, b], summary: ['', ''] })
    }
  }
  return out
}

/**
 * `result` of `cmd` with its memory writes recorded in the history: one entry per changed list. A profile that
 * went away takes its history with it; restoring the factory defaults starts a new history.
 */
export function recordHistory(before: State, result: OpResult, cmd: Record<string, unknown>, ctx: OpContext): OpResult {
  // A sync's pull brings the lists' history with it (the other machine recorded its writes).
  if (!result.changed || cmd.op === 'state.restoreDefaults' || cmd.op === 'sync.apply' || cmd.op === 'library.apply')
    return result
  const after = result.state
  const lists = changedLists(before, after)
  let history = before.history
  const who = writerOf(cmd)
  const cause = causeOf(cmd)
  for (const list of lists) {
    const change = diff(list.items[0], list.items[1], list.summary[0], list.summary[1])
    if (change === undefined) continue
    const entry: MemoryWrite = { id: ctx.newId('h'), at: ctx.now, who, ...change }
    if (cause !== undefined) entry.sessionId = cause
    if (cmd.op === 'memory.revert' && typeof cmd.entryId === 'string') entry.reverts = cmd.entryId
    const next = bareRecord(Object.entries(history ?? {}).filter(([k]) => k !== list.key))
    next[list.key] = appended(history?.[list.key] ?? [], entry, list.conversation)
    history = next
  }
  if (history !== undefined && after.profiles !== before.profiles) {
    // Profiles may have gone (delete, replacing import): their lists go with them.
    const ids = new Set(after.profiles.map((p) => p.id))
    const kept = (k: string) => k.startsWith('s:') || k === USER_HISTORY || ids.has(k)
    if (Object.keys(history).some((k) => !kept(k))) {
      history = bareRecord(Object.entries(history).filter(([k]) => kept(k)))
    }
  }
  if (history !== undefined) {
    const conversations = Object.keys(history).filter((k) => k.startsWith('s:'))
    if (conversations.length > HISTORY_LIMITS.conversations) {
      // Least recently written first: a written list was moved to the end above.
      const gone = new Set(conversations.slice(0, conversations.length - HISTORY_LIMITS.conversations))
      history = bareRecord(Object.entries(history).filter(([k]) => !gone.has(k)))
    }
  }
  if (history !== undefined && Object.keys(history).length === 0) history = undefined
  if (after.history === history) return result
  // An empty history is no history, as a reload of the data file would find it.
  const { history: _old, ...rest } = after
  return { ...result, state: history === undefined ? rest : { ...rest, history } }
}

/** A `{profileId}`, `{sessionId}` or `{user: true}` target, checked; a profile must exist. */
function existingTarget(state: State, v: unknown): MemoryTarget {
  const t = targetOf(v)
  return 'profileId' in t ? { profileId: findProfile(state, t.profileId, 'target.profileId').id } : t
}

/** The entries of one list, newest first, each with its target and the entries that reverted it. */
function entriesOf(list: readonly MemoryWrite[], target: MemoryTarget): HistoryEntry[] {
  const reverted = new Map<string, string[]>()
  for (const e of list) if (e.reverts !== undefined) reverted.set(e.reverts, [...(reverted.get(e.reverts) ?? []), e.id])
  return list
    .map((e): HistoryEntry => {
      const by = reverted.get(e.id)
      return by === undefined ? { ...e, target } : { ...e, target, revertedBy: by }
    })
    .reverse()
}

/** Entries one query answers at most. */
const QUERY_LIMIT = 200

/**
 * `memory.history {target}`: that list's entries; `memory.history {sessionId}`: the writes that conversation caused
 * in any profile's memory and in its own memories. Newest first, at most 200. Reads only: the route
 * `GET /__ap/memory/history` calls it on the current state, outside the write queue.
 */
export function historyQuery(state: State, cmd: CommandOf<'memory.history'>): OpResult {
  // A record without a prototype: a profile id `constructor` or `toString` must find no list, not Object's members.
  const history = state.history ?? bareRecord<MemoryWrite[]>()
  let entries: HistoryEntry[]
  if (cmd.target !== undefined) {
    const target = existingTarget(state, cmd.target)
    entries = entriesOf(history[historyKey(target)] ?? [], target)
  } else {
    const sid = sessionIdOf(cmd.sessionId, 'sessionId')
    entries = [
      ...state.profiles.flatMap((p) =>
        entriesOf(history[p.id] ?? [], { profileId: p.id }).filter((e) => e.sessionId === sid),
      ),
      ...entriesOf(history[USER_HISTORY] ?? [], { user: true }).filter((e) => e.sessionId === sid),
      ...entriesOf(history[`s:${sid}`] ?? [], { sessionId: sid }),
    ].sort((a, b) => b.at - a.at)
  }
  return {
    state,
    notice: notice('memory.history', { count: entries.length }),
    extra: { entries: entries.slice(0, QUERY_LIMIT) },
    changed: false,
  }
}

/** The list a target names: its items, summary, limit, and how to write it back. */
function listOf(
  state: State,
  target: MemoryTarget,
  ctx: OpContext,
): {
  items: readonly MemoryItem[]
  summary: string
  limit: number
  write(items: MemoryItem[], summary: string): State
} {
  if ('user' in target)
    return { items: userItemsOf(state), summary: '', limit: LIMITS.userItems, write: (items) => withUser(state, items) }
  if ('profileId' in target) {
    const p: Profile = findProfile(state, target.profileId, 'target.profileId')
    return {
      items: p.memory.items,
      summary: p.memory.summary,
      limit: LIMITS.memoryItems,
      write: (items, summary) => withProfile(state, { ...p, memory: { summary, items }, updatedAt: ctx.now }),
    }
  }
  const s: SessionSetting = state.sessions.get(target.sessionId) ?? { profileId: null, note: '', memories: [] }
  return {
    items: s.memories,
    summary: '',
    limit: LIMITS.sessionMemories,
    write: (memories) => withSession(state, target.sessionId, { ...s, memories }),
  }
}

/**
 * `memory.revert {target, entryId, itemIds?}`: a new write undoing entry `entryId` where it still applies — all of
 * it, or only its items `itemIds` (then the summary stays). Answers `reverted` (how many changes it undid).
 */
function revert(state: State, cmd: CommandOf<'memory.revert'>, ctx: OpContext): OpResult {
  const target = existingTarget(state, cmd.target)
  const wanted = cmd.entryId
  const entry = state.history?.[historyKey(target)]?.find((e) => e.id === wanted)
  if (entry === undefined)
    throw new StoreError(
      'not-found',
      `entryId: no memory change with id "${wanted}" in this list (it may have aged out of the history)`,
      'entryId',
    )
  let only: Set<string> | undefined
  if (cmd.itemIds !== undefined) only = new Set(cmd.itemIds)
  const picked = (it: MemoryItem) => only === undefined || only.has(it.id)
  const list = listOf(state, target, ctx)
  let undone = 0
  const drop = new Set(
    entry.added
      .filter(picked)
      .filter((a) => list.items.some((it) => it.id === a.id && sameItem(it, a)))
      .map((a) => a.id),
  )
  undone += drop.size
  const restore = new Map(entry.edited.filter((e) => picked(e.after)).map((e) => [e.after.id, e]))
  let items = list.items.flatMap((it): MemoryItem[] => {
    if (drop.has(it.id)) return []
    const edit = restore.get(it.id)
    if (edit === undefined || !sameItem(it, edit.after)) return [it]
    undone++
    const { pinned: _pin, pending: _pending, approved: _approved, archived: _archived, ...rest } = it
    const back: MemoryItem = { ...rest, text: edit.before.text }
    if (edit.before.pinned === true) back.pinned = true
    if (edit.before.approved === true) back.approved = true
    if (edit.before.archived === true) back.archived = true
    if (edit.before.pending === true) back.pending = true
    if (edit.before.pending === true && edit.before.replaces !== undefined) back.replaces = edit.before.replaces
    return [back]
  })
  const texts = new Set(items.map((it) => normalizedItem(it)))
  const ids = new Set(items.map((it) => it.id))
  for (const gone of entry.removed.filter(picked)) {
    if (texts.has(normalizeMemory(gone.text))) continue
    texts.add(normalizeMemory(gone.text))
    const back = ids.has(gone.id) ? { ...gone, id: ctx.newId('m') } : gone
    ids.add(back.id)
    items = [...items, back]
    undone++
  }
  let summary = list.summary
  if (only === undefined && entry.summary !== undefined && summary === entry.summary.after) {
    summary = entry.summary.before
    undone++
  }
  if (items.length > list.limit)
    throw invalid('itemIds', `reverting would hold ${items.length} items, over the limit of ${list.limit}`, list.limit)
  if (undone === 0) {
    return { state, notice: notice('memory.revertNothing'), extra: { reverted: 0 }, changed: false }
  }
  return {
    state: list.write(items, summary),
    notice: notice('memory.reverted', { count: undone }),
    extra: { reverted: undone },
    changed: true,
  }
}

/** Apply `memory.history` or `memory.revert`. */
export function applyHistoryCommand(
  state: State,
  cmd: CommandOf<'memory.history' | 'memory.revert'>,
  ctx: OpContext,
): OpResult {
  return cmd.op === 'memory.history' ? historyQuery(state, cmd) : revert(state, cmd, ctx)
}
