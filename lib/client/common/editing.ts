/**
 * The editor's draft: which profile is being edited, the saved version it started from, and the edited copy;
 * whether it differs; and the patch that saves it. Owns the rule that saving sends only what the user changed,
 * and memory edits with the item ids they started from, so the host merges them into the memory saved meanwhile
 * (the background job may add items while the user types) and a save never drops anything saved by someone else.
 * Kept outside React so a draft survives the settings dialog being closed and reopened. It never talks HTTP.
 */
import type { Memory, MemoryItem, Profile } from '../../shared/model.ts'
import { sameToolSettings } from '../../shared/tool-profiles.ts'
import type { ProfileUpdate } from '../../shared/contract.ts'

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
 * The `profile.update` patch for `draft`. A memory edit carries `basedOn`, the items it started from, and its
 * summary only when the user changed it: the host keeps items saved meanwhile and a summary a compression wrote.
 */
export function buildPatch(draft: Draft): ProfileUpdate {
  const patch: Partial<Record<keyof Profile, unknown>> & Pick<ProfileUpdate, 'basedOn'> = {}
  for (const field of SCALAR_FIELDS) {
    if (draft.value[field] !== draft.base[field]) patch[field] = draft.value[field]
  }
  const { base: { memory: before }, value: { memory: after } } = draft
  if (!sameMemory(after, before)) {
    patch.memory = after.summary === before.summary ? { items: after.items } : after
    patch.basedOn = before.items.map((item) => item.id)
  }
  if (!sameToolSettings(draft.value.tools, draft.base.tools)) patch.tools = draft.value.tools
  return patch as ProfileUpdate
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
