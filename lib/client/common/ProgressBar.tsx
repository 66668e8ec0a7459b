/**
 * A progress bar of background work (a large import, a learning run): the track and its fill, read out by screen
 * readers as `label` and `text` (done of total), with the label and the words beside it. It never asks the host how
 * far the work is: its surface does.
 */
import type { ReactNode } from 'react'

/** Props of {@link ProgressBar}. */
export interface ProgressBarProps {
  label: string
  done: number
  total: number
  /** The progress in words (`aria-valuetext`, and shown after the label). */
  text: string
  /** Said after the text, when there is more to say (why the work stopped). */
  more?: string
}

/** The bar, its label and its words. */
export function ProgressBar({ label, done, total, text, more }: ProgressBarProps): ReactNode {
  const share = total === 0 ? 0 : Math.round((done / total) * 100)
  return (
    <>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={text}
        className="ap-io-progress-track"
      >
        <div className="ap-io-progress-fill" style={{ width: `${share}%` }} />
      </div>
      <span className="ap-hint">
        {label} · {text}
        {more === undefined ? '' : ` · ${more}`}
      </span>
    </>
  )
}
