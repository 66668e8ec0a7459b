/**
 * React hook of the settings page's guard against losing work: a profile draft, About you's draft and a fact typed
 * in a memory add box and not yet added all count as unsaved. It asks before a draft is left behind (choosing another
 * profile, a restore, closing the page with Escape) and has the browser ask before a tab with one is reloaded or
 * closed. It drops a draft only once the user said so, and never renders.
 */
import { useCallback, useEffect, useRef } from 'react'
import type { ProfileHead } from '../../shared/wire-state.ts'
import type { Draft } from '../common/editing.ts'
import { keepSurfaceDraft, keepTyped, profileSurface, typedText } from '../common/editing.ts'
import type { AskOptions } from '../common/ConfirmDialog.tsx'
import { useT } from '../copy/locales.ts'
import { ABOUT_DRAFT } from './AboutYou.tsx'

/** What the guard reads of the page. */
export interface LeaveGuardOptions {
  chosen: ProfileHead | undefined
  liveDraft: Draft | null
  dirty: boolean
  setDraft(next: Draft | null): void
  /** About you holds unsaved edits. */
  aboutDirty: boolean
  ask(message: string, options?: AskOptions): Promise<boolean>
  /** A question is open already: Escape is its to answer. */
  dialogOpen: boolean
  /** Closes the settings dialog. */
  close: (() => void) | undefined
}

/**
 * The guard; resolves to whether the profile's draft (and a typed fact) may be left behind, asking first and dropping
 * them when the user agrees.
 */
export function useLeaveGuard(o: LeaveGuardOptions): () => Promise<boolean> {
  const t = useT()
  const { chosen, liveDraft, setDraft, ask, dialogOpen, close } = o
  const dirtyRef = useRef(o.dirty)
  dirtyRef.current = o.dirty
  const aboutDirtyRef = useRef(o.aboutDirty)
  aboutDirtyRef.current = o.aboutDirty

  const chosenId = chosen?.id
  const profileTyped = useCallback(
    (): boolean => chosenId !== undefined && typedText(profileSurface(chosenId)) !== undefined,
    [chosenId],
  )
  const unsaved = useCallback(
    (): boolean => dirtyRef.current || aboutDirtyRef.current || profileTyped() || typedText(ABOUT_DRAFT) !== undefined,
    [profileTyped],
  )

  const confirmLeave = useCallback(async (): Promise<boolean> => {
    const edited = dirtyRef.current && liveDraft !== null
    if (!edited && !profileTyped()) return true
    const shown = liveDraft?.value.name ?? chosen?.name ?? ''
    const name = shown.trim() === '' ? t('list.unnamed') : shown
    if (!(await ask(t('confirm.unsaved', { name }), { confirmLabel: t('action.discard'), danger: true }))) return false
    setDraft(null)
    if (chosenId !== undefined) keepTyped(profileSurface(chosenId), undefined)
    return true
  }, [ask, liveDraft, setDraft, t, chosen?.name, chosenId, profileTyped])

  /** Closing the page: the profile draft, then About you's, each asked about before it is dropped. */
  const confirmClose = useCallback(async (): Promise<boolean> => {
    if (!(await confirmLeave())) return false
    if (!aboutDirtyRef.current && typedText(ABOUT_DRAFT) === undefined) return true
    if (!(await ask(t('confirm.unsavedAbout'), { confirmLabel: t('action.discard'), danger: true }))) return false
    keepSurfaceDraft(ABOUT_DRAFT, undefined)
    keepTyped(ABOUT_DRAFT, undefined)
    return true
  }, [ask, confirmLeave, t])

  // Leaving the page: Escape (the shell's close key) asks first; a tab reload or close gets the browser's prompt.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || !unsaved() || dialogOpen) return
      e.preventDefault()
      e.stopImmediatePropagation()
      void confirmClose().then((left) => {
        if (left) close?.()
      })
    }
    const onUnload = (e: BeforeUnloadEvent): void => {
      if (!unsaved()) return
      e.preventDefault()
      e.returnValue = ''
    }
    document.addEventListener('keydown', onKey, true)
    window.addEventListener('beforeunload', onUnload)
    return () => {
      document.removeEventListener('keydown', onKey, true)
      window.removeEventListener('beforeunload', onUnload)
    }
  }, [close, confirmClose, dialogOpen, unsaved])

  return confirmLeave
}
