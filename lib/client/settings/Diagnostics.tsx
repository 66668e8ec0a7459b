/**
 * The diagnostics panel: where the data lives, the counts, how often the prompt was assembled from a conversation's
 * own section versus the global fallback, the latest injection sizes, what the parts could not do as usual, the last
 * load error with where the bad file was kept, a refused row config, and the background memory jobs (extraction,
 * compression) with their last runs: how a run failed and which answer lines it dropped, and recall: its search
 * index's size and the last recall (when, how long, how much it sent), and one row per sync repository, the personal
 * one and each team library (SyncDiagnostics.tsx). Everything is said in the page's language from
 * the keys and values the host sends; an OS's or a provider's own text only follows, quoted. Read-only; a part the
 * host did not send (its service is missing in this profile) is simply absent.
 */
import type { ReactNode } from 'react'
import { formatBytes, formatTime, ruleText, shortSession, wordKeyed } from '../common/feedback.ts'
import { unavailableText } from '../common/model-text.ts'
import { activeLocale, useT, type ApKey, type T } from '../copy/locales.ts'
import type { DropReason, Dropped, RunRecord } from '../../shared/diagnostics.ts'
import type { Meta } from '../../shared/meta.ts'
import { WARNINGS, type ConfigRefusal, type LoadWhy, type Warning } from '../../shared/reasons.ts'
import { DataHealthRows } from './DataHealth.tsx'
import { SyncRows } from './SyncDiagnostics.tsx'

/** Props of {@link Diagnostics}. */
export interface DiagnosticsProps {
  meta: Meta
  onRefresh(): void
}

/** Injection sizes listed at most, most recent first. */
const SIZES_SHOWN = 8

/** The drop counts as a phrase, "dropped: 2 prefaces, 1 note", in the order the run counted them. */
function droppedText(t: T, dropped: Dropped): string {
  const parts = (Object.entries(dropped) as [DropReason, number][]).map(([reason, n]) =>
    t(`diag.drop.${reason}`, { count: n }),
  )
  return t('diag.dropped', { list: parts.join(t('diag.dropSep')) })
}

/**
 * Why a run was skipped or how it failed, in the page's language (the key types make a new reason without words fail
 * the build); a failed call's own text follows, quoted. The run's `reason` is the host's English for its log.
 */
function whyText(t: T, run: RunRecord): string | undefined {
  if (run.skip !== undefined) return t(`diag.skip.${run.skip}`, run.params)
  if (run.failure === undefined) return undefined
  const text = t(`diag.fail.${run.failure}`, run.params)
  return withDetail(t, text, run.detail)
}

/** A sentence of the page's own, then a caught error's or the OS's own text, quoted, when there is one. */
function withDetail(t: T, text: string, detail: string | undefined): string {
  return detail === undefined || detail === '' ? text : t('detail.quoted', { text, detail })
}

/** What a part could not do as usual, in the page's language; the host's English of it is in its log. */
function warningText(t: T, w: Warning): string {
  return withDetail(t, wordKeyed(t, 'diag.degraded', w, WARNINGS[w.key]), w.detail)
}

/** Why the data could not be loaded as it was, with the OS's or SQLite's own text, and what the store did about it. */
function loadText(t: T, why: LoadWhy): string {
  const problem = withDetail(t, t(`diag.load.${why.key}`, why.params), why.detail)
  return why.outcome === undefined
    ? t('diag.loadEnd', { problem })
    : t('diag.loadThen', { problem, outcome: t(`diag.loadOutcome.${why.outcome}`) })
}

/** A refused row config, worded as any refusal is: the option's path as the user writes it, and what it accepts. */
function configText(t: T, refusal: ConfigRefusal): string {
  const message = ruleText(t, refusal) ?? t('error.code.invalid')
  return t('diag.configRefused', { refusal: t('error.field', { field: refusal.field ?? 'config', message }) })
}

/** Why a part is not running, in the page's language: the host service it lacks, when the host named one. */
function unavailable(t: T, status: { missing?: string }): string {
  return status.missing === undefined ? t('diag.unavailable') : t('diag.noService', { service: status.missing })
}

function Runs({ t, runs, locale }: { t: T; runs: readonly RunRecord[]; locale: string }): ReactNode {
  if (runs.length === 0) return <div>{t('diag.noRuns')}</div>
  return (
    <ul className="ap-memory-list ap-job-runs">
      {runs.map((run, i) => {
        const why = whyText(t, run)
        return (
          <li key={`${run.at}-${i}`}>
            <time dateTime={new Date(run.at).toISOString()}>{formatTime(locale, run.at)}</time>
            {' · '}
            {t(`diag.job.${run.job}` as ApKey)}
            {run.sessionId !== undefined && <> · {shortSession(run.sessionId)}</>}
            {' · '}
            {t(`diag.outcome.${run.outcome}` as ApKey, { added: run.added ?? 0 })}
            {run.sentChars !== undefined && <> · {t('diag.sent', { count: run.sentChars })}</>}
            {run.dropped !== undefined && Object.keys(run.dropped).length > 0 && <> · {droppedText(t, run.dropped)}</>}
            {why !== undefined && <> · {why}</>}
            {' · '}
            {run.ms} ms
          </li>
        )
      })}
    </ul>
  )
}

function Extraction({ t, job, locale }: { t: T; job: NonNullable<Meta['memoryJob']>; locale: string }): ReactNode {
  return (
    <>
      <div>
        {/* Turned off by the user is said as such, not as a part the host cannot run. */}
        {job.enabled === false
          ? t('diag.jobOff')
          : job.available === false
            ? unavailable(t, job)
            : t('diag.jobOn', { count: job.everyTurns ?? '?' })}
      </div>
      {job.running !== undefined && job.running.length > 0 && (
        <div>{t('diag.jobRunning', { sessions: job.running.map(shortSession).join(', ') })}</div>
      )}
      {job.totals !== undefined && <div>{t('diag.jobTotals', job.totals)}</div>}
      <Runs t={t} runs={job.runs ?? []} locale={locale} />
    </>
  )
}

function Compression({
  t,
  status,
  locale,
}: {
  t: T
  status: NonNullable<Meta['compression']>
  locale: string
}): ReactNode {
  return (
    <>
      <div>
        {status.available === false
          ? unavailable(t, status)
          : t('diag.compressOn', { threshold: status.threshold ?? '?' })}
      </div>
      {status.running !== undefined && status.running.length > 0 && (
        <div>{t('diag.jobRunning', { sessions: status.running.join(', ') })}</div>
      )}
      {status.totals !== undefined && <div>{t('diag.compressTotals', status.totals)}</div>}
      <Runs t={t} runs={status.runs ?? []} locale={locale} />
    </>
  )
}

function Recall({ t, status, locale }: { t: T; status: NonNullable<Meta['recall']>; locale: string }): ReactNode {
  // Recall set to 0 is off by the user's choice, whatever else the host lacks.
  if (status.available === false && status.budget !== 0) return <div>{unavailable(t, status)}</div>
  const { index, last, totals } = status
  return (
    <>
      <div>{status.budget === 0 ? t('diag.recallOff') : t('diag.recallOn', { budget: status.budget ?? '?' })}</div>
      {index !== undefined && (
        <div data-ap-index-items={index.items}>
          {t('diag.recallIndex', {
            count: index.items,
            size: formatBytes(index.bytes),
            memory: index.mode === 'memory' ? t('diag.recallIndexMemory') : '',
          })}
        </div>
      )}
      {index?.reterm !== undefined && (
        <div data-ap-index-reterm={index.reterm.done}>{t('diag.recallIndexReterm', index.reterm)}</div>
      )}
      <div data-ap-last-recall={last?.at}>
        {last === undefined || last === null
          ? t('diag.recallNever')
          : t('diag.recallLast', {
              time: formatTime(locale, last.at),
              ms: last.ms,
              items: last.items,
              chars: last.chars,
              session: shortSession(last.sessionId),
            })}
      </div>
      {last?.core !== undefined && last.budget !== undefined && last.considered !== undefined && (
        <div data-ap-recall-spent={last.core}>
          {t('diag.recallSpent', {
            core: last.core,
            chars: last.chars,
            budget: last.budget,
            considered: last.considered,
          })}
        </div>
      )}
      {totals !== undefined && <div>{t('diag.recallTotals', totals)}</div>}
    </>
  )
}

/** The data file, the counts, how the prompt was assembled and the latest injection sizes. */
function InjectionRows({ meta }: { meta: Meta }): ReactNode {
  const t = useT()
  const injection = meta.injection
  const sizes = Object.entries(injection?.sessions ?? {})
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(0, SIZES_SHOWN)
  return (
    <>
      <dt>{t('diag.dataFile')}</dt>
      <dd>
        <code>{meta.dataFile}</code>
      </dd>
      <dt>{t('diag.counts')}</dt>
      <dd>
        {t('diag.countsValue', {
          profiles: meta.counts.profiles,
          sessions: meta.counts.sessions,
          memories: meta.counts.memories,
        })}
      </dd>
      {injection?.assemblies !== undefined && (
        <>
          <dt>{t('diag.scoped')}</dt>
          <dd>{injection.assemblies.conversation}</dd>
          <dt>{t('diag.global')}</dt>
          <dd>{injection.assemblies.global}</dd>
          <dt>{t('diag.subagent')}</dt>
          <dd>{injection.assemblies.subagent}</dd>
        </>
      )}
      {injection?.agents !== undefined && (
        <>
          <dt>{t('diag.agents')}</dt>
          <dd>{injection.agents}</dd>
        </>
      )}
      {sizes.length > 0 && (
        <>
          <dt>{t('diag.lastSizes')}</dt>
          <dd>
            <ul className="ap-memory-list">
              {sizes.map(([sessionId, s]) => (
                <li key={sessionId}>
                  {shortSession(sessionId)} · {t('diag.size', { chars: s.chars, tokens: s.tokens })}
                  {s.memoryCut ? ` · ${t('diag.cut')}` : ''}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </>
  )
}

/** What the parts could not do as usual, the last load error, the data's health and a refused row config. */
function ProblemRows({ meta }: { meta: Meta }): ReactNode {
  const t = useT()
  const locale = activeLocale()
  // One list of what the parts could not do as usual: the prompt's, the tool profiles' and the profiles' models'.
  const degraded = [
    ...(meta.injection?.degraded ?? []),
    ...(meta.toolProfiles?.degraded ?? []),
    ...(meta.modelChoice?.degraded ?? []),
  ]
  return (
    <>
      {degraded.length > 0 && (
        <>
          <dt>{t('diag.warnings')}</dt>
          <dd>
            <div className="ap-hint">{t('diag.warningsHint')}</div>
            <ul className="ap-memory-list ap-degraded">
              {degraded.map((w, i) => (
                <li key={`${w.key}-${i}`}>{warningText(t, w)}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
      <dt>{t('diag.lastError')}</dt>
      <dd>
        {meta.lastError === null ? (
          t('diag.none')
        ) : (
          <span className="ap-error-message ap-last-error">
            {formatTime(locale, meta.lastError.at)} {loadText(t, meta.lastError.why)}
            {meta.lastError.keptAs !== undefined && (
              <>
                <br />
                {t('diag.keptAs', { path: meta.lastError.keptAs })}
              </>
            )}
          </span>
        )}
      </dd>
      <DataHealthRows data={meta.data} />
      {meta.configRefusal !== undefined && (
        <>
          <dt>{t('diag.configError')}</dt>
          <dd>
            <span className="ap-error-message ap-config-error">{configText(t, meta.configRefusal)}</span>
          </dd>
        </>
      )}
    </>
  )
}

/** The background jobs: extraction, compression, the profiles' models and recall. */
function JobRows({ meta }: { meta: Meta }): ReactNode {
  const t = useT()
  const locale = activeLocale()
  const fallback = meta.modelChoice?.lastFallback
  return (
    <>
      <dt>{t('diag.memoryJob')}</dt>
      <dd>
        {meta.memoryJob === undefined ? t('diag.noRuns') : <Extraction t={t} job={meta.memoryJob} locale={locale} />}
      </dd>
      {meta.compression !== undefined && (
        <>
          <dt>{t('diag.compression')}</dt>
          <dd>
            <Compression t={t} status={meta.compression} locale={locale} />
          </dd>
        </>
      )}
      {meta.modelChoice?.totals !== undefined && (
        <>
          <dt>{t('diag.models')}</dt>
          <dd data-ap-diag-models="">
            {t('diag.modelsValue', { ...meta.modelChoice.totals })}
            {fallback !== undefined && (
              <div className="ap-error-message">
                {formatTime(locale, fallback.at)}{' '}
                {t('diag.modelsFallback', {
                  wanted: fallback.wanted.model,
                  used: fallback.used.model,
                  reason: unavailableText(t, fallback),
                })}
              </div>
            )}
          </dd>
        </>
      )}
      {meta.recall !== undefined && (
        <>
          <dt>{t('diag.recall')}</dt>
          <dd className="ap-diag-recall">
            <Recall t={t} status={meta.recall} locale={locale} />
          </dd>
        </>
      )}
    </>
  )
}

/** The panel. */
export function Diagnostics({ meta, onRefresh }: DiagnosticsProps): ReactNode {
  const t = useT()
  return (
    <section className="ap-panel ap-diagnostics" aria-label={t('diag.title')}>
      <div className="ap-row ap-row-between">
        <h3>{t('diag.title')}</h3>
        <button type="button" className="ap-btn ap-btn-small" onClick={onRefresh}>
          {t('diag.refresh')}
        </button>
      </div>
      <dl className="ap-dl">
        <InjectionRows meta={meta} />
        <ProblemRows meta={meta} />
        <JobRows meta={meta} />
        <SyncRows status={meta.sync} />
      </dl>
    </section>
  )
}
