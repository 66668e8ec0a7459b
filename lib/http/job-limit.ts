/**
 * The time limit of one job of the import worker (import-pool.ts), counted in the processor time its thread spends on
 * the job, with a wall-clock limit behind it. It owns the timers and the reading of the thread's time; what happens
 * to a job over its limit is the pool's.
 *
 * Why processor time: the limit is there to stop a file whose parse runs away, and such a file is one that keeps
 * the thread busy. Wall time also counts every moment the system gives the thread's core to another process: on a
 * 2-core machine at load 24–28 the user's own 95-profile export, which parses in a few seconds on a quiet machine,
 * was refused as too slow. The thread's own time is what the file costs, whatever else the machine runs.
 *
 * Why a wall-clock limit as well: a thread can also hold a job without spending time (blocked, or inside a native
 * call that answers no question until it returns); the job then ends at the wall-clock limit, which is generous
 * enough for a legitimate file on a machine loaded many times over.
 */
/**
 * The wall-clock limit, as a multiple of the processor-time limit: the thread of a legitimate file may get as little
 * as a sixth of a core on average (a 2-core machine at load 12) and still finish.
 */
const WALL_FACTOR = 6

/**
 * The shortest wait between two readings of the thread's time: a thread that gets little of a core comes near its
 * limit in small steps, and reading its time more often than this would only cost the host.
 */
const MIN_CHECK_MS = 50

/** What a limit needs of the thread: its processor time, read from outside it (Node 22.19 and later). */
export interface TimedThread {
  cpuUsage?: (prev?: NodeJS.CpuUsage) => Promise<NodeJS.CpuUsage>
}

/**
 * Which limit a job went past, for the words of its refusal: `cpu`, the processor time its thread spent (a parse that
 * runs away), or `wall`, the time that passed (a thread held without working, or a Node that cannot read a thread's
 * time); `ms` is that limit. The two say different things to the user: a file that costs too much, and a read that
 * did not finish in time.
 */
export interface Overrun {
  clock: 'cpu' | 'wall'
  ms: number
}

/** A running limit: stopped when its job (or the file of a body it counts) ends. */
export interface JobLimit {
  stop(): void
}

/** The thread's processor time (ms), or undefined when it cannot be read (the thread ended, or this Node cannot). */
async function cpuMs(thread: TimedThread): Promise<number | undefined> {
  try {
    const usage = await thread.cpuUsage?.()
    return usage === undefined ? undefined : (usage.user + usage.system) / 1000
  } catch {
    // The thread ended meanwhile: its exit is the pool's to handle, not a time to count.
    return undefined
  }
}

/** Call `over` once `ms` of wall time have passed, unless stopped before. */
export function wallLimit(ms: number, over: (overrun: Overrun) => void): JobLimit {
  const timer = setTimeout(() => over({ clock: 'wall', ms }), ms)
  return { stop: () => clearTimeout(timer) }
}

/**
 * Call `over` once `thread` has spent `limitMs` of processor time from now, or `limitMs` × {@link WALL_FACTOR} of wall
 * time have passed, whichever comes first, saying which; unless stopped before. Where this Node cannot read a thread's
 * time, the limit is `limitMs` of wall time, as it was before it could.
 *
 * The thread's time is read when the limit could first be reached (a thread spends at most the wall time that passes)
 * and then again when what is left of it could be: so a thread that keeps its core is stopped at the limit as
 * before, and one that waits is read a few times and left to go on.
 */
export function cpuLimit(thread: TimedThread, limitMs: number, over: (overrun: Overrun) => void): JobLimit {
  if (typeof thread.cpuUsage !== 'function') return wallLimit(limitMs, over)
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const stop = () => {
    stopped = true
    clearTimeout(timer)
    backstop.stop()
  }
  const end = (overrun: Overrun) => {
    if (stopped) return
    stop()
    over(overrun)
  }
  const backstop = wallLimit(limitMs * WALL_FACTOR, end)
  const start = cpuMs(thread)
  const check = async (): Promise<void> => {
    const [from, now] = await Promise.all([start, cpuMs(thread)])
    if (stopped || from === undefined || now === undefined) return
    const left = limitMs - (now - from)
    if (left <= 0) return end({ clock: 'cpu', ms: limitMs })
    timer = setTimeout(() => void check(), Math.max(left, MIN_CHECK_MS))
  }
  timer = setTimeout(() => void check(), limitMs)
  return { stop }
}
