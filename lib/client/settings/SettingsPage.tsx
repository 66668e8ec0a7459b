/**
 * The settings page "智能体配置 / Agent profiles" (slot `settings.section`), in four sections reached by tabs: the
 * profiles (the list and the editor of the chosen one, itself in sections), about you (the user layer shared by
 * every profile), import/export with maintenance, and diagnostics. Owns the selection, which section is shown, the draft's life (unsaved edits ask before they are left
 * behind; a change of section keeps them) and the profile-level commands; data comes from, and answers go back into,
 * the shared api store, and the chosen profile whole from profiles.ts. It never renders nothing: a placeholder stands in while loading and an error when loading
 * failed.
 */
import { flushSync } from 'react-dom'
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react'
import type { ProfileHead } from '../../shared/wire-state.ts'
import type { Profile } from '../../state/model.ts'
import { useApi, useApState } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { profilesOf, useProfile } from '../data/profiles.ts'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { OutcomeLine, type Outcome } from '../common/Outcome.tsx'
import { Diagnostics } from './Diagnostics.tsx'
import {
  buildPatch,
  changedFields,
  isDirty,
  keepDraft,
  keepSurfaceDraft,
  keepTyped,
  pendingDraft,
  profileSurface,
  typedText,
  rebaseDraft,
  type Draft,
  type DraftField,
} from '../common/editing.ts'
import { describeError, noticeText } from '../common/feedback.ts'
import type { ShrunkImage } from './image.ts'
import { ImportExport } from './ImportExport.tsx'
import { ABOUT_DRAFT, AboutYou } from './AboutYou.tsx'
import { useT, type ApKey } from '../copy/locales.ts'
import { ProfileEditor, type EditorSection } from './ProfileEditor.tsx'
import { pinCounts, ProfileList } from './ProfileList.tsx'
import { Tabs } from './Tabs.tsx'
import { DataBanner } from './DataHealth.tsx'
import { LiveBanner } from '../common/LiveBanner.tsx'
import { RestoreBackup } from './RestoreBackup.tsx'
import { SyncSection } from './SyncSection.tsx'
import { useOpenRequest } from '../common/open-requests.ts'
import { SessionTitles, type UseSessions } from '../common/session-titles.tsx'

/** Owner props the settings shell passes to a section (`close` closes the settings dialog). */
export interface SettingsPageProps {
  close?: () => void
  /** Replaces the avatar picker's canvas step (tests). */
  shrink?: (file: File) => Promise<ShrunkImage>
  /** The host's session list, which names a memory's conversation by its title. */
  useSessions?: UseSessions
}

type Feedback = Outcome | null

/** The page's sections, in tab order. */
type PageSection = 'profiles' | 'about' | 'files' | 'diagnostics'

/** The page, with the host's conversation titles for what it shows of them. */
export function SettingsPage({ useSessions, ...props }: SettingsPageProps): ReactNode {
  return (
    <SessionTitles useSessions={useSessions}>
      <Page {...props} />
    </SessionTitles>
  )
}

function Page({ close, shrink }: Omit<SettingsPageProps, 'useSessions'>): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  useLive()
  const [selectedId, setSelectedId] = useState<string | null>(() => pendingDraft()?.base.id ?? null)
  const [draft, setDraftState] = useState<Draft | null>(pendingDraft)
  const [busy, setBusy] = useState(false)
  const [feedback, setFeedback] = useState<Feedback>(null)
  const [pageSection, setPageSection] = useState<PageSection>('profiles')
  const [editorSection, setEditorSection] = useState<EditorSection>('profile')
  /** Fields of the open draft that were also saved elsewhere meanwhile; the user picks a version. */
  const [conflict, setConflict] = useState<{ id: string; fields: DraftField[] } | null>(null)
  const [dialog, ask] = useConfirm()
  const dialogOpen = dialog !== null
  const [aboutDirty, setAboutDirty] = useState(false)
  /** How many backups were restored while the page is open (the import section's key: a restore clears its result). */
  const [restores, setRestores] = useState(0)
  /** The profile + New profile just made the default, and the default it replaced. */
  const [newDefault, setNewDefault] = useState<{ id: string; previousId: string; previous: string } | null>(null)

  const setDraft = useCallback((next: Draft | null) => {
    keepDraft(next)
    setDraftState(next)
    if (next === null) setConflict(null)
  }, [])

  // Always reload when the page opens: the memory job and the composer change data while the page is closed.
  useEffect(() => {
    void client.refresh()
  }, [client])

  const state = snap.state
  const profiles = state?.profiles ?? []
  const chosen: ProfileHead | undefined =
    profiles.find((p) => p.id === selectedId) ?? profiles.find((p) => p.id === state?.activeId) ?? profiles[0]
  /** The chosen profile whole, as saved; undefined while it is first fetched. */
  const selected: Profile | undefined = useProfile(chosen?.id)
  const liveDraft = draft !== null && selected !== undefined && draft.base.id === selected.id ? draft : null
  const changed = changedFields(liveDraft)
  const dirty = changed.length > 0
  const dirtyRef = useRef(dirty)
  dirtyRef.current = dirty
  const aboutDirtyRef = useRef(aboutDirty)
  aboutDirtyRef.current = aboutDirty

  // A turn head's link to a profile's memory: that profile's memory section, unless a draft of another is open
  // (choosing a profile asks before a draft is dropped; a link is no reason to).
  useOpenRequest(
    'profile-memory',
    () => true,
    ({ profileId }) => {
      if (dirtyRef.current && pendingDraft()?.base.id !== profileId) return
      setPageSection('profiles')
      setSelectedId(profileId)
      setEditorSection('memory')
    },
  )
  // A turn head's link to a user-layer fact: the About you section (a profile draft stays as it is).
  useOpenRequest(
    'about-you',
    () => true,
    () => {
      setPageSection('about')
    },
  )

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

  // A fact typed in a memory add box and not yet added is a draft too (kept by the box, read when leaving).
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

  const run = async (work: () => Promise<string | void>): Promise<void> => {
    setBusy(true)
    setFeedback(null)
    try {
      const said = await work()
      if (typeof said === 'string' && said !== '') setFeedback({ kind: 'ok', text: said })
    } catch (error) {
      setFeedback({ kind: 'error', text: describeError(t, error) })
    } finally {
      setBusy(false)
    }
  }

  if (state === null || chosen === undefined) {
    return (
      <div className="ap-root ap-settings">
        <h2>{t('page.title')}</h2>
        {snap.status === 'error' && snap.error !== null ? (
          <div className="ap-error" role="alert">
            <div>{t('page.loadFailed', { message: describeError(t, snap.error) })}</div>
            <button
              type="button"
              className="ap-btn ap-btn-small"
              onClick={() => {
                void client.refresh()
              }}
            >
              {t('action.retry')}
            </button>
          </div>
        ) : (
          <div className="ap-placeholder" role="status">
            {t('page.loading')}
          </div>
        )}
      </div>
    )
  }

  const value = liveDraft?.value ?? selected
  const meta = snap.meta

  const select = async (id: string): Promise<void> => {
    if (id === chosen.id) return
    if (await confirmLeave()) {
      setSelectedId(id)
      setFeedback(null)
    }
  }

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

  const save = (): Promise<void> =>
    run(async () => {
      if (liveDraft === null) return
      const reply = await client.command('profile.update', { id: liveDraft.base.id, patch: buildPatch(liveDraft) })
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
      const previous = profiles.find((p) => p.id === state.activeId)
      const reply = await client.command('profile.create')
      setSelectedId(reply.profile.id)
      if (previous !== undefined)
        setNewDefault({
          id: reply.profile.id,
          previousId: previous.id,
          previous: previous.name.trim() === '' ? t('list.unnamed') : previous.name,
        })
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
      const reply = await client.command('profile.duplicate', { id: chosen.id })
      setSelectedId(reply.profile.id)
      return noticeText(t, reply.notice)
    })

  // Asked before the page is busy: while the question is open nothing is being saved, and Save must not say so.
  const remove = async (): Promise<void> => {
    const pinned = pinCounts(state).get(chosen.id) ?? 0
    const name = chosen.name.trim() === '' ? t('list.unnamed') : chosen.name
    const question = pinned > 0 ? t('confirm.deleteUnbind', { name, count: pinned }) : t('confirm.delete', { name })
    if (!(await ask(question, { confirmLabel: t('action.delete'), danger: true }))) return
    await run(async () => {
      const reply = await client.command('profile.delete', { id: chosen.id })
      if (liveDraft !== null) setDraft(null)
      setSelectedId(reply.state.activeId)
      return noticeText(t, reply.notice)
    })
  }

  const setDefault = (): Promise<void> =>
    run(async () => noticeText(t, (await client.command('profile.activate', { id: chosen.id })).notice))
  const undoCompress = (): Promise<void> =>
    run(async () => noticeText(t, (await client.command('memory.undo', { profileId: chosen.id })).notice))
  // Own keys only: a profile id `constructor` must not find Object's.
  const compressedAt =
    state.undo !== undefined && Object.hasOwn(state.undo, chosen.id) ? state.undo[chosen.id] : undefined

  const profilesPanel = (
    <div className="ap-split">
      <ProfileList
        state={state}
        selectedId={chosen.id}
        dirtyId={dirty ? chosen.id : null}
        busy={busy}
        onSelect={(id) => {
          void select(id)
        }}
        onCreate={() => {
          void create()
        }}
      />
      {conflict !== null && conflict.id === chosen.id && liveDraft !== null && (
        <div className="ap-notice ap-conflict" role="alert" data-ap-conflict={conflict.fields.join(' ')}>
          <div>{t('editor.changedElsewhere', { fields: conflict.fields.map((f) => t(fieldLabel(f))) })}</div>
          <div className="ap-row">
            <button
              type="button"
              className="ap-btn ap-btn-small"
              onClick={() => {
                setDraft(null)
              }}
            >
              {t('action.takeTheirs')}
            </button>
            <button
              type="button"
              className="ap-btn ap-btn-small ap-btn-primary"
              onClick={() => {
                setConflict(null)
              }}
            >
              {t('action.keepEditing')}
            </button>
          </div>
        </div>
      )}
      {value === undefined ? (
        <div className="ap-placeholder" role="status">
          {t('page.loading')}
        </div>
      ) : (
        <ProfileEditor
          key={chosen.id}
          value={value}
          {...(liveDraft?.items === undefined ? {} : { items: liveDraft.items })}
          savedVersion={selected}
          onItems={(items) => {
            edit({}, items)
          }}
          dirty={dirty}
          changed={changed}
          {...(liveDraft === null ? {} : { savedItems: liveDraft.base.memory.items })}
          saving={busy}
          isDefault={chosen.id === state.activeId}
          {...(newDefault !== null &&
          newDefault.id === chosen.id &&
          state.activeId === chosen.id &&
          profiles.some((p) => p.id === newDefault.previousId)
            ? {
                becameDefault: {
                  previous: newDefault.previous,
                  undo: () => {
                    void restoreDefault(newDefault.previousId)
                  },
                },
              }
            : {})}
          compressThreshold={meta?.compressThreshold ?? 0}
          {...(compressedAt === undefined
            ? {}
            : {
                undoCompress: {
                  at: compressedAt,
                  run: () => {
                    void undoCompress()
                  },
                },
              })}
          section={editorSection}
          onSection={setEditorSection}
          onEdit={edit}
          onSave={() => {
            void save()
          }}
          onDiscard={() => {
            setDraft(null)
          }}
          onSetDefault={() => {
            void setDefault()
          }}
          onDuplicate={() => {
            void duplicate()
          }}
          onDelete={() => {
            void remove()
          }}
          {...(shrink === undefined ? {} : { shrink })}
        />
      )}
    </div>
  )

  return (
    <div className="ap-root ap-settings">
      {dialog}
      <div>
        <h2>{t('page.title')}</h2>
        <p className="ap-hint">{t('page.intro')}</p>
      </div>
      <DataBanner data={meta?.data} />
      <LiveBanner />
      {snap.error !== null && (
        <div className="ap-error" role="alert">
          {t('page.loadFailed', { message: describeError(t, snap.error) })}
        </div>
      )}
      <OutcomeLine outcome={feedback} />
      <div className="ap-page-sections">
        <Tabs<PageSection>
          label={t('page.sections')}
          className="ap-tabs-page"
          selected={pageSection}
          onSelect={setPageSection}
          tabs={[
            {
              id: 'profiles',
              label: t('section.profiles'),
              ...(dirty ? { mark: t('section.changed') } : {}),
              panel: profilesPanel,
            },
            {
              id: 'about',
              label: t('section.about'),
              ...(aboutDirty ? { mark: t('section.changed') } : {}),
              panel: <AboutYou onDirty={setAboutDirty} />,
            },
            {
              id: 'files',
              label: t('section.files'),
              panel: (
                <>
                  {/* A restore replaces the data an import's result spoke of: the import section starts afresh. */}
                  <ImportExport key={restores} state={state} beforeReplace={confirmLeave} />
                  <RestoreBackup
                    beforeReplace={confirmLeave}
                    onRestored={() => {
                      setRestores((n) => n + 1)
                    }}
                  />
                  <SyncSection />
                </>
              ),
            },
            {
              id: 'diagnostics',
              label: t('section.diagnostics'),
              panel:
                meta === null ? (
                  <div className="ap-placeholder" role="status">
                    {t('page.loading')}
                  </div>
                ) : (
                  <Diagnostics
                    meta={meta}
                    onRefresh={() => {
                      void client.refresh()
                    }}
                  />
                ),
            },
          ]}
        />
      </div>
    </div>
  )
}

/** The copy key naming a part of a profile in the conflict notice. */
function fieldLabel(field: DraftField): ApKey {
  return field === 'tools'
    ? 'section.tools'
    : field === 'model'
      ? 'section.model'
      : field === 'memory'
        ? 'field.items'
        : `field.${field}`
}
