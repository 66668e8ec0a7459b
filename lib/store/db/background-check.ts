/**
 * The database's full integrity check, run after the store has started instead of at every open: `PRAGMA quick_check`
 * reads every page of every table, which with years of memory is most of the time an open takes. It runs on the store's
 * worker thread (store-thread.ts) with its own read-only connection, so the event loop serves turns and pages for the
 * whole check, however large the store; it never writes a row and never throws. Damage it finds is reported
 * (lastError, the log) and marked beside the database, so that the next open runs the full check and keeps the file
 * aside, salvaging every row still readable (open-store.ts): what the user saves meanwhile goes to the same file, and
 * that salvage copies it like any other row.
 */
import { basename } from 'node:path'
import { errorText } from '../../shared/errors.ts'
import { runInThread } from './store-thread.ts'
import type { IntegrityCheck } from '../../shared/meta.ts'
import { markCheckDue } from './damage.ts'
import type { Problem } from './load.ts'
import { isIndexProblem } from './memory-index.ts'

/** Time before the check's thread starts: the start and a first turn come first. */
const START_DELAY_MS = 50

/** What the background check tells its store. */
export interface CheckReport {
  /** Damage was found: the problem for lastError and the log. */
  damaged(problem: Problem): void
  /** The check could not run (its thread did not start): said in the log; the next start tries again. */
  notRun(message: string): void
  /** What the check says changed (it started, or it ended whatever it found): an open page shows it now. */
  changed(): void
}

/** How one run of the check ended. */
type Ending = { found: string[] } | { notRun: string } | 'gone'

/** Mark `file` for the full check at the next open and tell the store what the check found. */
function damaged(file: string, found: string[], report: CheckReport): void {
  const name = basename(file)
  const detail = found.slice(0, 3).join('; ')
  markCheckDue(file, detail)
  report.damaged({
    message: `${name} failed its integrity check (${detail}); it is kept aside and its readable rows are saved at the next start`,
    why: { key: 'damaged', params: { file: name }, detail },
  })
}

/**
 * The background check of one database file and what it found: started after the store's start, and again when a
 * read meets a damaged page; one run at a time, stopped at close.
 */
export class BackgroundCheck {
  readonly #file: string
  readonly #report: CheckReport
  #state: IntegrityCheck | undefined
  #stop: (() => void) | undefined
  /** Stopped for good (the store closed): no run starts again. */
  #closed = false

  constructor(file: string, report: CheckReport) {
    this.#file = file
    this.#report = report
  }

  /** What the check found since this start; undefined before its first run. */
  get state(): IntegrityCheck | undefined {
    return this.#state
  }

  /** Run the check now, unless a run is under way. */
  start(): void {
    if (this.#stop !== undefined || this.#closed) return
    this.#state = { state: 'pending' }
    this.#stop = runCheck(this.#file, (ending) => this.#ended(ending))
    this.#report.changed()
  }

  /**
   * A read met a damaged page (`detail`: SQLite's words): the file is marked for the full check at the next open at
   * once, and checked now unless a run is under way or one already found the damage.
   */
  readDamaged(detail: string): void {
    markCheckDue(this.#file, detail)
    if (this.#state?.state !== 'damaged') this.start()
  }

  /** Stop a run under way, and every later one (at close): it reports nothing. */
  stop(): void {
    this.#closed = true
    this.#stop?.()
    this.#stop = undefined
  }

  #ended(ending: Ending): void {
    this.#stop = undefined
    const at = Date.now()
    if (ending === 'gone') {
      this.#state = undefined
    } else if ('notRun' in ending) {
      this.#state = { state: 'not-run', at }
      this.#report.notRun(ending.notRun)
    } else if (ending.found.length === 0) {
      this.#state = { state: 'sound', at }
    } else {
      this.#state = { state: 'damaged', at }
      damaged(this.#file, ending.found, this.#report)
    }
    this.#report.changed()
  }
}

/** Start one run of the full check of `file` on its thread; returns a function that stops it without an ending. */
function runCheck(file: string, ended: (ending: Ending) => void): () => void {
  let stopped = false
  const ending = new AbortController()
  const end = (e: Ending) => {
    if (stopped) return
    stop()
    ended(e)
  }
  const start = () => {
    runInThread({ kind: 'check', file }, { signal: ending.signal, background: true }).then(
      (answer) => end(answer.kind === 'gone' ? 'gone' : { found: answer.lines.filter((l) => !isIndexProblem(l)) }),
      (e: unknown) =>
        end({ notRun: `the background integrity check of ${basename(file)} did not run: ${errorText(e)}` }),
    )
  }
  const timer = setTimeout(start, START_DELAY_MS)
  timer.unref()
  const stop = () => {
    stopped = true
    clearTimeout(timer)
    ending.abort()
  }
  return stop
}
