/**
 * React hook of Diagnostics → Sync: the rows of the personal sync repository and of each team library, worded in the
 * page's language from the status the host sends — where it syncs (a remote's credentials never shown), when it last
 * pulled and pushed, and how the last try went (the failure in the page's words, git's own quoted after them). A
 * library is pulled only, never pushed, and its row says so. It never renders and never asks the host anything.
 */
import { useMemo } from 'react'
import { formatTime } from '../common/feedback.ts'
import { activeLocale, useT, type T } from '../copy/locales.ts'
import { withoutCredentials, type SyncProblem, type SyncStatus } from '../../shared/sync.ts'
import type { LibraryStatus, SyncDiagnostics } from '../../shared/library.ts'

/** One line of a row: its text, and whether it says a failure. */
interface RowLine {
  text: string
  failed?: boolean
}

/** One repository's row: its title, where it is, and its lines; `key` is `personal` or the library's id. */
export interface RepoRow {
  key: string
  title: string
  where?: string
  lines: RowLine[]
  /** The failure's key of the last try (for the page's tests and styles); absent when it did not fail. */
  error?: SyncProblem['key']
  /** When the last pull succeeded; absent before one. */
  lastSync?: number
  /** Profiles changed here the remote does not have yet (the personal repository only). */
  pending?: number
}

/** A sentence of the page's own, then git's own words quoted (credentials taken out), when there are some. */
function problemText(t: T, problem: SyncProblem): string {
  const text = t(`sync.error.${problem.key}`)
  const detail = withoutCredentials(problem.detail)
  return detail === '' ? text : t('detail.quoted', { text, detail })
}

/** How the last try went: a failure (with how many in a row), or that it worked. */
function tryLine(t: T, locale: string, s: Pick<LibraryStatus, 'lastAttempt' | 'error' | 'failures'>): RowLine[] {
  if (s.error !== undefined) {
    const when = s.lastAttempt === undefined ? '' : formatTime(locale, s.lastAttempt)
    const head = t('diag.repoFailed', { time: when, count: Math.max(1, s.failures) })
    return [{ text: `${head} ${problemText(t, s.error)}`, failed: true }]
  }
  if (s.lastAttempt === undefined) return []
  return [{ text: t('diag.repoWorked', { time: formatTime(locale, s.lastAttempt) }) }]
}

/** The personal repository's row (sync off: one line saying so). */
function personalRow(t: T, locale: string, s: Partial<SyncStatus>): RepoRow {
  const title = t('diag.sync')
  if (s.remote === undefined) return { key: 'personal', title, lines: [{ text: t('sync.off') }] }
  const lines: RowLine[] = [
    {
      text:
        s.running === true
          ? t('sync.running')
          : s.lastSync === undefined
            ? t('sync.never')
            : t('sync.last', { time: formatTime(locale, s.lastSync) }),
    },
    {
      text:
        s.lastPush === undefined
          ? t('diag.syncNotPushed')
          : s.lastPushSubject === undefined || s.lastPushSubject === ''
            ? t('diag.syncPushed', { time: formatTime(locale, s.lastPush) })
            : t('diag.syncPushedWhat', { time: formatTime(locale, s.lastPush), what: s.lastPushSubject }),
    },
    ...tryLine(t, locale, { lastAttempt: s.lastAttempt, error: s.error, failures: s.failures ?? 0 }),
  ]
  if (s.pending !== undefined)
    lines.push({ text: s.pending === 0 ? t('diag.syncUpToDate') : t('diag.syncPending', { count: s.pending }) })
  return {
    key: 'personal',
    title,
    where: t('diag.syncWhere', { remote: withoutCredentials(s.remote), branch: s.branch ?? '' }),
    lines,
    ...(s.error === undefined ? {} : { error: s.error.key }),
    ...(s.lastSync === undefined ? {} : { lastSync: s.lastSync }),
    ...(s.pending === undefined ? {} : { pending: s.pending }),
  }
}

/** A team library's row. */
function libraryRow(t: T, locale: string, l: NonNullable<SyncDiagnostics['libraries']>[number]): RepoRow {
  const s = l.status
  const pulled = s.running
    ? t('sync.running')
    : s.lastSync === undefined
      ? t('diag.libraryNever')
      : t('diag.libraryPulled', { time: formatTime(locale, s.lastSync), count: s.profiles })
  return {
    key: l.id,
    title: t('diag.library', { name: l.name }),
    where: t('diag.syncWhere', { remote: withoutCredentials(l.remote), branch: l.branch }),
    lines: [{ text: pulled }, { text: t('diag.libraryReadOnly') }, ...tryLine(t, locale, s)],
    ...(s.error === undefined ? {} : { error: s.error.key }),
    ...(s.lastSync === undefined ? {} : { lastSync: s.lastSync }),
  }
}

/** The rows of the personal repository and each team library, or none when the host sends no sync part. */
export function useSyncRows(status: Partial<SyncDiagnostics> | undefined): RepoRow[] {
  const t = useT()
  const locale = activeLocale()
  return useMemo(
    () =>
      status === undefined
        ? []
        : [personalRow(t, locale, status), ...(status.libraries ?? []).map((l) => libraryRow(t, locale, l))],
    [status, t, locale],
  )
}
