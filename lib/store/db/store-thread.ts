/**
 * Store jobs (store-jobs.ts: a backup's copy, the creation of the database, the integrity check) run on a worker thread of their own, one
 * thread per job, so that the event loop answers pages and turns while SQLite copies or creates. A job is rare (a
 * backup a day, a creation per home, a check per start), so no thread is kept between jobs. It owns the thread's start and end, never
 * what the job does.
 */
import { Worker } from 'node:worker_threads'
import type { JobAnswer, StoreJob } from './store-jobs.ts'

/** The worker's script: beside this module in the source, beside the bundle (dist/store-worker.js) once built. */
function script(): URL {
  const here = import.meta.url
  return new URL(here.endsWith('.ts') ? './store-worker.ts' : './store-worker.js', here)
}

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
        ...(options.background === true && {
          resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
        }),
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
