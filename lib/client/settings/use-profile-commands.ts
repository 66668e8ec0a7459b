/**
 * React hook of the settings page's profile-level commands: save the draft, create, duplicate, delete, make default
 * (and give the default back to the one a new profile took it from), undo the last compression, and choosing another
 * profile; all on one busy state and outcome line ({@link useAction}). Each asks about an open draft before it leaves
 * it behind, and a save is one request: its reply's profile replaces the draft. It never renders.
 */
import { flushSync } from 'react-dom'
import { useState } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi } from '../data/api.ts'
import { profilesOf } from '../data/profiles.ts'
import { buildPatch } from '../common/editing.ts'
import { WINDOW_PAGE } from '../common/memory-window.ts'
import { noticeText } from '../common/feedback.ts'
import type { AskOptions } from '../common/ConfirmDialog.tsx'
import { useAction, type Action } from '../common/use-action.ts'
import { useT } from '../copy/locales.ts'
import { pinCounts } from './ProfileList.tsx'
import type { ProfileDraft } from './use-profile-draft.ts'

/** The profile + New profile just made the default, and the default it replaced. */
interface NewDefault {
  id: string
  previousId: string
  /** The replaced default's name as shown. */
  previous: string
}

/** The commands and their shared state. */
export interface ProfileCommands extends Pick<Action, 'busy' | 'outcome'> {
  newDefault: NewDefault | null
  select(id: string): Promise<void>
  save(): Promise<void>
  create(): Promise<void>
  /** Make `previousId` the default again (the profile a new one replaced). */
  restoreDefault(previousId: string): Promise<void>
  duplicate(): Promise<void>
  remove(): Promise<void>
  setDefault(): Promise<void>
  undoCompress(): Promise<void>
}

/** What the commands act on and how they ask. */
export interface ProfileCommandsOptions {
  state: WireState | null
  draft: ProfileDraft
  /** Resolves to whether the open draft may be left behind (asking first). */
  confirmLeave(): Promise<boolean>
  ask(message: string, options?: AskOptions): Promise<boolean>
}

/** The page's profile commands. */
export function useProfileCommands({ state, draft, confirmLeave, ask }: ProfileCommandsOptions): ProfileCommands {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run, clear } = useAction()
  const [newDefault, setNewDefault] = useState<NewDefault | null>(null)
  const { chosen, liveDraft, setDraft, choose } = draft
  const chosenId = chosen?.id ?? ''
  const shownName = (name: string): string => (name.trim() === '' ? t('list.unnamed') : name)

  const select = async (id: string): Promise<void> => {
    if (id === chosenId) return
    if (await confirmLeave()) {
      choose(id)
      clear()
    }
  }
  const save = (): Promise<void> =>
    run(async () => {
      if (liveDraft === null) return
      const id = liveDraft.base.id
      // A memory with an archive is more than the core the reply carries: its list's first rows come with it too.
      const ask = (profilesOf(client).kept(id)?.archived ?? 0) > 0 ? { window: WINDOW_PAGE } : {}
      const reply = await client.command('profile.update', { id, patch: buildPatch(liveDraft) }, ask)
      // The reply holds the profile as saved: the draft gives way to it at once, with no second request. Both in one
      // render, so the saved profile arriving is never taken for a save made elsewhere while the draft was open.
      flushSync(() => {
        setDraft(null)
        profilesOf(client).take(reply.saved)
      })
      return noticeText(t, reply.notice) || t('editor.saved')
    })
  // A new profile becomes the default (the design's rule). The editor it opens in says so under its title, with the
  // previous default back in one click, for as long as it is the default and open (see ProfileEditor's becameDefault).
  const create = (): Promise<void> =>
    run(async () => {
      if (!(await confirmLeave())) return
      const previous = state?.profiles.find((p) => p.id === state.activeId)
      const reply = await client.command('profile.create')
      choose(reply.profile.id)
      if (previous !== undefined)
        setNewDefault({ id: reply.profile.id, previousId: previous.id, previous: shownName(previous.name) })
      return noticeText(t, reply.notice)
    })
  const restoreDefault = (previousId: string): Promise<void> =>
    run(async () => {
      const reply = await client.command('profile.activate', { id: previousId })
      setNewDefault(null)
      return noticeText(t, reply.notice)
    })
  const duplicate = (): Promise<void> =>
    run(async () => {
      if (!(await confirmLeave())) return
      const reply = await client.command('profile.duplicate', { id: chosenId })
      choose(reply.profile.id)
      return noticeText(t, reply.notice)
    })
  // Asked before the page is busy: while the question is open nothing is being saved, and Save must not say so.
  const remove = async (): Promise<void> => {
    if (state === null || chosen === undefined) return
    const pinned = pinCounts(state).get(chosen.id) ?? 0
    const name = shownName(chosen.name)
    const question = pinned > 0 ? t('confirm.deleteUnbind', { name, count: pinned }) : t('confirm.delete', { name })
    if (!(await ask(question, { confirmLabel: t('action.delete'), danger: true }))) return
    await run(async () => {
      const reply = await client.command('profile.delete', { id: chosen.id })
      if (liveDraft !== null) setDraft(null)
      choose(reply.state.activeId)
      return noticeText(t, reply.notice)
    })
  }
  const setDefault = (): Promise<void> =>
    run(async () => noticeText(t, (await client.command('profile.activate', { id: chosenId })).notice))
  const undoCompress = (): Promise<void> =>
    run(async () => noticeText(t, (await client.command('memory.undo', { profileId: chosenId })).notice))
  return {
    ...{ busy, outcome, newDefault, select, save, create, restoreDefault },
    ...{ duplicate, remove, setDefault, undoCompress },
  }
}
