/**
 * The import worker's thread: parses a large request body and reads import files (lib/commands/file-read.ts) off the
 * host's event loop, one job at a time, answering each with its outcome. Started and bounded (time, memory, one
 * thread) by import-pool.ts, its only user; built to `dist/import-worker.js` beside `dist/index.js`
 * (scripts/build.mjs). It holds no state between jobs and never touches the store or the disk.
 */
import { parentPort } from 'node:worker_threads'
import { READY, work, type WorkerJob } from './import-pool.ts'

parentPort?.on('message', (job: WorkerJob) => {
  work(job, (answer, transfer) => {
    parentPort!.postMessage(answer, transfer)
  })
})
parentPort?.postMessage(READY)
