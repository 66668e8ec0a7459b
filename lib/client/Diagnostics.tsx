/**
 * The diagnostics panel: where the data lives, the counts, how often the prompt was assembled per conversation
 * versus from the global fallback, the last load error with where the bad file was kept, and the memory job's
 * last runs. Read-only; values whose shape belongs to other modules are shown as they come, never hidden.
 */
import { Fragment, type ReactNode } from 'react'
import type { Meta } from './api.ts'
import { formatTime } from './feedback.ts'
import { activeLocale, useT, type ApKey } from './locales.ts'

/** Props of {@link Diagnostics}. */
export interface DiagnosticsProps {
  meta: Meta
  onRefresh(): void
}

// Diagnostics keys with a label of their own; any other key is listed under its own name.
const KNOWN: Record<string, ApKey> = {
  scoped: 'diag.scoped',
  global: 'diag.global',
}

/** Any JSON value as readable text: scalars as they are, times as dates, objects as `key: value` pairs. */
function show(value: unknown, locale: string, key = ''): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'number' && /(^at$|At$|time|Time)/.test(key) && value > 1e12) return formatTime(locale, value)
  if (typeof value !== 'object') return String(value)
  if (Array.isArray(value)) return value.map((v) => show(v, locale, key)).join('; ')
  return Object.entries(value).map(([k, v]) => `${k}: ${show(v, locale, k)}`).join(', ')
}

function runsOf(job: unknown): unknown[] | null {
  if (Array.isArray(job)) return job
  if (typeof job === 'object' && job !== null) {
    const runs = (job as { runs?: unknown }).runs
    if (Array.isArray(runs)) return runs
  }
  return null
}

/** The panel. */
export function Diagnostics({ meta, onRefresh }: DiagnosticsProps): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const diagnostics = Object.entries(meta.diagnostics ?? {})
  const runs = runsOf(meta.memoryJob)
  const jobRest = typeof meta.memoryJob === 'object' && meta.memoryJob !== null && !Array.isArray(meta.memoryJob)
    ? Object.entries(meta.memoryJob).filter(([k]) => k !== 'runs')
    : []
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
        {diagnostics.map(([key, value]) => (
          <Fragment key={key}>
            <dt>{KNOWN[key] === undefined ? key : t(KNOWN[key])}</dt>
            <dd>{show(value, locale, key)}</dd>
          </Fragment>
        ))}
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
          {jobRest.map(([k, v]) => <div key={k}>{k}: {show(v, locale, k)}</div>)}
          {runs !== null && runs.length > 0
            ? <ul className="ap-memory-list">{runs.map((run, i) => <li key={i}>{show(run, locale)}</li>)}</ul>
            : jobRest.length === 0 && <div>{typeof meta.memoryJob === 'string' ? meta.memoryJob : t('diag.noRuns')}</div>}
        </dd>
      </dl>
    </section>
  )
}
