/**
 * React hook of a button's action: whether one is under way (the surface disables its buttons meanwhile) and what the
 * last one came to, for an {@link OutcomeLine}. It clears the outcome when the next action starts and words a failure
 * with feedback.ts; it never calls the host itself and never renders. Every surface with a busy state and an outcome
 * line holds them here, so "busy while it runs, the last words gone meanwhile, a failure worded" reads the same
 * everywhere.
 */
import { useCallback, useState } from 'react'
import type { Outcome } from './Outcome.tsx'
import { describeError } from './feedback.ts'
import { useT } from '../copy/locales.ts'

/** One surface's action state. */
export interface Action {
  busy: boolean
  outcome: Outcome | null
  /**
   * Run `job`, busy meanwhile: its outcome is the words `job` resolves to (none when it resolves to nothing or to '':
   * an action that says nothing, or one the user called off), or its failure worded.
   */
  run(job: () => Promise<string | void>): Promise<void>
  /**
   * Run `job` without marking the surface busy, its outcome as {@link Action.run}'s; the last one stays until then. For
   * a request that leaves the surface's draft alone (a toggle, a refresh), during which Save must not read "Saving…".
   */
  say(job: () => Promise<string | void>): Promise<void>
  /** Show `e` as the outcome (a read that failed outside an action); the same function on every render. */
  fail(e: unknown): void
  /** Drop the outcome (what it spoke of is no longer on screen); the same function on every render. */
  clear(): void
}

/** The action state of one surface. */
export function useAction(): Action {
  const t = useT()
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const fail = useCallback((e: unknown) => setOutcome({ kind: 'error', text: describeError(t, e) }), [t])
  const clear = useCallback(() => setOutcome(null), [])
  const say = useCallback(
    async (job: () => Promise<string | void>) => {
      try {
        const words = await job()
        setOutcome(typeof words === 'string' && words !== '' ? { kind: 'ok', text: words } : null)
      } catch (e) {
        fail(e)
      }
    },
    [fail],
  )
  const run = useCallback(
    async (job: () => Promise<string | void>) => {
      setBusy(true)
      setOutcome(null)
      try {
        await say(job)
      } finally {
        setBusy(false)
      }
    },
    [say],
  )
  return { busy, outcome, run, say, fail, clear }
}
