/**
 * The editor's draft: which profile is being edited, the saved version it started from, and the edited copy;
 * whether it differs; and the patch that saves it. Owns the rule that saving sends only what the user changed
 * and rebases memory edits onto the memory saved meanwhile (the background job may add items while the user
 * types), so a save never drops anything saved by someone else. Kept outside React so a draft survives the
 * settings dialog being closed and reopened. It never talks HTTP.
 */
import type { Memory, MemoryItem, Profile } from '../model.ts'
import { sameToolSettings } from '../tool-profiles.ts'

/** An unsaved edit of one profile. */
export interface Draft {
  /** The profile as saved when editing started. */
  base: Profile
  /** The edited copy. */
  value: Profile
}

/** Scalar fields the editor changes, compared and patched one by one. */
export const SCALAR_FIELDS = ['name', 'emoji', 'avatar', 'role', 'personality', 'speakingStyle', 'rules', 'memoryEnabled'] as const

const sameItems = (a: readonly MemoryItem[], b: readonly MemoryItem[]): boolean =>
  a.length === b.length && a.every((item, i) => item.id === b[i]!.id && item.text === b[i]!.text)

/** True when two memories hold the same summary and the same items in the same order. */
export function sameMemory(a: Memory, b: Memory): boolean {
  return a.summary === b.summary && sameItems(a.items, b.items)
}

/** True when the draft holds an edit. */
export function isDirty(draft: Draft | null): boolean {
  if (draft === null) return false
  return SCALAR_FIELDS.some((f) => draft.value[f] !== draft.base[f]) || !sameMemory(draft.value.memory, draft.base.memory)
    || !sameToolSettings(draft.value.tools, draft.base.tools)
}

/**
 * Apply the user's memory edits (`mine` against `base`) to the memory saved now (`theirs`): their new items stay,
 * items the user deleted go, items the user edited take the user's text, the user's new items are appended.
 */
export function rebaseMemory(base: Memory, mine: Memory, theirs: Memory): Memory {
  const baseById = new Map(base.items.map((item) => [item.id, item]))
  const mineById = new Map(mine.items.map((item) => [item.id, item]))
  const kept = theirs.items
    .filter((item) => !baseById.has(item.id) || mineById.has(item.id))
    .map((item) => {
      const edited = mineById.get(item.id)
      return edited !== undefined && edited.text !== baseById.get(item.id)?.text ? { ...item, text: edited.text } : item
    })
  const theirIds = new Set(theirs.items.map((item) => item.id))
  const added = mine.items.filter((item) => !baseById.has(item.id) && !theirIds.has(item.id))
  return { summary: mine.summary !== base.summary ? mine.summary : theirs.summary, items: [...kept, ...added] }
}

/** The `profile.update` patch for `draft`, against `current`, the profile as saved now. */
export function buildPatch(draft: Draft, current: Profile): Partial<Profile> {
  const patch: Partial<Record<keyof Profile, unknown>> = {}
  for (const field of SCALAR_FIELDS) {
    if (draft.value[field] !== draft.base[field]) patch[field] = draft.value[field]
  }
  if (!sameMemory(draft.value.memory, draft.base.memory)) {
    patch.memory = rebaseMemory(draft.base.memory, draft.value.memory, current.memory)
  }
  if (!sameToolSettings(draft.value.tools, draft.base.tools)) patch.tools = draft.value.tools
  return patch as Partial<Profile>
}

let pending: Draft | null = null

/** The draft left open when the page was last closed, if any. */
export function pendingDraft(): Draft | null {
  return pending
}

/** Remember (or, with null, forget) the open draft across mounts of the page. */
export function keepDraft(draft: Draft | null): void {
  pending = draft
}
