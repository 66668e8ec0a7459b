/**
 * The settings page "智能体配置 / Agent profiles" (slot `settings.section`), in four sections reached by tabs: the
 * profiles (the list and the editor of the chosen one, itself in sections), about you (the user layer shared by
 * every profile), import/export with maintenance, and diagnostics. Owns which section is shown and where a turn
 * head's link leads; the selection and draft are use-profile-draft.ts's, the guard against leaving unsaved edits
 * behind use-leave-guard.ts's, the profile-level commands use-profile-commands.ts's. Data comes from, and answers go
 * back into, the shared api store. It never renders nothing: a placeholder stands in while loading and an error when
 * loading failed.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { Meta } from '../../shared/meta.ts'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi, useApState } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { useConfirm } from '../common/ConfirmDialog.tsx'
import { OutcomeLine } from '../common/Outcome.tsx'
import { pendingDraft } from '../common/editing.ts'
import { describeError } from '../common/feedback.ts'
import { Diagnostics } from './Diagnostics.tsx'
import { LearnFromExport } from './learn/LearnFromExport.tsx'
import { importNoteText } from './import-report.ts'
import type { ShrunkImage } from './image.ts'
import { ImportExport } from './ImportExport.tsx'
import { AboutYou } from './AboutYou.tsx'
import { useT } from '../copy/locales.ts'
import type { EditorSection } from './ProfileEditor.tsx'
import { ProfilesPanel } from './ProfilesPanel.tsx'
import { Tabs } from './Tabs.tsx'
import { DataBanner } from './DataHealth.tsx'
import { LiveBanner } from '../common/LiveBanner.tsx'
import { RestoreBackup } from './RestoreBackup.tsx'
import { SyncSection } from './SyncSection.tsx'
import { useOpenRequest } from '../common/open-requests.ts'
import { SessionTitles, type UseSessions } from '../common/session-titles.tsx'
import { useProfileDraft } from './use-profile-draft.ts'
import { useLeaveGuard } from './use-leave-guard.ts'
import { useProfileCommands } from './use-profile-commands.ts'

/** Owner props the settings shell passes to a section (`close` closes the settings dialog). */
export interface SettingsPageProps {
  close?: () => void
  /** Replaces the avatar picker's canvas step (tests). */
  shrink?: (file: File) => Promise<ShrunkImage>
  /** The host's session list, which names a memory's conversation by its title. */
  useSessions?: UseSessions
}

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
  const [pageSection, setPageSection] = useState<PageSection>('profiles')
  const [editorSection, setEditorSection] = useState<EditorSection>('profile')
  const [dialog, ask] = useConfirm()
  const [aboutDirty, setAboutDirty] = useState(false)
  const state = snap.state
  const draft = useProfileDraft(state)
  const { chosen, dirty } = draft
  const confirmLeave = useLeaveGuard({ ...draft, aboutDirty, ask, dialogOpen: dialog !== null, close })
  const commands = useProfileCommands({ state, draft, confirmLeave, ask })

  // Always reload when the page opens: the memory job and the composer change data while the page is closed.
  useEffect(() => {
    void client.refresh()
  }, [client])

  useTurnHeadLinks(dirty, (section, profileId) => {
    setPageSection(section)
    if (profileId === undefined) return
    draft.choose(profileId)
    setEditorSection('memory')
  })

  if (state === null || chosen === undefined) return <PageLoading />
  const meta = snap.meta
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
      <OutcomeLine outcome={commands.outcome} />
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
              panel: (
                <ProfilesPanel
                  {...{ state, meta, draft, commands, shrink }}
                  section={editorSection}
                  onSection={setEditorSection}
                />
              ),
            },
            {
              id: 'about',
              label: t('section.about'),
              ...(aboutDirty ? { mark: t('section.changed') } : {}),
              panel: <AboutYou onDirty={setAboutDirty} />,
            },
            { id: 'files', label: t('section.files'), panel: <FilesPanel state={state} confirmLeave={confirmLeave} /> },
            { id: 'diagnostics', label: t('section.diagnostics'), panel: <DiagnosticsPanel meta={meta} /> },
          ]}
        />
      </div>
    </div>
  )
}

/**
 * A turn head's links: to a profile's memory (`go('profiles', id)`), unless a draft of another profile is open
 * (choosing a profile asks before a draft is dropped; a link is no reason to); to a user-layer fact, the About you
 * section (`go('about')`; a profile draft stays as it is).
 */
function useTurnHeadLinks(dirty: boolean, go: (section: PageSection, profileId?: string) => void): void {
  useOpenRequest(
    'profile-memory',
    () => true,
    ({ profileId }) => {
      if (dirty && pendingDraft()?.base.id !== profileId) return
      go('profiles', profileId)
    },
  )
  useOpenRequest(
    'about-you',
    () => true,
    () => {
      go('about')
    },
  )
}

/** The page before the state arrived: loading, or why it could not load with a retry. */
function PageLoading(): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
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

/** Import/export with maintenance: each asks about an open draft before it replaces the data. */
function FilesPanel({ state, confirmLeave }: { state: WireState; confirmLeave(): Promise<boolean> }): ReactNode {
  /** How many backups were restored while the page is open (the import section's key: a restore clears its result). */
  const [restores, setRestores] = useState(0)
  return (
    <>
      {/* A restore replaces the data an import's result spoke of: the import section starts afresh. */}
      <ImportExport key={restores} state={state} beforeReplace={confirmLeave} />
      <LearnFromExport state={state} noteText={importNoteText} />
      <RestoreBackup
        beforeReplace={confirmLeave}
        onRestored={() => {
          setRestores((n) => n + 1)
        }}
      />
      <SyncSection />
    </>
  )
}

/** Diagnostics, once the host's meta arrived. */
function DiagnosticsPanel({ meta }: { meta: Meta | null }): ReactNode {
  const t = useT()
  const client = useApi()
  if (meta === null)
    return (
      <div className="ap-placeholder" role="status">
        {t('page.loading')}
      </div>
    )
  return (
    <Diagnostics
      meta={meta}
      onRefresh={() => {
        void client.refresh()
      }}
    />
  )
}
