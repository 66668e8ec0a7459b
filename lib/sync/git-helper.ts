/**
 * The git helper process: a small Node process the host starts once (git-host.ts) and asks, over its IPC channel, to
 * run git. Each git process is forked from this small process rather than from dsh, whose fork pauses its event loop
 * for longer the more memory it holds (tens of milliseconds at a few hundred MB): a turn no longer waits for a sync's
 * git calls. It runs what it is sent, bounded as git-spawn.ts bounds it, and answers each job by its number; it never
 * reads or writes anything itself. When the host goes (its channel closes: an exit, a crash, a kill -9), it kills the
 * git processes it started and ends.
 */
import type { ChildProcess } from 'node:child_process'
import { spawnGit, type SpawnJob } from './git-spawn.ts'

/** A job as the host sends it. */
interface Request extends SpawnJob {
  id: number
}

const running = new Set<ChildProcess>()

process.on('message', (raw: unknown) => {
  const job = raw as Request
  let child: ChildProcess | undefined
  void spawnGit(job, (c) => {
    child = c
    running.add(c)
  }).then((result) => {
    if (child !== undefined) running.delete(child)
    if (process.connected) process.send!({ id: job.id, result })
  })
})

process.on('disconnect', () => {
  for (const c of running) c.kill('SIGKILL')
  process.exit(0)
})
