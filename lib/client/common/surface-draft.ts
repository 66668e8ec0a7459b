/**
 * React hook of a draft surface that is not the profile editor (About you, a conversation's ⚙ panel): the saved
 * value the edit started from, the edited value, and whether they differ; kept outside React (editing.ts) while it
 * differs, so closing the settings dialog or the panel never drops it, and following what is saved while it does not
 * (the model and other tabs write meanwhile) — and while it does, in the parts the user did not touch, when the
 * surface says how (`follow`). It never saves: the surface does, then `restart`s from the answer.
 */
import { useCallback, useEffect, useState } from 'react'
import { keepSurfaceDraft, keptDraft } from './editing.ts'

/** How a surface compares its values. */
export interface SurfaceRules<V> {
  /** True when `value` holds an edit of `base`. */
  changed(base: V, value: V): boolean
  /** True when `saved` is still what `base` started from (nothing to follow). */
  current(saved: V, base: V): boolean
  /**
   * The open draft brought up to date with `saved` when that changed meanwhile: the parts the user did not touch take
   * the saved values, the parts they changed keep theirs (the same draft when there is nothing to take). Without it,
   * a draft that holds an edit keeps showing what was saved when it started.
   */
  follow?(saved: V, draft: { base: V; value: V }): { base: V; value: V }
}

/** One surface's draft. */
export interface SurfaceDraft<V> {
  base: V
  value: V
  dirty: boolean
  /** Replace the edited value. */
  edit(value: V): void
  /** Start over from `saved` (after a save, or to discard). */
  restart(saved: V): void
}

/** The draft of the surface `key` (e.g. `about`, `panel:<sessionId>`) over `saved`; a new key needs a new mount. */
export function useSurfaceDraft<V>(key: string, saved: V, rules: SurfaceRules<V>): SurfaceDraft<V> {
  const [draft, setDraft] = useState<{ base: V; value: V }>(
    () => keptDraft<{ base: V; value: V }>(key) ?? { base: saved, value: saved },
  )
  const { changed, current, follow } = rules
  const dirty = changed(draft.base, draft.value)
  useEffect(() => {
    keepSurfaceDraft(key, dirty ? draft : undefined)
  }, [key, dirty, draft])
  useEffect(() => {
    if (current(saved, draft.base)) return
    if (!dirty) {
      setDraft({ base: saved, value: saved })
      return
    }
    const next = follow?.(saved, draft) ?? draft
    if (next !== draft) setDraft(next)
  }, [dirty, saved, draft, current, follow])
  const edit = useCallback((value: V) => {
    setDraft((d) => ({ ...d, value }))
  }, [])
  const restart = useCallback((next: V) => {
    setDraft({ base: next, value: next })
  }, [])
  return { base: draft.base, value: draft.value, dirty, edit, restart }
}
