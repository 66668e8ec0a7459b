/**
 * The background upkeep of the memory index, one bounded step per tick with a pause between (background-steps.ts), so
 * turns and commands run between steps: re-terming it after its terms changed (lib/store/db/index-reterm.ts does one
 * batch), then merging its segments after a bulk write (lib/store/db/index-merge.ts does one step), so that no later
 * save pays for the merge a bulk write left. It runs from the start until nothing is left, again after a write that
 * left a merge due, never twice at once, and stops at close or on a failure (logged, never thrown: the index then
 * keeps the terms and segments it has, correct, and the next start tries again from the last step committed). Owns
 * the steps' bounds and when the job runs.
 */
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'
import { everyStep } from './background-steps.ts'

/** Work one re-terming step does at most: items, and milliseconds of the event loop. */
const BATCH_ITEMS = 2_000
const BATCH_MS = 12

/**
 * Leaf pages one merging step merges at most: counted ~0.25 ms a page on 99,750 items (the whole index, ~4,000
 * pages, merged in ~60 steps, ~1 s of work spread over ~4 s), so a step holds the event loop ~15 ms.
 */
const MERGE_PAGES = 64

/** What the job asks of the store's database. */
export interface IndexTarget {
  retermStep(limit: number, ms: number): 'busy' | 'more' | 'done'
  mergeStep(pages: number): 'busy' | 'more' | 'done'
  /** Whether a merge is due, as the process knows without a read. */
  readonly mergeDue: boolean
}

/** The running upkeep: start it again when a write left a merge due, or stop it. */
export interface IndexJob {
  mergeIfDue(): void
  stop(): void
}

/** Steps' sizes (tests set them small, to stop the job mid-way): items re-termed, pages merged. */
interface StepSizes {
  retermBatch?: number
  mergePages?: number
}

/** Start the index's upkeep in the background; `target` answers undefined once the store closes. */
export function indexInBackground(target: () => IndexTarget | undefined, log?: Log, sizes: StepSizes = {}): IndexJob {
  const { retermBatch = BATCH_ITEMS, mergePages = MERGE_PAGES } = sizes
  let stopTimer: (() => void) | undefined
  let idle = false
  let ended = false
  const step = (): boolean => {
    const db = target()
    try {
      idle =
        db === undefined || (db.retermStep(retermBatch, BATCH_MS) === 'done' && db.mergeStep(mergePages) === 'done')
    } catch (e) {
      ended = true
      idle = true
      log?.warn(
        `agent-profiles: store: the memory index's re-terming or merging stopped (it resumes at the next start): ${errorText(e)}`,
      )
    }
    return !idle
  }
  stopTimer = everyStep(step)
  return {
    mergeIfDue() {
      if (ended || !idle || target()?.mergeDue !== true) return
      idle = false
      stopTimer = everyStep(step)
    },
    stop() {
      ended = true
      stopTimer?.()
    },
  }
}
