/**
 * The Sync section's team libraries: the read-only repositories whose profiles appear in the list marked with the
 * library's name. Lists each with its remote, branch, when it was last pulled and why the last pull failed; adds one
 * (remote, branch, a name that defaults from the remote) and removes one. Reads the list when shown and after each
 * action; writes only through the library routes (use-team-libraries.ts). It never pushes anything and never holds a
 * secret.
 */
import type { ReactNode } from 'react'
import { OutcomeLine } from '../common/Outcome.tsx'
import { formatTime } from '../common/feedback.ts'
import { activeLocale, useT } from '../copy/locales.ts'
import { defaultLibraryName, LIBRARY_NAME_LIMIT, type LibrariesReply } from '../../shared/library.ts'
import { useTeamLibraries, type LibraryForm } from './use-team-libraries.ts'

type Library = LibrariesReply['libraries'][number]

/** The list and the form to add one. */
export function TeamLibraries(): ReactNode {
  const t = useT()
  const libs = useTeamLibraries()
  const libraries = libs.reply?.libraries ?? []
  return (
    <div className="ap-team-libraries" role="group" aria-label={t('library.title')}>
      <h4>{t('library.title')}</h4>
      <p className="ap-hint">{t('library.hint')}</p>
      {libs.reply !== null && libraries.length === 0 && <p className="ap-hint">{t('library.none')}</p>}
      <ul className="ap-memory-list">
        {libraries.map((l) => (
          <LibraryRow key={l.id} library={l} busy={libs.busy} onRemove={() => libs.remove(l)} />
        ))}
      </ul>
      <LibraryFields form={libs.form} />
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn"
          disabled={libs.busy || libs.form.remote.trim() === ''}
          onClick={libs.add}
        >
          {t('library.add')}
        </button>
        <button type="button" className="ap-btn" disabled={libs.busy || libraries.length === 0} onClick={libs.syncNow}>
          {t('sync.now')}
        </button>
      </div>
      <OutcomeLine outcome={libs.outcome} />
    </div>
  )
}

/** One library: name, remote, branch, its last pull or why it failed, and its remove button. */
function LibraryRow({ library: l, busy, onRemove }: { library: Library; busy: boolean; onRemove(): void }): ReactNode {
  const t = useT()
  const locale = activeLocale()
  return (
    <li data-ap-library-row={l.id}>
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
      <button type="button" className="ap-btn ap-btn-small ap-btn-danger" disabled={busy} onClick={onRemove}>
        {t('library.remove')}
      </button>
    </li>
  )
}

/** The add form's remote, branch and name (defaulting from the remote). */
function LibraryFields({ form }: { form: LibraryForm }): ReactNode {
  const t = useT()
  return (
    <>
      <label className="ap-row">
        <span>{t('library.remote')}</span>
        <input
          className="ap-input"
          value={form.remote}
          placeholder="git@github.com:team/profiles.git"
          aria-label={t('library.remote')}
          onChange={(e) => form.setRemote(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('sync.branch')}</span>
        <input
          className="ap-input"
          value={form.branch}
          aria-label={t('library.branch')}
          onChange={(e) => form.setBranch(e.target.value)}
        />
      </label>
      <label className="ap-row">
        <span>{t('library.name')}</span>
        <input
          className="ap-input"
          value={form.name}
          maxLength={LIBRARY_NAME_LIMIT}
          placeholder={form.remote.trim() === '' ? '' : defaultLibraryName(form.remote)}
          aria-label={t('library.name')}
          onChange={(e) => form.setName(e.target.value)}
        />
      </label>
    </>
  )
}
