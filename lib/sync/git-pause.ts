/**
 * The git processes running in this process, which a turn pauses. A sync's git call starts only between turns
 * (repo.ts), but one already running when a turn begins — in practice the run's fetch: a transport, pack-objects and
 * index-pack writing the clone — competes with the turn's prompt assembly for the CPU and the disk, and a turn beside
 * it took 1.2× as long. So while turns run, each such process (its whole process group: git and what it started) is
 * stopped, and continued when they end. A pause never makes a sync fail or hang: the time limit of a call does not
 * count while it is stopped, and each process is stopped for at most {@link PAUSE_LIMIT_MS} in all, after which it
 * runs to its end whatever turns run. Killing a group (its time limit, the helper's end) kills it stopped or not.
 */

/** The longest a git process is kept stopped in all, in ms (the sync's own wait for turns, turn-quiet.ts). */
export const PAUSE_LIMIT_MS = 20_000

/** One running git process group, as git-spawn.ts made it. */
export interface Pausable {
  /** Stop the group and its time limit's clock. */
  stop(): void
  /** Continue the group and its clock. */
  go(): void
  /** Kill the group, stopped or not. */
  end(): void
}

/** A running group's pause budget left, and the timer that continues it when the budget runs out. */
interface Entry {
  left: number
  since: number
  timer: NodeJS.Timeout | undefined
}

const running = new Map<Pausable, Entry>()
let paused = false

/** From `p`'s start to its end: a pause of the turns under way reaches it; one begun before its start does not. */
export function track(p: Pausable): () => void {
  running.set(p, { left: PAUSE_LIMIT_MS, since: 0, timer: undefined })
  return () => {
    const e = running.get(p)
    if (e !== undefined) clearTimeout(e.timer)
    running.delete(p)
  }
}

function resume(p: Pausable, e: Entry): void {
  if (e.timer === undefined) return
  clearTimeout(e.timer)
  e.timer = undefined
  e.left -= Date.now() - e.since
  p.go()
}

/**
 * Stop (`true`: turns began) or continue (`false`: they ended) every git process group running now. Each stays stopped
 * until continued or until its budget is spent.
 */
export function pauseGit(pause: boolean): void {
  if (pause === paused) return
  paused = pause
  for (const [p, e] of running) {
    if (!pause) resume(p, e)
    else if (e.timer === undefined && e.left > 0) {
      e.since = Date.now()
      e.timer = setTimeout(() => resume(p, e), e.left)
      e.timer.unref()
      p.stop()
    }
  }
}

/** Kill every git process group running now, stopped or not (the helper is ending: no git outlives it). */
export function endGit(): void {
  for (const p of [...running.keys()]) p.end()
}
