/**
 * One memory list changed at the cost of the change, not of the list: finding an item by id, and the new list of an
 * edit, a delete, an append or a replacement (a fact gone from the middle, its successor appended), each made by the
 * engine's own copy (no callback per item; a spread, which stays fast on the frozen lists of the state where `slice`,
 * `with` and `toSpliced` read them element by element), marked with the parts it changed in the old list
 * (list-ends.ts) and handed the old list's compared texts (memory-text.ts) and ids. So an edit in 10,000 items looks
 * at the one item it changes: the duplicate check, the freeze, the history and the row write after it compare
 * nothing else. It owns that bookkeeping only; it never decides what a command does.
 */
import type { MemoryItem } from '../state/model.ts'
import { markAppended, markEdits, markSpliced } from '../state/list-ends.ts'
import { handKeysOn, normalizeMemory, normalizedItem } from '../shared/memory-text.ts'
import {
  appendedItemsOnDisk,
  changesOnDisk,
  editedItemOnDisk,
  removedItemOnDisk,
  storedSays,
  storedTexts,
} from '../state/items-on-disk.ts'
import { itemsWithIds } from '../state/lazy-list.ts'

/**
 * Each list's items by id, made once per list and moved to the list a command made from it, as the compared texts
 * are: a list of 10,000 is walked once, not at every edit. Read it, never change it from outside.
 */
const byId = new WeakMap<readonly MemoryItem[], Map<string, MemoryItem>>()

function idsOf(items: readonly MemoryItem[]): Map<string, MemoryItem> {
  let ids = byId.get(items)
  if (ids === undefined) {
    ids = new Map()
    // The first of one id wins, as a search from the start finds it (ids are unique in a list; this is the fallback).
    for (const it of items) if (!ids.has(it.id)) ids.set(it.id, it)
    byId.set(items, ids)
  }
  return ids
}

/** Move the ids of `before` to `next`, which lacks `gone` and has `added` besides. */
function handIdsOn(
  before: readonly MemoryItem[],
  next: readonly MemoryItem[],
  added: readonly MemoryItem[],
  gone: readonly MemoryItem[],
): void {
  const ids = byId.get(before)
  if (ids === undefined) return
  byId.delete(before)
  for (const it of gone) ids.delete(it.id)
  for (const it of added) ids.set(it.id, it)
  byId.set(next, ids)
}

/** Where the item `id` is in `items`, or -1: a look-up by id, then the engine's search for that one object. */
export function indexOfItem(items: readonly MemoryItem[], id: string): number {
  const item = idsOf(items).get(id)
  return item === undefined ? -1 : items.indexOf(item)
}

/** The item `id` of `items`, or undefined: a look-up by id. */
export function itemById(items: readonly MemoryItem[], id: string): MemoryItem | undefined {
  return idsOf(items).get(id)
}

/** A change at one place of a list: `cut` items from `at` on taken out, `put` put there. */
export interface Edit {
  at: number
  cut: number
  put: readonly MemoryItem[]
}

/**
 * `items` with each of `edits` applied (in order of `at`, none overlapping; `at` may be the list's length, an
 * append): a suggestion approved where it stands and the fact it replaces gone, or one fact gone from the middle and
 * its replacement appended, in one list that shares everything else with the old one without a comparison.
 */
export function edited(items: readonly MemoryItem[], edits: readonly Edit[]): MemoryItem[] {
  const next = [...items]
  // From the last edit back, so that each `at` still says where its place is.
  for (let i = edits.length - 1; i >= 0; i--) next.splice(edits[i]!.at, edits[i]!.cut, ...edits[i]!.put)
  markEdits(
    items,
    next,
    edits.map(({ at, cut, put }) => ({ at, cut, put: put.length })),
  )
  const gone = edits.flatMap(({ at, cut }) => items.slice(at, at + cut))
  const added = edits.flatMap(({ put }) => put)
  handKeysOn(items, next, added, gone)
  handIdsOn(items, next, added, gone)
  return next
}

/** `items` with its item at `at` replaced by `item`. */
export function replacedAt(items: readonly MemoryItem[], at: number, item: MemoryItem): MemoryItem[] {
  const old = items[at]!
  const next = [...items]
  next[at] = item
  markSpliced(items, next, at, 1, 1)
  handKeysOn(items, next, [item], [old])
  handIdsOn(items, next, [item], [old])
  return next
}

/** `items` without its item at `at`. */
export function removedAt(items: readonly MemoryItem[], at: number): MemoryItem[] {
  const old = items[at]!
  const next = [...items]
  next.splice(at, 1)
  markSpliced(items, next, at, 1, 0)
  handKeysOn(items, next, [], [old])
  handIdsOn(items, next, [], [old])
  return next
}

/** `items` with `added` appended. */
export function appended(items: readonly MemoryItem[], added: readonly MemoryItem[]): MemoryItem[] {
  const next = [...items, ...added]
  markAppended(items, next)
  handKeysOn(items, next, added)
  handIdsOn(items, next, added, [])
  return next
}

/**
 * The compared forms of every row of a list still on disk, made once per list from the rows' texts alone (no row
 * read into the state nor checked) and moved to the list an append on disk makes from it. Every item a read of the
 * list would give says one of them, so a text none of them says is in no item of the list; a row the read would set
 * aside may add one, so a text one of them says needs the list itself to tell.
 */
const onDisk = new WeakMap<readonly MemoryItem[], Set<string>>()

/** The compared forms of the rows of `items` (see {@link onDisk}), or undefined when it is not a list on disk. */
export function keysOnDisk(items: readonly MemoryItem[]): ReadonlySet<string> | undefined {
  let keys = onDisk.get(items)
  if (keys === undefined) {
    const texts = storedTexts(items)
    if (texts === undefined) return undefined
    keys = new Set(texts.map(normalizeMemory))
    onDisk.set(items, keys)
  }
  return keys
}

/**
 * Whether a row of a list still on disk (other than those of the ids `except`) says one of the compared forms `forms`,
 * found through the rows' keys without
 * reading the others (a save into years of memory then reads none of it); a superset of the list's, as
 * {@link keysOnDisk}: false is exact, true needs the list to tell. Undefined when the rows cannot tell so (the list
 * is not on disk, or its rows' keys are not all filled yet): the caller asks {@link keysOnDisk}.
 */
export function saidOnDisk(
  items: readonly MemoryItem[],
  forms: ReadonlySet<string>,
  except?: ReadonlySet<string>,
): boolean | undefined {
  return storedSays(items, { forms, formOf: normalizeMemory, ...(except && { except }) })
}

/** `items` with `added` appended and its rows left on disk (items-on-disk.ts), or undefined when it is not on disk. */
export function appendedKeepingRows(
  items: readonly MemoryItem[],
  added: readonly MemoryItem[],
): MemoryItem[] | undefined {
  const next = appendedItemsOnDisk(items, added)
  if (next !== undefined) moveKeys(items, next, added)
  return next
}

/**
 * The item `id` of a list still on disk, read by id (a few rows), as `{ item }` (`item` undefined: no such item);
 * undefined when the list is not one that can be changed on disk (the caller looks in the list).
 */
export function itemOnDisk(items: readonly MemoryItem[], id: string): { item?: MemoryItem } | undefined {
  if (!changesOnDisk(items)) return undefined
  const found = itemsWithIds(items, [id])
  return found === undefined ? undefined : { item: found.get(id) }
}

/** `items` with `was` (read by {@link itemOnDisk}) replaced by `now` and its rows left on disk; the compared forms kept. */
export function editedKeepingRows(items: readonly MemoryItem[], was: MemoryItem, now: MemoryItem): MemoryItem[] {
  const next = editedItemOnDisk(items, was, now)!
  // The old text's form stays: the forms are a superset of the list's, and a hit reads the list to tell.
  moveKeys(items, next, [now])
  return next
}

/** `items` without `item` (read by {@link itemOnDisk}) and its rows left on disk; the compared forms kept. */
export function removedKeepingRows(items: readonly MemoryItem[], item: MemoryItem): MemoryItem[] {
  const next = removedItemOnDisk(items, item)!
  moveKeys(items, next, [])
  return next
}

/** Move the compared forms of the rows of `items` to `next`, with those of `added`. */
function moveKeys(items: readonly MemoryItem[], next: readonly MemoryItem[], added: readonly MemoryItem[]): void {
  const keys = onDisk.get(items)
  if (keys === undefined) return
  onDisk.delete(items)
  for (const it of added) keys.add(normalizedItem(it))
  onDisk.set(next, keys)
}
