/**
 * Import, export & maintenance → "Sync": the git remote and branch this machine syncs its profiles and memory with,
 * when it last synced, why the last try failed (in the page's language, git's own words beside it), what the last
 * merges kept, and "Sync now". Reads the status when shown and after each action; writes only through the sync
 * routes (use-sync-settings.ts). It never holds a secret: git's own credentials (ssh agent, credential helper) reach
 * the remote.
 */
import type { ReactNode } from 'react'
import { OutcomeLine } from '../common/Outcome.tsx'
import { formatTime } from '../common/feedback.ts'
import { activeLocale, useT, type T } from '../copy/locales.ts'
import { TeamLibraries } from './TeamLibraries.tsx'
import { withoutCredentials, type MergeNote, type SyncReply } from '../../shared/sync.ts'
import { useSyncSettings, type SyncSettingsState } from './use-sync-settings.ts'

/** One merge note as a sentence. */
function NoteLine({ note }: { note: MergeNote }): ReactNode {
  const t = useT()
  if (note.kind === 'kept')
    return <li>{t(note.deletedOn === 'here' ? 'sync.note.keptHere' : 'sync.note.keptThere', { name: note.name })}</li>
  if (note.kind === 'memory') return <li>{t('sync.note.memory', { name: note.name, count: note.count })}</li>
  return <li>{t('sync.note.field', { name: note.name, field: note.field, lost: note.lost.slice(0, 200) })}</li>
}

/** The status line: loading, off, syncing, never synced, or when it last synced. */
function statusText(t: T, locale: string, reply: SyncReply | null): string {
  if (reply === null) return t('page.loading')
  if (reply.settings === null) return t('sync.off')
  const status = reply.status
  if (status.running) return t('sync.running')
  return status.lastSync === undefined ? t('sync.never') : t('sync.last', { time: formatTime(locale, status.lastSync) })
}

/** The remote and branch fields and the two buttons. */
function SyncForm({ sync }: { sync: SyncSettingsState }): ReactNode {
  const t = useT()
  return (
    <>
      <label className="ap-row">
        <span>{t('sync.remote')}</span>
        <input
          className="ap-input"
          value={sync.remote}
          placeholder="git@github.com:me/profiles.git"
          aria-label={t('sync.remote')}
          onChange={(e) => sync.setRemote(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('sync.branch')}</span>
        <input
          className="ap-input"
          value={sync.branch}
          aria-label={t('sync.branch')}
          onChange={(e) => sync.setBranch(e.target.value)}
        />
      </label>
      <div className="ap-row">
        <button type="button" className="ap-btn" disabled={sync.busy} onClick={sync.save}>
          {t('sync.save')}
        </button>
        <button
          type="button"
          className="ap-btn"
          disabled={sync.busy || sync.reply?.settings == null}
          onClick={sync.syncNow}
        >
          {t('sync.now')}
        </button>
      </div>
    </>
  )
}

/** The section. */
export function SyncSection(): ReactNode {
  const t = useT()
  const sync = useSyncSettings()
  const status = sync.reply?.status
  return (
    <section className="ap-panel ap-sync" aria-label={t('sync.title')}>
      <h3>{t('sync.title')}</h3>
      <p className="ap-hint">{t('sync.hint')}</p>
      <SyncForm sync={sync} />
      <div role="status" data-ap-sync-status="">
        {statusText(t, activeLocale(), sync.reply)}
      </div>
      {status?.error !== undefined && (
        <div className="ap-error" data-ap-sync-error={status.error.key}>
          {t(`sync.error.${status.error.key}`)} <code>{withoutCredentials(status.error.detail)}</code>
        </div>
      )}
      {status !== undefined && status.notes.length > 0 && (
        <ul className="ap-memory-list">
          {status.notes.map((n, i) => (
            <NoteLine key={i} note={n} />
          ))}
        </ul>
      )}
      <OutcomeLine outcome={sync.outcome} />
      <TeamLibraries />
    </section>
  )
}
