/**
 * The Sync section's team libraries: the read-only repositories whose profiles appear in the list marked with the
 * library's name. Lists each with its remote, branch, when it was last pulled and why the last pull failed; adds one
 * (remote, branch, a name that defaults from the remote) and removes one. Reads the list when shown and after each
 * action; writes only through the library routes. It never pushes anything and never holds a secret.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react'
import { useApi } from '../data/api.ts'
import { OutcomeLine, type Outcome } from '../common/Outcome.tsx'
import { describeError, formatTime } from '../common/feedback.ts'
import { activeLocale, useT } from '../copy/locales.ts'
import { DEFAULT_BRANCH } from '../../shared/sync.ts'
import { defaultLibraryName, LIBRARY_NAME_LIMIT, type LibrariesReply } from '../../shared/library.ts'

/** The list and the form to add one. */
export function TeamLibraries(): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const client = useApi()
  const [reply, setReply] = useState<LibrariesReply | null>(null)
  const [remote, setRemote] = useState('')
  const [branch, setBranch] = useState(DEFAULT_BRANCH)
  const [name, setName] = useState('')
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const fail = useCallback((e: unknown) => setOutcome({ kind: 'error', text: describeError(t, e) }), [t])
  useEffect(() => {
    client.libraries().then(setReply, fail)
  }, [client, fail])

  const act = async (run: () => Promise<LibrariesReply>, done: string, after?: () => void) => {
    setBusy(true)
    setOutcome(null)
    try {
      setReply(await run())
      after?.()
      setOutcome({ kind: 'ok', text: done })
    } catch (e) {
      fail(e)
    } finally {
      setBusy(false)
    }
  }

  const libraries = reply?.libraries ?? []
  return (
    <div className="ap-team-libraries" role="group" aria-label={t('library.title')}>
      <h4>{t('library.title')}</h4>
      <p className="ap-hint">{t('library.hint')}</p>
      {reply !== null && libraries.length === 0 && <p className="ap-hint">{t('library.none')}</p>}
      <ul className="ap-memory-list">
        {libraries.map((l) => (
          <li key={l.id} data-ap-library-row={l.id}>
            <strong>{l.name}</strong> <code>{l.remote}</code> · {l.branch} ·{' '}
            {l.status.running
              ? t('sync.running')
              : l.status.lastSync === undefined
                ? t('sync.never')
                : t('library.pulled', {
                    time: formatTime(locale, l.status.lastSync),
                    count: l.status.profiles,
                  })}
            {l.status.error !== undefined && (
              <div className="ap-error" data-ap-library-error={l.status.error.key}>
                {t(`sync.error.${l.status.error.key}`)} <code>{l.status.error.detail}</code>
              </div>
            )}{' '}
            <button
              type="button"
              className="ap-btn ap-btn-small ap-btn-danger"
              disabled={busy}
              onClick={() => void act(() => client.removeLibrary(l.id), t('library.removed', { name: l.name }))}
            >
              {t('library.remove')}
            </button>
          </li>
        ))}
      </ul>
      <label className="ap-row">
        <span>{t('library.remote')}</span>
        <input
          className="ap-input"
          value={remote}
          placeholder="git@github.com:team/profiles.git"
          aria-label={t('library.remote')}
          onChange={(e) => setRemote(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('sync.branch')}</span>
        <input
          className="ap-input"
          value={branch}
          aria-label={t('library.branch')}
          onChange={(e) => setBranch(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('library.name')}</span>
        <input
          className="ap-input"
          value={name}
          maxLength={LIBRARY_NAME_LIMIT}
          placeholder={remote.trim() === '' ? '' : defaultLibraryName(remote)}
          aria-label={t('library.name')}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn"
          disabled={busy || remote.trim() === ''}
          onClick={() =>
            void act(
              () => client.addLibrary({ remote, branch, name }),
              t('library.added', { name: name.trim() || defaultLibraryName(remote) }),
              () => {
                setRemote('')
                setName('')
              },
            )
          }
        >
          {t('library.add')}
        </button>
        <button
          type="button"
          className="ap-btn"
          disabled={busy || libraries.length === 0}
          onClick={() =>
            void act(async () => {
              await client.syncNow()
              return client.libraries()
            }, t('sync.done'))
          }
        >
          {t('sync.now')}
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
    </div>
  )
}
