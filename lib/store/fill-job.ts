/**
 * The background fills of what a migration added to every memory item row (lib/store/db/item-kinds.ts: the kind
 * columns a database of schema 3 lacks; lib/store/db/text-keys.ts: the text keys one of schema 6 lacks; each does
 * one step): after the start, one bounded step of rows per tick with a pause between, so turns and commands run
 * between steps; then the index (and, for the kinds, the rows' counts, item-counts.ts), made on the store's worker
 * thread since it reads every row (a database filled already by an earlier version goes to that at once). Each step is
 * its own transaction that records how far it got, so a kill loses nothing and the next start resumes; a failure is
 * logged, never thrown (the reads keep using the rows' text, correct and slower, and the next start tries again). Owns
 * the pacing only.
 */
import type { Log } from '../shared/log.ts'
import type { BackgroundUpgrade } from '../shared/meta.ts'
import { errorText } from '../shared/errors.ts'
import type { FillStep } from './db/item-kinds.ts'
import { runInThread } from './db/store-thread.ts'
import { everyStep } from './background-steps.ts'

/** Rows one step fills at most (a few milliseconds of the event loop). */
const BATCH_ROWS = 1_000

/** Which fill: its name is also the worker job that ends it (store-jobs.ts). */
export type Fill = 'kinds' | 'textKeys'

/** What the log calls each fill. */
const WHAT: Record<Fill, string> = { kinds: 'the memory item columns', textKeys: "the memory items' text keys" }

/** What the job asks of the store's database. */
export interface FillTarget {
  /** Whether the fill is done already (every start but the one after the migration). */
  fillDone(fill: Fill): boolean
  fillStep(fill: Fill, limit: number): FillStep
}

/** What the job is doing, for Diagnostics: filling rows, making the index, or done (undefined: never needed). */
type FillState = 'filling' | 'indexing' | 'done' | 'stopped'

/**
 * What Diagnostics says of the jobs in `states` (`meta.data.upgrade`): running while one runs, stopped when one
 * stopped and none runs, nothing once all are done (or with no job).
 */
export function upgradeOf(...states: (FillState | undefined)[]): { upgrade?: BackgroundUpgrade } {
  if (states.some((s) => s === 'filling' || s === 'indexing')) return { upgrade: 'running' }
  return states.includes('stopped') ? { upgrade: 'stopped' } : {}
}

/**
 * A running job: its state, and how to stop it. The index's thread is not waited for: it keeps no process alive
 * (an exit meanwhile rolls its transaction back, and the next start makes the index again), and its connection is
 * its own, so the store may close before it ends.
 */
export interface FillJob {
  state(): FillState
  stop(): void
}

/** Who the job tells of itself: the log, and who shows Diagnostics' row (`changed`: the row says something else now). */
interface FillReport {
  log?: Log
  changed(): void
}

/**
 * Start `fill` in the background for the database at `file`; `target` answers undefined once the store closes.
 * `batch`: rows per step (tests set it small, to stop it mid-way).
 */
export function fillInBackground(
  fill: Fill,
  file: string,
  target: () => FillTarget | undefined,
  report: FillReport,
  batch = BATCH_ROWS,
): FillJob {
  let state: FillState = target()?.fillDone(fill) === false ? 'filling' : 'done'
  let closed = false
  /**
   * Move to `next`, and tell an open page when Diagnostics' row changes with it (the end, or a stop), so that it
   * shows it without a reload; nobody is told after the close, when nobody is left to show it.
   */
  const become = (next: FillState) => {
    const was = upgradeOf(state).upgrade
    state = next
    if (!closed && upgradeOf(state).upgrade !== was) report.changed()
  }
  const stopped = (e: unknown) => {
    become('stopped')
    // After the store closed (its files may be gone, as in a test's clean-up), an index left unmade says nothing.
    if (!closed)
      report.log?.warn(
        `agent-profiles: store: filling ${WHAT[fill]} stopped (it resumes at the next start): ${errorText(e)}`,
      )
  }
  /** One step of the fill; whether another follows. */
  const step = (): boolean => {
    const db = target()
    if (state !== 'filling' || db === undefined) return false
    let out: FillStep
    try {
      out = db.fillStep(fill, batch)
    } catch (e) {
      stopped(e)
      return false
    }
    if (out === 'done') become('done')
    else if (out === 'filled') {
      become('indexing')
      void runInThread({ kind: fill, file }, { background: true }).then(() => {
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
