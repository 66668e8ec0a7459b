/**
 * The background fill of the item columns a database of schema 3 lacks (lib/store/db/item-kinds.ts does one step):
 * after the start, one bounded step of rows per tick with a pause between, so turns and commands run between steps;
 * then the index and the rows' counts (item-counts.ts), made on the store's worker thread since they read every row
 * (a database of schema 4, filled already, goes to that at once). Each step is its own transaction that
 * records how far it got, so a kill loses nothing and the next start resumes; a failure is logged, never thrown (the
 * reads keep using the rows' text, correct and slower, and the next start tries again). Owns the pacing only.
 */
import type { Log } from '../shared/log.ts'
import type { BackgroundUpgrade } from '../shared/meta.ts'
import { errorText } from '../shared/errors.ts'
import type { FillStep } from './db/item-kinds.ts'
import { runInThread } from './db/store-thread.ts'
import { everyStep } from './background-steps.ts'

/** Rows one step fills at most (a few milliseconds of the event loop). */
const BATCH_ROWS = 1_000

/** What the job asks of the store's database. */
export interface KindsTarget {
  /** Whether the columns are filled and indexed already (every start but the one after the migration). */
  kindsDone(): boolean
  kindsStep(limit: number): FillStep
}

/** What the job is doing, for Diagnostics: filling rows, making the index, or done (undefined: never needed). */
type KindsState = 'filling' | 'indexing' | 'done' | 'stopped'

/** What Diagnostics says of the job in `state` (`meta.data.upgrade`): nothing once it is done, or with no job. */
export function upgradeOf(state: KindsState | undefined): { upgrade?: BackgroundUpgrade } {
  if (state === undefined || state === 'done') return {}
  return { upgrade: state === 'stopped' ? 'stopped' : 'running' }
}

/**
 * The running job: its state, and how to stop it. The index's thread is not waited for: it keeps no process alive
 * (an exit meanwhile rolls its transaction back, and the next start makes the index again), and its connection is
 * its own, so the store may close before it ends.
 */
export interface KindsJob {
  state(): KindsState
  stop(): void
}

/** Who the job tells of itself: the log, and who shows Diagnostics' row (`changed`: the row says something else now). */
interface KindsReport {
  log?: Log
  changed(): void
}

/**
 * Start the fill in the background for the database at `file`; `target` answers undefined once the store closes.
 * `batch`: rows per step (tests set it small, to stop it mid-way).
 */
export function fillKindsInBackground(
  file: string,
  target: () => KindsTarget | undefined,
  report: KindsReport,
  batch = BATCH_ROWS,
): KindsJob {
  let state: KindsState = target()?.kindsDone() === false ? 'filling' : 'done'
  let closed = false
  /**
   * Move to `next`, and tell an open page when Diagnostics' row changes with it (the end, or a stop), so that it
   * shows it without a reload; nobody is told after the close, when nobody is left to show it.
   */
  const become = (next: KindsState) => {
    const was = upgradeOf(state).upgrade
    state = next
    if (!closed && upgradeOf(state).upgrade !== was) report.changed()
  }
  const stopped = (e: unknown) => {
    become('stopped')
    // After the store closed (its files may be gone, as in a test's clean-up), an index left unmade says nothing.
    if (!closed)
      report.log?.warn(
        `agent-profiles: store: filling the memory item columns stopped (it resumes at the next start): ${errorText(e)}`,
      )
  }
  /** One step of the fill; whether another follows. */
  const step = (): boolean => {
    const db = target()
    if (state !== 'filling' || db === undefined) return false
    let out: FillStep
    try {
      out = db.kindsStep(batch)
    } catch (e) {
      stopped(e)
      return false
    }
    if (out === 'done') become('done')
    else if (out === 'filled') {
      become('indexing')
      void runInThread({ kind: 'kinds', file }, { background: true }).then(() => {
        if (state === 'indexing') become('done')
      }, stopped)
    }
    return out === 'busy' || out === 'more'
  }
  const stop = state === 'filling' ? everyStep(step) : undefined
  // The start: a page open since before it (the store opened, then the job began) shows the row now.
  if (stop !== undefined) report.changed()
  return {
    state: () => state,
    stop() {
      closed = true
      stop?.()
      if (state === 'filling') state = 'stopped'
    },
  }
}
