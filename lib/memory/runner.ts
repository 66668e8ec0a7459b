/**
 * The one way a background job runs (memory extraction per conversation, compression per profile): at most one run at
 * a time per key, at most `concurrency` runs at once in all, a bounded queue of keys waiting, the job's timers, and
 * the teardown on plugin unload.
 * Owns the in-flight set, the queue, the timers deferred through it and the unload signal. It never throws into its
 * caller, never starts a key while that key runs, never starts anything after {@link JobRunner.stop}, and never hands
 * a result over once stopped; what a run does is its owner's.
 */
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'

/** How one run ended: what it resolved to, or what it threw. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown }

/**
 * What became of a request: `started` now; `follow-up`, the key is running and one more run of it now waits for
 * that run to end; `queued`, the key waits for a free slot; `folded`, the key was waiting already and this request
 * joins that wait (its input replaces the earlier one); `refused`, the queue is full or the runner has stopped.
 */
type Admission = 'started' | 'follow-up' | 'queued' | 'folded' | 'refused'

/** What a job tells its runner. */
export interface JobRunnerOptions<I, R> {
  /** The job's name in log lines ("memory extraction"). */
  name: string
  /** Runs at once across all keys. */
  concurrency: number
  /** Keys that may wait at once (behind their own run, or for a slot); a request beyond is refused. */
  queueLimit: number
  /** One run of `key` with the latest input it was requested with; `signal` aborts when the runner stops. */
  run(key: string, input: I, signal: AbortSignal): Promise<R>
  /** A finished run's outcome; never called once the runner has stopped. */
  done(key: string, outcome: Settled<R>): void
  /** Where the runner reports its own failures. */
  log: Log
}

/** A running job's handle: requests, timers, what runs now, and the teardown. */
export interface JobRunner<I> {
  /** Ask for a run of `key` with `input`: started now, or waiting in the bounded queue. Never throws. */
  request(key: string, input: I): Admission
  /** Call `fn` after `ms` unless the runner stops first; what `fn` throws is logged. */
  later(ms: number, fn: () => void): void
  /** Keys running now, in the order they started. */
  running(): string[]
  /** Keys waiting now, first to start first. */
  waiting(): string[]
  /**
   * Teardown (plugin unload): waiting keys and timers are dropped, the signal of the runs in flight aborts, their
   * outcomes are ignored, and every later request is refused.
   */
  stop(): void
}

/** How `run` ended, a synchronous throw included; never rejects. */
function settled<R>(run: () => Promise<R>): Promise<Settled<R>> {
  let promise: Promise<R>
  try {
    promise = run()
  } catch (error) {
    promise = Promise.reject(error)
  }
  return Promise.resolve(promise).then(
    (value): Settled<R> => ({ ok: true, value }),
    (error: unknown): Settled<R> => ({ ok: false, error }),
  )
}

/** Start a job runner; the owner calls `stop()` from its unload effect. */
export function createJobRunner<I, R>(options: JobRunnerOptions<I, R>): JobRunner<I> {
  const { name, concurrency, queueLimit, log } = options
  const inFlight = new Set<string>()
  const queue = new Map<string, I>()
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const unloading = new AbortController()
  // One warning per spell of a full queue, not one per refused request: a busy host would otherwise flood the log.
  let warnedFull = false

  function start(key: string, input: I): void {
    inFlight.add(key)
    void settled(() => options.run(key, input, unloading.signal)).then((outcome) => {
      inFlight.delete(key)
      if (unloading.signal.aborted) return
      try {
        options.done(key, outcome)
      } catch (error) {
        log.error(`agent-profiles: ${name}: recording a run of ${key} failed: ${errorText(error)}`)
      }
      drain()
    })
  }

  /** Start waiting keys, oldest first, while slots are free; a key whose own run is in flight keeps its place. */
  function drain(): void {
    for (const [key, input] of queue) {
      if (inFlight.size >= concurrency) break
      if (inFlight.has(key)) continue
      queue.delete(key)
      start(key, input)
    }
    if (queue.size < queueLimit) warnedFull = false
  }

  return {
    request(key, input) {
      if (unloading.signal.aborted) return 'refused'
      if (queue.has(key)) {
        queue.set(key, input)
        return 'folded'
      }
      if (!inFlight.has(key) && inFlight.size < concurrency) {
        start(key, input)
        return 'started'
      }
      if (queue.size >= queueLimit) {
        if (!warnedFull)
          log.warn(`agent-profiles: ${name}: ${queueLimit} runs are waiting already; ${key} is left out this time`)
        warnedFull = true
        return 'refused'
      }
      queue.set(key, input)
      return inFlight.has(key) ? 'follow-up' : 'queued'
    },
    later(ms, fn) {
      if (unloading.signal.aborted) return
      const timer = setTimeout(() => {
        timers.delete(timer)
        try {
          fn()
        } catch (error) {
          log.error(`agent-profiles: ${name}: a deferred step failed: ${errorText(error)}`)
        }
      }, ms)
      timers.add(timer)
    },
    running: () => [...inFlight],
    waiting: () => [...queue.keys()],
    stop() {
      unloading.abort()
      queue.clear()
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
