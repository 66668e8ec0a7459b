/**
 * The diagnostics panel: where the data lives, the counts, how often the prompt was assembled from a conversation's
 * own section versus the global fallback, the latest injection sizes, the last load error with where the bad file
 * was kept, and the memory job's state and last runs. Read-only; a part the host did not send is simply absent.
 */
import type { ReactNode } from 'react'
import type { Meta } from './api.ts'
import { formatTime, shortSession } from './feedback.ts'
import { activeLocale, useT, type ApKey, type T } from './locales.ts'

/** Props of {@link Diagnostics}. */
export interface DiagnosticsProps {
  meta: Meta
  onRefresh(): void
}

/** Sizes listed at most, most recent first. */
const SIZES_SHOWN = 8

function JobRuns({ t, runs, locale }: { t: T; runs: NonNullable<NonNullable<Meta['memoryJob']>['runs']>; locale: string }): ReactNode {
  if (runs.length === 0) return <div>{t('diag.noRuns')}</div>
  return (
    <ul className="ap-memory-list ap-job-runs">
      {runs.map((run, i) => (
        <li key={`${run.at}-${i}`}>
          <time dateTime={new Date(run.at).toISOString()}>{formatTime(locale, run.at)}</time>
          {' · '}{t(`diag.job.${run.job}` as ApKey)}
          {run.sessionId !== undefined && <> · {shortSession(run.sessionId)}</>}
          {' · '}{t(`diag.outcome.${run.outcome}` as ApKey, { added: run.added ?? 0 })}
          {run.sentChars !== undefined && <> · {t('diag.sent', { chars: run.sentChars })}</>}
          {(run.reason !== undefined || run.failure !== undefined) && <> · {[run.failure, run.reason].filter(Boolean).join(': ')}</>}
          {' · '}{run.ms} ms
        </li>
      ))}
    </ul>
  )
}

/** The panel. */
export function Diagnostics({ meta, onRefresh }: DiagnosticsProps): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const d = meta.diagnostics
  const job = meta.memoryJob
  const sizes = Object.entries(d?.sessions ?? {}).sort(([, a], [, b]) => b.at - a.at).slice(0, SIZES_SHOWN)
  return (
    <section className="ap-panel ap-diagnostics" aria-label={t('diag.title')}>
      <div className="ap-row ap-row-between">
        <h3>{t('diag.title')}</h3>
        <button type="button" className="ap-btn ap-btn-small" onClick={onRefresh}>{t('diag.refresh')}</button>
      </div>
      <dl className="ap-dl">
        <dt>{t('diag.dataFile')}</dt>
        <dd><code>{meta.dataFile}</code></dd>
        <dt>{t('diag.counts')}</dt>
        <dd>{t('diag.countsValue', { profiles: meta.counts.profiles, sessions: meta.counts.sessions, memories: meta.counts.memories })}</dd>
        {d?.assemblies !== undefined && (
          <>
            <dt>{t('diag.scoped')}</dt>
            <dd>{d.assemblies.conversation}</dd>
            <dt>{t('diag.global')}</dt>
            <dd>{d.assemblies.global}</dd>
            <dt>{t('diag.subagent')}</dt>
            <dd>{d.assemblies.subagent}</dd>
          </>
        )}
        {d?.agents !== undefined && <><dt>{t('diag.agents')}</dt><dd>{d.agents}</dd></>}
        {sizes.length > 0 && (
          <>
            <dt>{t('diag.lastSizes')}</dt>
            <dd>
              <ul className="ap-memory-list">
                {sizes.map(([sessionId, s]) => (
                  <li key={sessionId}>
                    {shortSession(sessionId)} · {t('diag.size', { chars: s.chars, tokens: s.tokens })}{s.memoryCut ? ` · ${t('diag.cut')}` : ''}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {d?.warnings !== undefined && d.warnings.length > 0 && (
          <><dt>{t('diag.warnings')}</dt><dd>{d.warnings.map((w) => <div key={w}>{w}</div>)}</dd></>
        )}
        <dt>{t('diag.lastError')}</dt>
        <dd>
          {meta.lastError === null
            ? t('diag.none')
            : (
              <span className="ap-error-message">
                {formatTime(locale, meta.lastError.at)} {meta.lastError.message}
                {meta.lastError.keptAs !== undefined && <><br />{t('diag.keptAs', { path: meta.lastError.keptAs })}</>}
              </span>
            )}
        </dd>
        <dt>{t('diag.memoryJob')}</dt>
        <dd>
          {job === undefined
            ? t('diag.noRuns')
            : (
              <>
                <div>
                  {job.available === false
                    ? t('diag.jobUnavailable', { reason: job.reason ?? '' })
                    : job.enabled === false ? t('diag.jobOff') : t('diag.jobOn', { every: job.everyTurns ?? '?' })}
                </div>
                {job.running !== undefined && job.running.length > 0 && (
                  <div>{t('diag.jobRunning', { sessions: job.running.map(shortSession).join(', ') })}</div>
                )}
                {job.totals !== undefined && <div>{t('diag.jobTotals', job.totals)}</div>}
                <JobRuns t={t} runs={job.runs ?? []} locale={locale} />
              </>
            )}
        </dd>
      </dl>
    </section>
  )
}
