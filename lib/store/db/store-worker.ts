/**
 * The worker thread of store-thread.ts: runs the one job it was started with (workerData), or, started as a kept
 * thread, each job it is sent in turn, and says how each ended. It never throws out of the thread (a failure is its
 * answer); a one-job thread ends once the job's connection is closed, a kept one when its owner ends it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { errorText } from '../../shared/errors.ts'
import { runStoreJob, type StoreJob } from './store-jobs.ts'
import { KEPT } from './store-thread.ts'

function answer(job: StoreJob): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: runStoreJob(job) }
  } catch (e) {
    return { ok: false, message: errorText(e) }
  }
}

if (workerData === KEPT) parentPort?.on('message', (job: StoreJob) => parentPort?.postMessage(answer(job)))
else parentPort?.postMessage(answer(workerData as StoreJob))
