/**
 * An import worker for test/http/import-pool.spec.ts whose thread is held without spending processor time, as a
 * thread the system gives no core to is: before reading a file named `wait.md` it blocks for WAIT_MS, then the real
 * worker (lib/http/import-worker.ts) reads it; a file named `stuck.md` blocks it for good. It asserts nothing.
 */
import { parentPort } from 'node:worker_threads'
import type { WorkerJob } from '../../lib/http/import-pool.ts'

/** How long `wait.md` holds the thread: twice the processor-time limit the spec gives the pool. */
const WAIT_MS = 1_000

const blocker = new Int32Array(new SharedArrayBuffer(4))

// Listens before the real worker, which then reads the file as it would have.
parentPort!.on('message', (job: WorkerJob) => {
  const name = job.kind === 'file' ? (job.file as { name?: unknown }).name : undefined
  if (name === 'wait.md') Atomics.wait(blocker, 0, 0, WAIT_MS)
  if (name === 'stuck.md') Atomics.wait(blocker, 0, 0)
})
await import('../../lib/http/import-worker.ts')
