/**
 * The unsaved edits of one memory list (a profile's, the user layer, a conversation's) as only what the user changed:
 * the items edited (text, pin or search keys), the ids deleted, the items added. A list of 10,000 items is never copied into a
 * draft: the settings list reads its items a window at a time from the search route and lays this draft over them.
 * Owns how such a draft changes, how it is shown over a saved item, and the save it makes: the changed items with
 * `basedOn` naming only the ids it touched, so the host keeps every other item as saved (see `rebaseItems`). Plain
 * immutable values; it never renders and never talks HTTP.
 */
import type { MemoryItem } from '../../state/model.ts'

/** What the user changed in one memory list; every part empty for no change. */
export interface MemoryDraft {
  /** Item id → the item as the user made it (the saved item with its new text or pin). */
  readonly edited: ReadonlyMap<string, MemoryItem>
  /** Ids of saved items the user deleted. */
  readonly removed: ReadonlySet<string>
  /** Items the user added, newest first (their ids are the page's own until the host assigns one). */
  readonly added: readonly MemoryItem[]
}

/** The draft with no change (one shared value, so an untouched editor keeps its props). */
export const NO_EDITS: MemoryDraft = Object.freeze({
  edited: new Map<string, MemoryItem>(),
  removed: new Set<string>(),
  added: [],
})

/** True when the draft changes nothing. */
export function isEmptyDraft(draft: MemoryDraft): boolean {
  return draft.edited.size === 0 && draft.removed.size === 0 && draft.added.length === 0
}

/** How many items the draft touches (edited, deleted, added). */
export function draftSize(draft: MemoryDraft): number {
  return draft.edited.size + draft.removed.size + draft.added.length
}

/** The item as `saved` with its pin set to `pinned` (an absent pin is no pin). */
function withPin(item: MemoryItem, pinned: boolean): MemoryItem {
  const { pinned: _was, ...rest } = item
  return pinned ? { ...rest, pinned: true } : rest
}

/** True when two versions of an item say the same (text, pin and search keys; no keys and none typed are alike). */
const sameItem = (a: MemoryItem, b: MemoryItem): boolean =>
  a.text === b.text && (a.pinned === true) === (b.pinned === true) && (a.keys ?? '') === (b.keys ?? '')

/**
 * The draft with `saved` changed to `next` (`change` applied to what the draft already shows for it): an added item is
 * changed in place; a saved item's edit is kept, or dropped again when it is back to the saved version.
 */
export function editItem(
  draft: MemoryDraft,
  saved: MemoryItem,
  change: { text?: string; pinned?: boolean; keys?: string },
): MemoryDraft {
  const before = shownItem(draft, saved)
  // Keys the user cleared stay in the draft as '' so the save says so (an item sent without keys keeps its stored ones).
  const next = withPin(
    {
      ...before,
      ...(change.text === undefined ? {} : { text: change.text }),
      ...(change.keys === undefined ? {} : { keys: change.keys }),
    },
    change.pinned ?? before.pinned === true,
  )
  if (draft.added.some((it) => it.id === saved.id)) {
    return { ...draft, added: draft.added.map((it) => (it.id === saved.id ? next : it)) }
  }
  const edited = new Map(draft.edited)
  if (sameItem(next, saved)) edited.delete(saved.id)
  else edited.set(saved.id, next)
  return { ...draft, edited }
}

/** The draft with `item` deleted: an added item is simply dropped; a saved one is marked (and restorable). */
export function removeItem(draft: MemoryDraft, item: MemoryItem): MemoryDraft {
  if (draft.added.some((it) => it.id === item.id))
    return { ...draft, added: draft.added.filter((it) => it.id !== item.id) }
  const removed = new Set(draft.removed)
  removed.add(item.id)
  return { ...draft, removed }
}

/** The draft with every one of `items` deleted (a search's matches, say), as {@link removeItem} each. */
export function removeItems(draft: MemoryDraft, items: readonly MemoryItem[]): MemoryDraft {
  const gone = new Set(items.map((it) => it.id))
  const removed = new Set(draft.removed)
  for (const it of items) if (!draft.added.some((a) => a.id === it.id)) removed.add(it.id)
  return { ...draft, added: draft.added.filter((it) => !gone.has(it.id)), removed }
}

/** The draft with the deletion of `id` taken back (its edit, if any, stays). */
export function restoreItem(draft: MemoryDraft, id: string): MemoryDraft {
  if (!draft.removed.has(id)) return draft
  const removed = new Set(draft.removed)
  removed.delete(id)
  return { ...draft, removed }
}

/** The draft with `item` added first. */
export function addItem(draft: MemoryDraft, item: MemoryItem): MemoryDraft {
  return { ...draft, added: [item, ...draft.added] }
}

/** What the list shows for a saved item: the draft's version when the user edited it. */
function shownItem(draft: MemoryDraft, saved: MemoryItem): MemoryItem {
  return draft.edited.get(saved.id) ?? saved
}

/**
 * A saved list (the core items a profile reply carries, for the preview and the meter) with the draft laid over it:
 * edits in place, deletions gone, additions after the rest.
 */
export function applyDraft(items: readonly MemoryItem[], draft: MemoryDraft): MemoryItem[] {
  if (isEmptyDraft(draft)) return [...items]
  return [
    ...items.flatMap((it) => (draft.removed.has(it.id) ? [] : [shownItem(draft, it)])),
    ...[...draft.added].reverse(),
  ]
}

/** One item of a save: its id when the host has it, its text, its pin, and its search keys when it has or had some. */
export type SentItem = { id?: string; text: string; pinned?: true; keys?: string }

/**
 * The save of the draft: the edited items with their ids and the added ones without (the host assigns ids), oldest
 * addition first, and `basedOn` — the ids of the saved items the draft touched. The host keeps every other item as it
 * is saved (archived ones, ones never loaded, ones saved meanwhile), so the save costs what was changed, not the list.
 */
export function draftSave(draft: MemoryDraft): { items: SentItem[]; basedOn: string[] } {
  const sent = (item: MemoryItem, id: boolean): SentItem => ({
    ...(id ? { id: item.id } : {}),
    text: item.text,
    ...(item.pinned === true ? { pinned: true as const } : {}),
    ...(item.keys === undefined ? {} : { keys: item.keys }),
  })
  const items = [
    ...[...draft.edited.values()].filter((it) => !draft.removed.has(it.id)).map((it) => sent(it, true)),
    ...[...draft.added].reverse().map((it) => sent(it, false)),
  ]
  return { items, basedOn: [...new Set([...draft.edited.keys(), ...draft.removed])] }
}
