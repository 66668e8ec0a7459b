/**
 * The memory operations (`memory.add|update|remove|clear|approve`, and `compress|undo` from memory-compress.ts) as
 * pure functions over the state. Owns duplicate detection. It never decides when to compress (the memory job does)
 * and never touches the disk.
 */
import { LIMITS, isUsersFact, userItemsOf } from '../state/model.ts'
import type { MemoryItem, SessionSetting, State } from '../state/model.ts'
import { itemKeys, normalizeMemory, normalizedItem } from '../shared/memory-text.ts'
import {
  appended,
  appendedKeepingRows,
  edited,
  editedKeepingRows,
  indexOfItem,
  itemById,
  itemOnDisk,
  keysOnDisk,
  removedKeepingRows,
  removedAt,
  replacedAt,
  saidOnDisk,
  type Edit,
} from './item-list.ts'
import { itemTally } from '../state/lazy-list.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import type { MemoryTarget } from '../shared/memory-target.ts'
import { invalid, brokeRule } from '../validate/state.ts'
import { arriving, itemOf } from '../provenance/provenance.ts'
import {
  carry,
  findProfile,
  targetOf,
  notice,
  withProfile,
  withSession,
  withUser,
  type OpContext,
  type OpResult,
} from './kit.ts'
import { StoreError } from '../shared/errors.ts'
import { compress, undo } from './memory-compress.ts'

/** One memory list being edited: where it lives, its items, its limit and how to write it back. */
interface Slot {
  field: string
  items: readonly MemoryItem[]
  limit: number
  sessionId?: string
  write(items: MemoryItem[]): State
}

/** The memory list a command's target names. */
export function slotOf(state: State, target: unknown, ctx: OpContext): Slot {
  const t = targetOf(target)
  if ('profileId' in t) {
    const p = findProfile(state, t.profileId, 'target.profileId')
    return {
      field: 'memory.items',
      items: p.memory.items,
      limit: LIMITS.memoryItems,
      write: (items) => withProfile(state, { ...p, memory: { ...p.memory, items }, updatedAt: ctx.now }),
    }
  }
  if ('sessionId' in t) {
    const key = t.sessionId
    const s: SessionSetting = state.sessions.get(key) ?? { profileId: null, note: '', memories: [] }
    return {
      field: 'memories',
      items: s.memories,
      limit: LIMITS.sessionMemories,
      sessionId: key,
      write: (memories) => withSession(state, key, { ...s, memories }),
    }
  }
  return {
    field: 'user.items',
    items: userItemsOf(state),
    limit: LIMITS.userItems,
    write: (items) => withUser(state, items),
  }
}

/**
 * Whether an item of `items` other than those of `skip` says what `text` says: the list's kept counts of compared
 * texts less the skipped items', so an edit in 10,000 items normalises one text, not every item's.
 */
function othersSay(items: readonly MemoryItem[], text: string, skip: readonly MemoryItem[]): boolean {
  const key = normalizeMemory(text)
  const skipped = [...new Set(skip)].filter((it) => normalizedItem(it) === key).length
  return (itemKeys(items).get(key) ?? 0) > skipped
}

/**
 * What `addItems` checks new texts against: nothing, when the list is still on disk, nothing new replaces an item and
 * no row says one of the new texts (looked up by the rows' keys, or else in the compared forms of every row's text):
 * a save into years of memory then reads none of it; else the list's own counts (which read it).
 */
function storedKeys(
  slot: Slot,
  items: CommandOf<'memory.add'>['items'],
): { has(key: string): boolean; onDisk: boolean } {
  const plain = items.every((it) => it.replaces === undefined)
  const forms = new Set(items.map((it) => normalizeMemory(it.text)))
  const said = plain ? saidOnDisk(slot.items, forms) : undefined
  if (said === false) return { has: () => false, onDisk: true }
  // A row said one (the list tells whether an item does): the compared forms of every row would say it too.
  const rows = plain && said === undefined ? keysOnDisk(slot.items) : undefined
  if (rows !== undefined && ![...forms].some((form) => rows.has(form))) return { has: () => false, onDisk: true }
  const keys = itemKeys(slot.items)
  return { has: (key) => keys.has(key), onDisk: false }
}

/** The refusal of a command naming an item the list does not hold. */
const noItem = (wanted: string) => new StoreError('not-found', `itemId: no memory item with id "${wanted}"`, 'itemId')

function itemIndex(slot: Slot, wanted: string): number {
  const at = indexOfItem(slot.items, wanted)
  if (at < 0) throw noItem(wanted)
  return at
}

/**
 * An incognito conversation writes no memory: facts the tool or the job bring from it are refused here too, so one
 * already on its way when incognito was turned on is not saved either.
 */
function refuseIncognito(state: State, items: CommandOf<'memory.add'>['items']): void {
  for (const raw of items) {
    if ((raw.source !== 'tool' && raw.source !== 'auto') || typeof raw.sessionId !== 'string') continue
    if (state.sessions.get(raw.sessionId)?.incognito === true) {
      throw brokeRule(
        'conflict',
        `items: conversation "${raw.sessionId}" is incognito; it writes no memory`,
        'items',
        'session.incognito',
      )
    }
  }
}

/**
 * Whether the profile a target's facts go to asks first: the profile itself, or the one a conversation uses; for the
 * user layer, the profile of the conversation the facts come from (the calling profile decides, as for its own).
 * About you is read by every profile, so facts for it that a team profile brought (`from`: the profile that
 * answered, else the conversation's) are only proposed: a team profile's persona and rules are written in someone
 * else's repository, and what it draws out of a conversation reaches the other profiles only once the user approves.
 */
function asksFirst(
  state: State,
  t: MemoryTarget,
  items: CommandOf<'memory.add'>['items'],
  from: string | undefined,
): boolean {
  const source = items[0]?.sessionId ?? undefined
  const sid = 'sessionId' in t ? t.sessionId : 'user' in t ? source : undefined
  const pin = sid === undefined ? undefined : (state.sessions.get(sid)?.profileId ?? undefined)
  const id =
    'profileId' in t
      ? t.profileId
      : pin !== undefined && state.profiles.some((p) => p.id === pin)
        ? pin
        : state.activeId
  const decides = state.profiles.find((p) => p.id === id)
  if (decides?.memoryMode === 'ask') return true
  if (!('user' in t)) return false
  const speaker = from === undefined ? decides : state.profiles.find((p) => p.id === from)
  return speaker?.library !== undefined
}

/** Whether approving the suggestion that replaces `old` takes `old` away: not when it is pinned or a suggestion too. */
export const leavesOnApproval = (old: MemoryItem): boolean => old.pinned !== true && old.pending !== true

/** `item`, a suggestion, as the memory its approval makes: saying `text`, no longer pending nor replacing. */
export function approvedOf(item: MemoryItem, text: string = item.text): MemoryItem {
  const { pending: _pending, replaces: _replaces, ...rest } = item
  return { ...rest, text, approved: true }
}

/** The refusal of an approval of an item that is not a suggestion. */
const notSuggestion = () =>
  new StoreError('conflict', 'itemId: this memory item is not a suggestion awaiting approval', 'itemId')

/**
 * `memory.approve` in a list still on disk, as {@link approve} does it in the list: the suggestion and the fact it
 * replaces read by id, the duplicate check by the rows' keys (rows other than theirs), the suggestion's row rewritten
 * and the replaced fact's deleted; nothing else of years of memory read. Undefined when the list is not on disk, or a
 * row says the text or cannot tell (the caller reads the list, which tells).
 */
function approvedOnDisk(slot: Slot, cmd: CommandOf<'memory.approve'>): OpResult | undefined {
  const old = itemKeptOnDisk(slot, cmd.itemId)
  if (old === undefined) return undefined
  if (old.pending !== true) throw notSuggestion()
  const value = cmd.text ?? old.text
  const named = old.replaces === undefined ? undefined : itemOnDisk(slot.items, old.replaces)?.item
  const replaced = named !== undefined && leavesOnApproval(named) ? named : undefined
  const except = new Set(replaced === undefined ? [old.id] : [old.id, replaced.id])
  if (saidOnDisk(slot.items, new Set([normalizeMemory(value)]), except) !== false) return undefined
  const approved = editedKeepingRows(slot.items, old, approvedOf(old, value))
  return {
    state: slot.write(replaced === undefined ? approved : removedKeepingRows(approved, replaced)),
    notice: notice('memory.approved', { text: value }),
    extra: { replaced: replaced === undefined ? [] : [replaced] },
    changed: true,
  }
}

/**
 * `memory.approve {target, itemId, text?}`: a suggestion becomes a memory (with `text`, the user's edit of it).
 */
function approve(state: State, cmd: CommandOf<'memory.approve'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const onDisk = approvedOnDisk(slot, cmd)
  if (onDisk !== undefined) return onDisk
  const at = itemIndex(slot, cmd.itemId)
  const old = slot.items[at]!
  if (old.pending !== true) throw notSuggestion()
  const value = cmd.text ?? old.text
  // The fact a suggestion replaces leaves in the same write (one history entry), unless it is pinned or gone.
  const named = old.replaces === undefined ? undefined : itemById(slot.items, old.replaces)
  const replaced = named !== undefined && leavesOnApproval(named) ? named : undefined
  if (othersSay(slot.items, value, replaced === undefined ? [old] : [old, replaced])) {
    throw brokeRule('conflict', 'text: another memory item already says this', 'text', 'memory.same')
  }
  const edits: Edit[] = [{ at, cut: 1, put: [approvedOf(old, value)] }]
  if (replaced !== undefined) edits.push({ at: slot.items.indexOf(replaced), cut: 1, put: [] })
  const items = edited(
    slot.items,
    edits.sort((a, b) => a.at - b.at),
  )
  return {
    state: slot.write(items),
    notice: notice('memory.approved', { text: value }),
    extra: { replaced: replaced === undefined ? [] : [replaced] },
    changed: true,
  }
}

/**
 * `memory.add {target, items}`. An item may name (`replaces`, an item id of the same list) the fact it replaces: in
 * the same write the old item leaves and the new one arrives, so the history records both in one entry and a revert
 * brings the old one back; a suggestion (ask-first) records what it replaces, which leaves when it is approved. A
 * replacement that cannot apply — no such item, a pinned one (the user's pin wins), or one awaiting approval itself
 * — keeps the new fact and the old one alike. The background job's (`auto`) replacement of a fact that is the
 * user's own (typed, imported or approved: `isUsersFact`) is only proposed: a suggestion naming what it replaces.
 * `shape` gives each new item (by its index in the command) what only the host's caller may say of it: a learning
 * run's suggestions are pending and carry the run's id and the day they were true (lib/commands/learn.ts).
 */
export function addItems(
  state: State,
  cmd: CommandOf<'memory.add'>,
  ctx: OpContext,
  shape?: (item: MemoryItem, index: number) => void,
): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  if (cmd.items.length > slot.limit) {
    throw invalid('items', `has ${cmd.items.length} items, over the limit of ${slot.limit}`, slot.limit)
  }
  const defaults = arriving('user', ctx, slot.sessionId === undefined ? {} : { sessionId: slot.sessionId })
  refuseIncognito(state, cmd.items)
  const ask = asksFirst(state, targetOf(cmd.target), cmd.items, cmd.from)
  const stored = storedKeys(slot, cmd.items)
  const seen = new Set<string>()
  const added: MemoryItem[] = []
  const duplicates: string[] = []
  const gone = new Set<string>()
  const unresolved: string[] = []
  cmd.items.forEach(({ replaces, ...given }, index) => {
    const item = itemOf(given, defaults)
    shape?.(item, index)
    if (ask && (item.source === 'tool' || item.source === 'auto')) item.pending = true
    const key = normalizeMemory(item.text)
    if (stored.has(key) || seen.has(key)) return void duplicates.push(item.text)
    seen.add(key)
    added.push(item)
    if (replaces === undefined) return
    const old = itemById(slot.items, replaces)
    if (old === undefined || old.pinned === true || old.pending === true || gone.has(old.id)) unresolved.push(item.text)
    else if (item.pending === true) item.replaces = old.id
    else if (item.source === 'auto' && isUsersFact(old)) {
      // The background job only proposes to replace what the user typed, imported or approved: the user decides.
      item.pending = true
      item.replaces = old.id
    } else gone.add(old.id)
  })
  // A list on disk is counted from its rows (nothing is read); one in memory has its length.
  const total = (stored.onDisk ? itemTally(slot.items).items : slot.items.length) - gone.size + added.length
  if (total > slot.limit) {
    throw invalid(slot.field, `would hold ${total} items, over the limit of ${slot.limit}`, slot.limit)
  }
  // The facts that leave, in the order of the list, each looked up by id: the list itself is not walked.
  const leaving = [...gone].map((id) => indexOfItem(slot.items, id)).sort((a, b) => a - b)
  const replaced = leaving.map((i) => slot.items[i]!)
  const extra = { added, duplicates, replaced, unresolved }
  if (added.length === 0) {
    return { state, notice: notice('memory.duplicate'), extra, changed: false }
  }
  const onDisk = stored.onDisk ? appendedKeepingRows(slot.items, added) : undefined
  const items =
    onDisk ??
    (gone.size === 0
      ? appended(slot.items, added)
      : edited(slot.items, [
          ...leaving.map((at): Edit => ({ at, cut: 1, put: [] })),
          { at: slot.items.length, cut: 0, put: added },
        ]))
  return {
    state: slot.write(items),
    notice: notice('memory.added', { count: added.length, replaced: replaced.length, duplicates: duplicates.length }),
    extra,
    changed: true,
  }
}

/**
 * The item `wanted` of a list still on disk, read by id without the list (an edit or a removal of one item of
 * years of memory then reads none of the rest); undefined when the list is not on disk.
 */
function itemKeptOnDisk(slot: Slot, wanted: string): MemoryItem | undefined {
  const found = itemOnDisk(slot.items, wanted)
  if (found === undefined) return undefined
  if (found.item === undefined) throw noItem(wanted)
  return found.item
}

function update(state: State, cmd: CommandOf<'memory.update'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const kept = itemKeptOnDisk(slot, cmd.itemId)
  if (kept?.text === cmd.text) return { state, notice: notice('memory.unchanged'), changed: false }
  // On disk, a text no row says (by the rows' keys, or else their compared forms) is said by no other item; a hit
  // reads the list to tell.
  const form = normalizeMemory(cmd.text)
  const said = kept === undefined ? undefined : saidOnDisk(slot.items, new Set([form]))
  const keys = kept === undefined || said !== undefined ? undefined : keysOnDisk(slot.items)
  if (kept !== undefined && (said === false || (keys !== undefined && !keys.has(form)))) {
    const items = editedKeepingRows(slot.items, kept, { ...kept, text: cmd.text })
    return { state: slot.write(items), notice: notice('memory.updated'), changed: true }
  }
  const at = itemIndex(slot, cmd.itemId)
  const value = cmd.text
  const old = slot.items[at]!
  if (value === old.text) return { state, notice: notice('memory.unchanged'), changed: false }
  if (othersSay(slot.items, value, [old])) {
    throw brokeRule('conflict', 'text: another memory item already says this', 'text', 'memory.same')
  }
  const items = replacedAt(slot.items, at, { ...old, text: value })
  return { state: slot.write(items), notice: notice('memory.updated'), changed: true }
}

function remove(state: State, cmd: CommandOf<'memory.remove'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const kept = itemKeptOnDisk(slot, cmd.itemId)
  return {
    state: slot.write(
      kept === undefined ? removedAt(slot.items, itemIndex(slot, cmd.itemId)) : removedKeepingRows(slot.items, kept),
    ),
    notice: notice('memory.removed'),
    changed: true,
  }
}

function clear(state: State, cmd: CommandOf<'memory.clear'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const n = notice('memory.cleared')
  const t = targetOf(cmd.target)
  if ('profileId' in t) {
    const p = findProfile(state, t.profileId, 'target.profileId')
    if (p.memory.summary === '' && p.memory.items.length === 0) return { state, notice: n, changed: false }
    return {
      state: withProfile(state, { ...p, memory: { summary: '', items: [] }, updatedAt: ctx.now }),
      notice: n,
      changed: true,
    }
  }
  if (slot.items.length === 0) return { state, notice: n, changed: false }
  return { state: slot.write([]), notice: n, changed: true }
}

/**
 * An editor's list `next`, started from the items `basedOn`, applied to the list saved now (`current`): items saved
 * meanwhile (not in `basedOn`) stay, items the editor deleted (in `basedOn`, not in `next`) go, items in `next` take
 * the editor's text, and the editor's new items are appended (one that says what an item saved meanwhile says is
 * dropped as a duplicate). An item the editor started from that someone removed meanwhile (another tab, a
 * compression) stays removed: resending it unchanged must not undo that removal.
 */
export function rebaseItems(
  current: readonly MemoryItem[],
  next: readonly MemoryItem[],
  basedOn: ReadonlySet<string>,
  field: string,
  limit: number,
  ctx: OpContext,
): MemoryItem[] {
  const mine = new Map(next.map((it) => [it.id, it]))
  const kept = current.flatMap((it) => mine.get(it.id) ?? (basedOn.has(it.id) ? [] : [it]))
  const saved = new Set(current.map((it) => it.id))
  const items = [
    ...kept,
    ...carry(
      kept,
      next.filter((it) => !saved.has(it.id) && !basedOn.has(it.id)),
      ctx,
    ),
  ]
  if (items.length > limit) {
    throw invalid(
      field,
      `would hold ${items.length} items with those saved meanwhile, over the limit of ${limit}`,
      limit,
    )
  }
  return items
}

/** The `memory.*` commands this module runs. */
type MemoryCommand = CommandOf<
  | 'memory.add'
  | 'memory.update'
  | 'memory.remove'
  | 'memory.clear'
  | 'memory.compress'
  | 'memory.approve'
  | 'memory.undo'
>

/** Apply one `memory.*` command. */
export function applyMemoryCommand(state: State, cmd: MemoryCommand, ctx: OpContext): OpResult {
  switch (cmd.op) {
    case 'memory.add':
      return addItems(state, cmd, ctx)
    case 'memory.update':
      return update(state, cmd, ctx)
    case 'memory.remove':
      return remove(state, cmd, ctx)
    case 'memory.clear':
      return clear(state, cmd, ctx)
    case 'memory.compress':
      return compress(state, cmd, ctx)
    case 'memory.approve':
      return approve(state, cmd, ctx)
    default:
      return undo(state, cmd, ctx)
  }
}
