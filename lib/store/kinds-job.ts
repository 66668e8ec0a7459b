/**
 * The background fill of the item columns a database of schema 3 lacks (lib/store/db/item-kinds.ts does one step):
 * after the start, one bounded step of rows per tick with a pause between, so turns and commands run between steps;
 * then the index, made on the store's worker thread since it reads every row. Each step is its own transaction that
 * records how far it got, so a kill loses nothing and the next start resumes; a failure is logged, never thrown (the
 * reads keep using the rows' text, correct and slower, and the next start tries again). Owns the pacing only.
 */
import type { Log } from '../shared/log.ts'
import { errorText } from '../shared/errors.ts'
import type { FillStep } from './db/item-kinds.ts'
import { runInThread } from './db/store-thread.ts'

/** Time before the first step and between steps: the start and a first turn come first. */
const STEP_MS = 50

/** Rows one step fills at most (a few milliseconds of the event loop). */
const BATCH_ROWS = 1_000

/** What the job asks of the store's database. */
export interface KindsTarget {
  kindsStep(limit: number): FillStep
}

/** What the job is doing, for Diagnostics: filling rows, making the index, or done (undefined: never needed). */
type KindsState = 'filling' | 'indexing' | 'done' | 'stopped'

/** The running job: its state, and how to stop it and wait for the worker's part to end. */
export interface KindsJob {
  state(): KindsState
  stop(): Promise<void>
}

/**
 * Start the fill in the background for the database at `file`; `target` answers undefined once the store closes.
 * `batch`: rows per step (tests set it small, to stop it mid-way).
 */
export function fillKindsInBackground(
  file: string,
  target: () => KindsTarget | undefined,
  log?: Log,
  batch = BATCH_ROWS,
): KindsJob {
  let timer: NodeJS.Timeout | undefined
  let state: KindsState = 'filling'
  let worker: Promise<void> | undefined
  const stopped = (e: unknown) => {
    state = 'stopped'
    log?.warn(
      `agent-profiles: store: filling the memory item columns stopped (it resumes at the next start): ${errorText(e)}`,
    )
  }
  const next = () => {
    timer = setTimeout(step, STEP_MS)
    timer.unref()
  }
  const step = () => {
    timer = undefined
    const db = target()
    if (state !== 'filling' || db === undefined) return
    let out: FillStep
    try {
      out = db.kindsStep(batch)
    } catch (e) {
      stopped(e)
      return
    }
    if (out === 'done') state = 'done'
    else if (out !== 'filled') next()
    else {
      state = 'indexing'
      worker = runInThread({ kind: 'kinds', file }, { background: true }).then(
        () => void (state = state === 'indexing' ? 'done' : state),
        stopped,
      )
    }
  }
  next()
  return {
    state: () => state,
    async stop() {
      if (timer !== undefined) clearTimeout(timer)
      if (state === 'filling') state = 'stopped'
      await worker
    },
  }
}
