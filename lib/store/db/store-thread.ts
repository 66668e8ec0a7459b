/**
 * Store jobs (store-jobs.ts: a backup's copy, the creation of the database) run on a worker thread of their own, one
 * thread per job, so that the event loop answers pages and turns while SQLite copies or creates. A job is rare (a
 * backup a day, a creation per home), so no thread is kept between jobs. It owns the thread's start and end, never
 * what the job does.
 */
import { Worker } from 'node:worker_threads'
import type { StoreJob } from './store-jobs.ts'

/** The worker's script: beside this module in the source, beside the bundle (dist/store-worker.js) once built. */
function script(): URL {
  const here = import.meta.url
  return new URL(here.endsWith('.ts') ? './store-worker.ts' : './store-worker.js', here)
}

/** The answer the worker posts. */
type Answer = { ok: true } | { ok: false; message: string }

/** Run `job` on a worker thread; rejects with the job's failure, or the thread's when it could not run it. */
export function runInThread(job: StoreJob): Promise<void> {
  return new Promise((resolve, reject) => {
    let answer: Answer | undefined
    let worker: Worker
    try {
      worker = new Worker(script(), { workerData: job, stdout: false, stderr: false })
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)))
      return
    }
    worker.once('message', (a: Answer) => {
      answer = a
    })
    worker.once('error', (e) => {
      answer ??= { ok: false, message: e.message }
    })
    worker.once('exit', (code) => {
      if (answer?.ok === true) resolve()
      else reject(new Error(answer?.message ?? `the store's worker thread ended (exit code ${code}) before its job`))
    })
  })
}
