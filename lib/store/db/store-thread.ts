/**
 * Store jobs (store-jobs.ts: a backup's copy, the creation of the database, the integrity check, an import's
 * checkpoints) run on a worker thread, so that the event loop answers pages and turns while SQLite copies or creates.
 * A rare job (a backup a day, a creation per home, a check per start) gets a thread of its own, which ends with it; a
 * run of jobs (the checkpoints of one own import) shares one kept thread, {@link KeptThread}. It owns the threads'
 * start and end, never what a job does.
 */
import { Worker } from 'node:worker_threads'
import type { JobAnswer, StoreJob } from './store-jobs.ts'
import { entryScript } from '../../runtime/entry-script.ts'

/** The worker's script: beside this module in the source, beside the bundle (dist/store-worker.js) once built. */
const script = (): URL => entryScript('store-worker', import.meta.url)

/** The answer the worker posts. */
type Answer = { ok: true; value: unknown } | { ok: false; message: string }

/** How a job's thread runs beside the host. */
export interface ThreadOptions {
  /** Ends the thread (its promise then rejects): a job no one waits for any more. */
  signal?: AbortSignal
  /**
   * A job that must not keep the host's process alive (an exit meanwhile leaves it undone), with a small heap: the
   * integrity check holds table names and a few lines, SQLite's own pages are not counted there.
   */
  background?: boolean
}

/** The workerData of a kept thread: it runs each job it is sent instead of one it was started with. */
export const KEPT = 'agent-profiles: kept store thread'

/** The background thread's heap: a job holds table names and a few lines, SQLite's own pages are not counted there. */
const SMALL_HEAP = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 }

/** Run `job` on a worker thread; rejects with the job's failure, or the thread's when it could not run it. */
export function runInThread<J extends StoreJob>(job: J, options: ThreadOptions = {}): Promise<JobAnswer<J>> {
  return new Promise((resolve, reject) => {
    let answer: Answer | undefined
    let worker: Worker
    try {
      worker = new Worker(script(), {
        workerData: job,
        stdout: false,
        stderr: false,
        ...(options.background === true && { resourceLimits: SMALL_HEAP }),
      })
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)))
      return
    }
    if (options.background === true) worker.unref()
    options.signal?.addEventListener('abort', () => void worker.terminate(), { once: true })
    worker.once('message', (a: Answer) => {
      answer = a
    })
    worker.once('error', (e) => {
      answer ??= { ok: false, message: e.message }
    })
    worker.once('exit', (code) => {
      if (answer?.ok === true) resolve(answer.value as JobAnswer<J>)
      else reject(new Error(answer?.message ?? `the store's worker thread ended (exit code ${code}) before its job`))
    })
  })
}

/**
 * One thread for a run of jobs, one job at a time, started at the first and ended by {@link close}. Why: starting a
 * thread loads the store's code anew, ~280 ms of a core (measured in the real `dsh web`), and a large own import
 * checkpoints its WAL every second or so: 181 threads started and ended in one import of 95 × 5,200 items took 50 s
 * of CPU from the two cores the host's event loop shares. The thread never keeps the host's process alive, and one
 * that failed (or was ended) is started anew by the next job.
 */
export class KeptThread {
  #worker: Worker | undefined
  /** The job being run: its answer or the thread's end settles it. */
  #waiting: ((a: Answer) => void) | undefined

  /**
   * Run `job` on the kept thread; rejects with the job's failure, or the thread's when it could not run it. `transfer`:
   * buffers of the job handed over, not copied (the caller must not use them after).
   */
  async run<J extends StoreJob>(job: J, transfer: ArrayBuffer[] = []): Promise<JobAnswer<J>> {
    if (this.#waiting !== undefined) throw new Error("the store's kept thread is running a job already")
    const worker = this.#worker ?? this.#start()
    const a = await new Promise<Answer>((resolve) => {
      this.#waiting = resolve
      worker.postMessage(job, transfer)
    })
    if (!a.ok) throw new Error(a.message)
    return a.value as JobAnswer<J>
  }

  /** End the thread (a job it runs then fails); the next job starts another. */
  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    await worker?.terminate()
  }

  #start(): Worker {
    const worker = new Worker(script(), { workerData: KEPT, stdout: false, stderr: false, resourceLimits: SMALL_HEAP })
    worker.unref()
    const settle = (a: Answer) => {
      const waiting = this.#waiting
      this.#waiting = undefined
      waiting?.(a)
    }
    worker.on('message', settle)
    worker.once('error', (e) => settle({ ok: false, message: e.message }))
    worker.once('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined
      settle({ ok: false, message: `the store's kept thread ended (exit code ${code}) before its job` })
    })
    this.#worker = worker
    return worker
  }
}
