/**
 * The background job that re-terms the memory index after its terms changed (lib/store/db/index-reterm.ts does one
 * batch): after the start, one bounded batch per step with a pause between (background-steps.ts), so turns and
 * commands run between batches; it stops when nothing is left, at close, or on a failure (logged, never thrown: the
 * index then keeps the terms it has and the next start tries again from the last batch committed). Owns the batch's
 * bounds only.
 */
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'
import { everyStep } from './background-steps.ts'

/** Work one step does at most: items, and milliseconds of the event loop. */
const BATCH_ITEMS = 2_000
const BATCH_MS = 12

/** What the job asks of the store's database. */
export interface RetermTarget {
  retermStep(limit: number, ms: number): 'busy' | 'more' | 'done'
}

/** Start re-terming in the background; returns a function that stops it. `batch`: items per step (tests set it small). */
export function retermInBackground(target: () => RetermTarget | undefined, log?: Log, batch = BATCH_ITEMS): () => void {
  return everyStep(() => {
    const db = target()
    if (db === undefined) return false
    try {
      return db.retermStep(batch, BATCH_MS) !== 'done'
    } catch (e) {
      log?.warn(
        `agent-profiles: store: re-terming the memory index stopped (it resumes at the next start): ${errorText(e)}`,
      )
      return false
    }
  })
}
