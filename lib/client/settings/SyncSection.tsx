/**
 * Import, export & maintenance → "Sync": the git remote and branch this machine syncs its profiles and memory with,
 * when it last synced, why the last try failed (in the page's language, git's own words beside it), what the last
 * merges kept, and "Sync now". Reads the status when shown and after each action; writes only through the sync
 * routes. It never holds a secret: git's own credentials (ssh agent, credential helper) reach the remote.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react'
import { useApi } from '../data/api.ts'
import { OutcomeLine, type Outcome } from '../common/Outcome.tsx'
import { describeError, formatTime } from '../common/feedback.ts'
import { activeLocale, useT } from '../copy/locales.ts'
import { TeamLibraries } from './TeamLibraries.tsx'
import { DEFAULT_BRANCH, type MergeNote, type SyncReply } from '../../shared/sync.ts'

/** One merge note as a sentence. */
function NoteLine({ note }: { note: MergeNote }): ReactNode {
  const t = useT()
  if (note.kind === 'kept')
    return <li>{t(note.deletedOn === 'here' ? 'sync.note.keptHere' : 'sync.note.keptThere', { name: note.name })}</li>
  if (note.kind === 'memory') return <li>{t('sync.note.memory', { name: note.name, count: note.count })}</li>
  return <li>{t('sync.note.field', { name: note.name, field: note.field, lost: note.lost.slice(0, 200) })}</li>
}

/** The section. */
export function SyncSection(): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const client = useApi()
  const [reply, setReply] = useState<SyncReply | null>(null)
  const [remote, setRemote] = useState('')
  const [branch, setBranch] = useState(DEFAULT_BRANCH)
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)

  const take = useCallback((r: SyncReply) => {
    setReply(r)
    setRemote(r.settings?.remote ?? '')
    setBranch(r.settings?.branch ?? DEFAULT_BRANCH)
  }, [])
  useEffect(() => {
    client.sync().then(take, (e: unknown) => setOutcome({ kind: 'error', text: describeError(t, e) }))
  }, [client, take, t])

  const act = async (run: () => Promise<SyncReply>, done: string) => {
    setBusy(true)
    setOutcome(null)
    try {
      const r = await run()
      take(r)
      setOutcome(r.status.error === undefined ? { kind: 'ok', text: done } : null)
    } catch (e) {
      setOutcome({ kind: 'error', text: describeError(t, e) })
    } finally {
      setBusy(false)
    }
  }

  const status = reply?.status
  return (
    <section className="ap-panel ap-sync" aria-label={t('sync.title')}>
      <h3>{t('sync.title')}</h3>
      <p className="ap-hint">{t('sync.hint')}</p>
      <label className="ap-row">
        <span>{t('sync.remote')}</span>
        <input
          className="ap-input"
          value={remote}
          placeholder="git@github.com:me/profiles.git"
          aria-label={t('sync.remote')}
          onChange={(e) => setRemote(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('sync.branch')}</span>
        <input
          className="ap-input"
          value={branch}
          aria-label={t('sync.branch')}
          onChange={(e) => setBranch(e.target.value)}
        />
      </label>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn"
          disabled={busy}
          onClick={() => void act(() => client.configureSync({ remote, branch }), t('sync.saved'))}
        >
          {t('sync.save')}
        </button>
        <button
          type="button"
          className="ap-btn"
          disabled={busy || reply?.settings == null}
          onClick={() => void act(() => client.syncNow(), t('sync.done'))}
        >
          {t('sync.now')}
        </button>
      </div>
      <div role="status" data-ap-sync-status="">
        {reply === null
          ? t('page.loading')
          : reply.settings === null
            ? t('sync.off')
            : status?.running === true
              ? t('sync.running')
              : status?.lastSync === undefined
                ? t('sync.never')
                : t('sync.last', { time: formatTime(locale, status.lastSync) })}
      </div>
      {status?.error !== undefined && (
        <div className="ap-error" data-ap-sync-error={status.error.key}>
          {t(`sync.error.${status.error.key}`)} <code>{status.error.detail}</code>
        </div>
      )}
      {status !== undefined && status.notes.length > 0 && (
        <ul className="ap-memory-list">
          {status.notes.map((n, i) => (
            <NoteLine key={i} note={n} />
          ))}
        </ul>
      )}
      <OutcomeLine outcome={outcome} />
      <TeamLibraries />
    </section>
  )
}
