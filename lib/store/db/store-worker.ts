/**
 * The worker thread of store-thread.ts: runs the one job it was started with (workerData) and says how it ended. It
 * never throws out of the thread (a failure is its answer), and ends once the job's connection is closed.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { errorText } from '../../shared/errors.ts'
import { runStoreJob, type StoreJob } from './store-jobs.ts'

try {
  parentPort?.postMessage({ ok: true, value: runStoreJob(workerData as StoreJob) })
} catch (e) {
  parentPort?.postMessage({ ok: false, message: errorText(e) })
}
