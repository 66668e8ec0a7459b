/**
 * React hook of the settings page's profile selection and draft: which profile is chosen, the chosen profile whole
 * as saved (profiles.ts), the draft of it (kept while the page is closed, see editing.ts) and the fields a save made
 * elsewhere meanwhile clashed on. The draft follows the saved profile except where the user typed, and goes when its
 * profile does. It sends nothing and never renders.
 */
import { useCallback, useEffect, useState } from 'react'
import type { ProfileHead, WireState } from '../../shared/wire-state.ts'
import type { Profile } from '../../state/model.ts'
import { useProfile } from '../data/profiles.ts'
import {
  isDirty,
  changedFields,
  keepDraft,
  pendingDraft,
  rebaseDraft,
  type Draft,
  type DraftField,
} from '../common/editing.ts'

/** Fields of the open draft that were also saved elsewhere meanwhile; the user picks a version. */
interface Conflict {
  id: string
  fields: DraftField[]
}

/** The page's selection and draft. */
export interface ProfileDraft {
  /** The chosen profile: the one picked, else the default, else the first; undefined while the state loads. */
  chosen: ProfileHead | undefined
  /** The chosen profile whole, as saved; undefined while it is first fetched. */
  selected: Profile | undefined
  /** The draft of the chosen profile, or null when it has none. */
  liveDraft: Draft | null
  /** The parts the draft changed. */
  changed: DraftField[]
  dirty: boolean
  conflict: Conflict | null
  /** Choose the profile `id` (asking about a draft is the caller's part). */
  choose(id: string): void
  /** Replace the draft (null drops it, and its conflict with it). */
  setDraft(next: Draft | null): void
  /** Keep editing over a conflict: the notice goes, the draft stays. */
  keepEditing(): void
  /** Edit the chosen profile: `patch` over the draft's value, `items` as the draft's memory changes. */
  edit(patch: Partial<Profile>, items?: Draft['items']): void
}

/** The selection and draft of the page showing `state`. */
export function useProfileDraft(state: WireState | null): ProfileDraft {
  const [selectedId, setSelectedId] = useState<string | null>(() => pendingDraft()?.base.id ?? null)
  const [draft, setDraftState] = useState<Draft | null>(pendingDraft)
  const [conflict, setConflict] = useState<Conflict | null>(null)

  const setDraft = useCallback((next: Draft | null) => {
    keepDraft(next)
    setDraftState(next)
    if (next === null) setConflict(null)
  }, [])

  const profiles = state?.profiles ?? []
  const chosen: ProfileHead | undefined =
    profiles.find((p) => p.id === selectedId) ?? profiles.find((p) => p.id === state?.activeId) ?? profiles[0]
  const selected: Profile | undefined = useProfile(chosen?.id)
  const liveDraft = draft !== null && selected !== undefined && draft.base.id === selected.id ? draft : null
  const changed = changedFields(liveDraft)

  // Saved elsewhere while being edited: the draft follows the saved profile except where the user typed.
  useEffect(() => {
    if (liveDraft === null || selected === undefined || (liveDraft.seen ?? liveDraft.base) === selected) return
    const { draft: next, conflicts } = rebaseDraft(liveDraft, selected)
    setDraft(isDirty(next) ? next : null)
    if (conflicts.length > 0) setConflict({ id: selected.id, fields: conflicts })
  }, [liveDraft, selected, setDraft])

  // A draft of a profile that no longer exists (deleted elsewhere, replaced by an import) has nothing to save into.
  useEffect(() => {
    if (draft !== null && state !== null && !state.profiles.some((p) => p.id === draft.base.id)) setDraft(null)
  }, [draft, state, setDraft])

  const edit = (patch: Partial<Profile>, items = liveDraft?.items): void => {
    if (selected === undefined) return
    const base = liveDraft?.base ?? selected
    const next: Draft = {
      base,
      value: { ...(liveDraft?.value ?? selected), ...patch },
      ...(items === undefined ? {} : { items }),
    }
    setDraft(isDirty(next) ? next : null)
  }
  const keepEditing = (): void => setConflict(null)
  return {
    ...{ chosen, selected, liveDraft, changed, dirty: changed.length > 0, conflict },
    ...{ choose: setSelectedId, setDraft, keepEditing, edit },
  }
}
