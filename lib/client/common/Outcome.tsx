/**
 * What the user's last action came to, said where it was done: a confirmation, announced politely, or a refusal or
 * failure, announced at once. It words nothing itself (feedback.ts does) and keeps no state: the caller holds the
 * outcome and clears it when the next action starts.
 */
import type { ReactNode } from 'react'

/** The words of an action's outcome, and whether it went through. */
export interface Outcome {
  kind: 'ok' | 'error'
  text: string
}

/** Props of {@link OutcomeLine}. */
export interface OutcomeLineProps {
  outcome: Outcome | null
  /** What follows the words, such as a follow-up button. */
  children?: ReactNode
}

/** The outcome's line, or nothing before any. */
export function OutcomeLine({ outcome, children }: OutcomeLineProps): ReactNode {
  if (outcome === null) return null
  const ok = outcome.kind === 'ok'
  return (
    <div className={ok ? 'ap-notice' : 'ap-error'} role={ok ? 'status' : 'alert'}>
      {outcome.text}
      {children}
    </div>
  )
}
