/**
 * An import worker for test/http/import-pool.spec.ts that misbehaves on cue: a file named `loop.md` spins forever
 * (a parse gone wrong), one named `hog.md` allocates until the thread's heap limit ends it — read alone or inside a
 * body, where the files before it are read and posted as the real worker does — and every other job is the real
 * worker's (lib/http/import-worker.ts). It asserts nothing.
 */
import { parentPort } from 'node:worker_threads'
import { readFile } from '../../lib/commands/file-read.ts'
import type { WorkerJob } from '../../lib/http/import-pool.ts'

const ctx = { now: 0, newId: (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}` }

function misbehave(name: unknown): void {
  if (name === 'loop.md') for (;;);
  if (name === 'hog.md') {
    const held: number[][] = []
    for (;;) held.push(Array.from({ length: 100_000 }, (_, i) => i))
  }
}

// Listens before the real worker, which answers every job it hears: a faulting job never reaches it.
parentPort!.on('message', (job: WorkerJob) => {
  if (job.kind === 'file') return misbehave((job.file as { name?: string }).name)
  const text = new TextDecoder().decode(job.bytes)
  if (!/"(loop|hog)\.md"/.test(text)) return
  const { files, ...rest } = JSON.parse(text) as { files: { name: string; format: string }[] }
  parentPort!.postMessage({
    id: job.id,
    kind: 'head',
    value: { ...rest, files: files.map((f) => ({ name: f.name, format: f.format })) },
  })
  files.forEach((file, index) => {
    misbehave(file.name)
    parentPort!.postMessage({ id: job.id, kind: 'read', read: readFile(file, index, ctx) })
  })
})
await import('../../lib/http/import-worker.ts')
