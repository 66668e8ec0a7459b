/**
 * The editor's draft: which profile is being edited, the saved version it started from, the edited copy, and the
 * memory items the user changed (only those: a profile holds up to 10,000, see memory-draft.ts); whether it differs;
 * and the patch that saves it. Owns the rule that saving sends only what the user changed, and memory edits with the
 * item ids they touched (`basedOn`), so the host keeps every other item as it is saved — ones the background job
 * added while the user typed, archived ones the page never loaded — and a save never drops anything saved by someone
 * else. Kept outside React so a draft survives the settings dialog being closed and reopened (so are the other
 * surfaces' drafts: About you, the ⚙ panel). It never talks HTTP.
 */
import type { ModelChoice, Profile } from '../../state/model.ts'
import { sameToolSettings } from '../../shared/tool-profiles.ts'
import { EDITABLE_FIELDS, type EditableField, type ProfileUpdate } from '../../shared/command-inputs.ts'
import { draftSave, isEmptyDraft, NO_EDITS, type MemoryDraft } from './memory-draft.ts'

/** An unsaved edit of one profile. */
export interface Draft {
  /** The profile as saved when editing started. */
  base: Profile
  /** The edited copy. */
  value: Profile
  /** The saved profile the draft was last brought up to date with, when that is not `base` (see rebaseDraft). */
  seen?: Profile
  /** The memory items the user edited, deleted or added (absent: none). `value.memory` carries only the summary edit. */
  items?: MemoryDraft
}

/** The editable fields the editor compares whole, each in its own way: the memory, the tool settings, the model. */
const STRUCTURED = ['memory', 'tools', 'model'] as const
type Structured = (typeof STRUCTURED)[number]

/** Scalar fields the editor changes, compared and patched one by one: every other editable field. */
const SCALAR_FIELDS = EDITABLE_FIELDS.filter(
  (k): k is Exclude<EditableField, Structured> => !(STRUCTURED as readonly string[]).includes(k),
)

/** A part of a profile the editor compares on its own: one scalar field, the memory, the tool settings or the model. */
export type DraftField = (typeof SCALAR_FIELDS)[number] | Structured

/** True when two model choices are the same (absent is "the conversation's model"). */
function sameModel(a: ModelChoice | undefined, b: ModelChoice | undefined): boolean {
  return (
    a?.provider === b?.provider &&
    a?.model === b?.model &&
    a?.reasoningEffort === b?.reasoningEffort &&
    a?.temperature === b?.temperature
  )
}

/** The parts the draft changed, in the order of {@link SCALAR_FIELDS}, then memory, tools and model; none for no draft. */
export function changedFields(draft: Draft | null): DraftField[] {
  if (draft === null) return []
  // An absent memoryMode is `auto`: choosing `auto` on a profile that never chose is no change.
  const same = (f: (typeof SCALAR_FIELDS)[number]) =>
    f === 'memoryMode'
      ? (draft.value.memoryMode ?? 'auto') === (draft.base.memoryMode ?? 'auto')
      : draft.value[f] === draft.base[f]
  const changed: DraftField[] = SCALAR_FIELDS.filter((f) => !same(f))
  if (draft.value.memory.summary !== draft.base.memory.summary || !isEmptyDraft(draft.items ?? NO_EDITS))
    changed.push('memory')
  if (!sameToolSettings(draft.value.tools, draft.base.tools)) changed.push('tools')
  if (!sameModel(draft.value.model, draft.base.model)) changed.push('model')
  return changed
}

/**
 * Bring a draft up to date with `saved`, the profile as saved now (changed elsewhere while the user edits): the
 * fields the user did not touch take the saved values, the fields they changed keep theirs. A field both sides changed
 * differently is a conflict the user decides. The memory is never one: a memory edit saves only the items it touched
 * and the host keeps the rest as saved, so the draft keeps its item changes and its starting summary as `base`.
 */
export function rebaseDraft(draft: Draft, saved: Profile): { draft: Draft; conflicts: DraftField[] } {
  const changed = changedFields(draft)
  // Saved as the draft has it (this page's own save, or the same edit elsewhere) is no conflict.
  const conflicts = changed.filter(
    (f) =>
      f !== 'memory' &&
      (f === 'tools'
        ? !sameToolSettings(saved.tools, draft.base.tools) && !sameToolSettings(saved.tools, draft.value.tools)
        : f === 'model'
          ? !sameModel(saved.model, draft.base.model) && !sameModel(saved.model, draft.value.model)
          : saved[f] !== draft.base[f] && saved[f] !== draft.value[f]),
  )
  const value: Profile = { ...saved }
  const own = value as unknown as Record<DraftField, unknown>
  for (const f of changed) own[f] = draft.value[f]
  // The items are the saved ones (the draft holds only the user's changes to them); the summaries stay the draft's.
  if (changed.includes('memory')) value.memory = { summary: draft.value.memory.summary, items: saved.memory.items }
  const base = changed.includes('memory')
    ? { ...saved, memory: { summary: draft.base.memory.summary, items: saved.memory.items } }
    : saved
  return {
    draft: { base, value, seen: saved, ...(draft.items === undefined ? {} : { items: draft.items }) },
    conflicts,
  }
}

/** True when the draft holds an edit. */
export function isDirty(draft: Draft | null): boolean {
  return changedFields(draft).length > 0
}

/**
 * The `profile.update` patch for `draft`. A memory edit carries the items the user changed with `basedOn`, the ids it
 * touched (always, even for a summary edit alone: without it the host would take the items as the whole list), and
 * its summary only when the user changed it: the host keeps every other item and a summary a compression wrote.
 */
export function buildPatch(draft: Draft): ProfileUpdate {
  const patch: Partial<Record<keyof Profile, unknown>> & Pick<ProfileUpdate, 'basedOn'> = {}
  const {
    base: { memory: before },
    value: { memory: after },
  } = draft
  for (const field of changedFields(draft)) {
    if (field === 'memory') {
      const { items, basedOn } = draftSave(draft.items ?? NO_EDITS)
      patch.memory = after.summary === before.summary ? { items } : { summary: after.summary, items }
      patch.basedOn = basedOn
    } else if (field === 'model') {
      // Absent means "the conversation's model": the host removes the saved one on null.
      patch.model = draft.value.model ?? null
    } else {
      patch[field] = draft.value[field]
    }
  }
  return patch as ProfileUpdate
}

/**
 * Drafts kept across mounts, one per surface: `profile` (the editor's {@link Draft}), `about` (About you's items),
 * `panel:<sessionId>` (a conversation's ⚙ panel), and the text typed in a memory list's add box but not yet added
 * (`<surface>:typed`, see {@link typedText}: typed text is a draft too). A surface unmounts when the settings dialog or the panel closes,
 * and an edit must not vanish with it: the surface starts again from what it kept here.
 */
const kept = new Map<string, unknown>()

/** The draft the surface `key` left open when it last unmounted, if any. */
export function keptDraft<V>(key: string): V | undefined {
  return kept.get(key) as V | undefined
}

/** Keep (or, with undefined, forget) the open draft of the surface `key` across its mounts. */
export function keepSurfaceDraft<V>(key: string, draft: V | undefined): void {
  if (draft === undefined) kept.delete(key)
  else kept.set(key, draft)
}

/** The surface key of one profile's memory list in the editor (its add box's typed text is kept under it). */
export const profileSurface = (profileId: string): string => `profile:${profileId}`

/** Where a surface keeps the text typed in its memory add box and not yet added (a draft of its own). */
const typedKey = (surface: string): string => `${surface}:typed`

/** The text typed in the add box of the surface `surface` and not yet added, if any (blank is none). */
export function typedText(surface: string): string | undefined {
  return keptDraft<string>(typedKey(surface))
}

/** Keep the add box's text of the surface `surface` across its mounts (blank or undefined forgets it). */
export function keepTyped(surface: string, text: string | undefined): void {
  keepSurfaceDraft(typedKey(surface), text === undefined || text.trim() === '' ? undefined : text)
}

/** The profile draft left open when the page was last closed, if any. */
export function pendingDraft(): Draft | null {
  return keptDraft<Draft>('profile') ?? null
}

/** Remember (or, with null, forget) the open profile draft across mounts of the page. */
export function keepDraft(draft: Draft | null): void {
  keepSurfaceDraft('profile', draft ?? undefined)
}
