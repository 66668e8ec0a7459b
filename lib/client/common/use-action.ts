/**
 * React hook of a button's action: whether one is under way (the surface disables its buttons meanwhile) and what the
 * last one came to, for an {@link OutcomeLine}. It clears the outcome when the next action starts and words a failure
 * with feedback.ts; it never calls the host itself and never renders.
 */
import { useCallback, useState } from 'react'
import type { Outcome } from './Outcome.tsx'
import { describeError } from './feedback.ts'
import { useT } from '../copy/locales.ts'

/** One surface's action state. */
export interface Action {
  busy: boolean
  outcome: Outcome | null
  /** Run `job`, busy meanwhile: its outcome is the words `job` resolves to, or its failure worded. */
  run(job: () => Promise<string>): Promise<void>
  /** Show `e` as the outcome (a read that failed outside an action); the same function on every render. */
  fail(e: unknown): void
}

/** The action state of one surface. */
export function useAction(): Action {
  const t = useT()
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const fail = useCallback((e: unknown) => setOutcome({ kind: 'error', text: describeError(t, e) }), [t])
  const run = useCallback(
    async (job: () => Promise<string>) => {
      setBusy(true)
      setOutcome(null)
      try {
        setOutcome({ kind: 'ok', text: await job() })
      } catch (e) {
        fail(e)
      } finally {
        setBusy(false)
      }
    },
    [fail],
  )
  return { busy, outcome, run, fail }
}
