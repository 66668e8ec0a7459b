/**
 * The learning run in the "learn from ChatGPT or Claude" section: the button that starts it from the pick (once its
 * cost was shown), a progress bar while it runs (conversations done of all, suggestions found, read out by screen
 * readers; a run kept by a version that did not count conversations counts its model calls), pause, resume and cancel, why it stopped, and "undo this import". Its state is use-learn-run.ts's.
 */
import type { ReactNode } from 'react'
import type { LearnPick, LearnRunStatus } from '../../../shared/learn.ts'
import { OutcomeLine } from '../../common/Outcome.tsx'
import { ProgressBar } from '../../common/ProgressBar.tsx'
import { useT, type T } from '../../copy/locales.ts'
import { useLearnRun, type LearnRunState } from './use-learn-run.ts'

/** The bar and the words of a run's progress. */
function Progress({ t, run }: { t: T; run: LearnRunStatus }): ReactNode {
  const { done, total } = run.conversations ?? run
  const key = run.conversations === undefined ? 'learn.run.progressCalls' : 'learn.run.progress'
  const text = t(key, { done, total, facts: run.facts })
  const label = t(`learn.run.${run.state}`)
  return (
    <div className="ap-io-progress" data-ap-learn-run={run.state}>
      <ProgressBar
        label={label}
        done={done}
        total={total}
        text={text}
        {...(run.failure === undefined ? {} : { more: t(`learn.run.failure.${run.failure}`) })}
      />
    </div>
  )
}

/** One button of the run. */
function RunButton({ s, label, onClick }: { s: LearnRunState; label: string; onClick: () => void }): ReactNode {
  return (
    <button type="button" className="ap-btn" disabled={s.busy} onClick={onClick}>
      {label}
    </button>
  )
}

/** Props of {@link LearnRun}. */
export interface LearnRunProps {
  /** The pick to start from, once its cost was shown; null before. */
  pick: LearnPick | null
}

/** The run's controls and progress. */
export function LearnRun({ pick }: LearnRunProps): ReactNode {
  const t = useT()
  const s = useLearnRun()
  const run = s.run
  const active = run !== undefined && (run.state === 'running' || run.state === 'paused' || run.state === 'failed')
  return (
    <div className="ap-learn-run">
      {run !== undefined && <Progress t={t} run={run} />}
      <div className="ap-row">
        {!active && pick !== null && (
          <RunButton s={s} label={t('learn.run.start')} onClick={() => void s.start(pick)} />
        )}
        {run?.state === 'running' && (
          <RunButton s={s} label={t('learn.run.pause')} onClick={() => void s.control('pause')} />
        )}
        {(run?.state === 'paused' || run?.state === 'failed') && (
          <RunButton s={s} label={t('learn.run.resume')} onClick={() => void s.control('resume')} />
        )}
        {active && <RunButton s={s} label={t('learn.run.cancel')} onClick={() => void s.control('cancel')} />}
        {run !== undefined && !active && run.facts > 0 && (
          <RunButton s={s} label={t('learn.run.undo')} onClick={() => void s.undo()} />
        )}
      </div>
      <OutcomeLine outcome={s.outcome?.text === '' ? null : s.outcome} />
    </div>
  )
}
