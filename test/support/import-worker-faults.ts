/**
 * An import worker for test/http/import-pool.spec.ts that misbehaves on cue: a file named `loop.md` spins forever
 * (a parse gone wrong), one named `hog.md` allocates until the thread's heap limit ends it, and every other job is the
 * real worker's (lib/http/import-worker.ts). It asserts nothing.
 */
import { parentPort } from 'node:worker_threads'
import type { WorkerJob } from '../../lib/http/import-pool.ts'

const name = (job: WorkerJob) => (job.kind === 'file' ? (job.file as { name?: string }).name : undefined)

// Listens before the real worker, which answers every job it hears: a faulting job never reaches it.
parentPort!.on('message', (job: WorkerJob) => {
  if (name(job) === 'loop.md') for (;;);
  if (name(job) === 'hog.md') {
    const held: number[][] = []
    for (;;) held.push(Array.from({ length: 100_000 }, (_, i) => i))
  }
})
await import('../../lib/http/import-worker.ts')
