/**
 * The background job that re-terms the memory index after its terms changed (lib/store/db/index-reterm.ts does one
 * batch): after the start, one bounded batch per step with a pause between, so turns and commands run between
 * batches; it stops when nothing is left, at close, or on a failure (logged, never thrown: the index then keeps the
 * terms it has and the next start tries again from the last batch committed). Owns the pacing only.
 */
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'

/** Time before the first step and between steps: the start and a first turn come first. */
export const STEP_MS = 50

/** Work one step does at most: items, and milliseconds of the event loop. */
const BATCH_ITEMS = 2_000
const BATCH_MS = 12

/** What the job asks of the store's database. */
export interface RetermTarget {
  retermStep(limit: number, ms: number): 'busy' | 'more' | 'done'
}

/** Start re-terming in the background; returns a function that stops it. `batch`: items per step (tests set it small). */
export function retermInBackground(target: () => RetermTarget | undefined, log?: Log, batch = BATCH_ITEMS): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const next = () => {
    if (stopped) return
    timer = setTimeout(step, STEP_MS)
    timer.unref()
  }
  const step = () => {
    timer = undefined
    const db = target()
    if (stopped || db === undefined) return
    try {
      if (db.retermStep(batch, BATCH_MS) === 'done') return
    } catch (e) {
      log?.warn(
        `agent-profiles: store: re-terming the memory index stopped (it resumes at the next start): ${errorText(e)}`,
      )
      return
    }
    next()
  }
  next()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}
