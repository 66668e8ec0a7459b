/**
 * The git helper process: a small Node process the host starts once (git-host.ts) and asks, over its IPC channel, to
 * run git. Each git process is forked from this small process rather than from dsh, whose fork pauses its event loop
 * for longer the more memory it holds (tens of milliseconds at a few hundred MB): a turn no longer waits for a sync's
 * git calls. It runs what it is sent, bounded as git-spawn.ts bounds it, and answers each job by its number; it never
 * reads or writes anything itself. While the host's turns run it keeps the git processes under way stopped
 * (git-pause.ts). When the host goes (its channel closes: an exit, a crash, a kill -9), it kills the git processes it
 * started, stopped or not, and ends.
 */
import { spawnGit, type SpawnJob } from './git-spawn.ts'
import { endGit, pauseGit } from './git-pause.ts'

/** A job as the host sends it, or the host telling that turns began (`pause: true`) or ended. */
type Request = (SpawnJob & { id: number }) | { pause: boolean }

process.on('message', (raw: unknown) => {
  const m = raw as Request
  if ('pause' in m) return void pauseGit(m.pause === true)
  void spawnGit(m).then((result) => {
    if (process.connected) process.send!({ id: m.id, result })
  })
})

process.on('disconnect', () => {
  endGit()
  process.exit(0)
})
