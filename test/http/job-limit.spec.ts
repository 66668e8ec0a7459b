/**
 * The import worker's time limit (lib/http/job-limit.ts), on the clock of vitest's fake timers and a thread whose
 * processor time the spec sets: a thread that keeps its core is stopped at the limit; one that gets a third of a core
 * at about three times it; one that waits (a machine loaded many times over) goes on until the wall-clock limit six
 * times the limit; a Node that cannot read a thread's time keeps the wall-clock limit; a stopped limit never fires.
 * Each says which limit it was (the thread's time or the clock's), as the refusal of the file words it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { cpuLimit, type Overrun, type TimedThread } from '../../lib/http/job-limit.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A thread that spends `share` of each millisecond of the fake clock working. */
function thread(share: number): TimedThread {
  const started = Date.now()
  return {
    cpuUsage: () => Promise.resolve({ user: (Date.now() - started) * share * 1000, system: 0 }),
  }
}

/** The limit `over` was last told of (which clock, and its limit): what the refusal of the file words. */
let overrun: Overrun | undefined

/** When (ms after it starts) a limit of `limitMs` on `t` fires, looked at in steps of 10 ms up to `until`. */
async function firesAt(t: TimedThread, limitMs: number, until: number): Promise<number | undefined> {
  const started = Date.now()
  let at: number | undefined
  overrun = undefined
  cpuLimit(t, limitMs, (o) => {
    at ??= Date.now() - started
    overrun = o
  })
  while (at === undefined && Date.now() - started < until) await vi.advanceTimersByTimeAsync(10)
  return at
}

describe("the import worker's time limit", () => {
  it('stops a thread that keeps its core at the limit', async () => {
    expect(await firesAt(thread(1), 1_000, 10_000)).toBe(1_000)
    expect(overrun).toEqual({ clock: 'cpu', ms: 1_000 })
  })

  it('lets a thread that gets a third of a core run about three times the limit', async () => {
    const at = (await firesAt(thread(1 / 3), 1_000, 10_000))!
    expect(at).toBeGreaterThanOrEqual(3_000)
    expect(at).toBeLessThanOrEqual(3_100)
    expect(overrun).toEqual({ clock: 'cpu', ms: 1_000 })
  })

  it('lets a thread that waits go on until the wall-clock limit, six times the limit', async () => {
    expect(await firesAt(thread(0), 1_000, 10_000)).toBe(6_000)
    expect(overrun).toEqual({ clock: 'wall', ms: 6_000 })
  })

  it('keeps the wall-clock limit where Node cannot read a thread’s time', async () => {
    expect(await firesAt({}, 1_000, 10_000)).toBe(1_000)
    expect(overrun).toEqual({ clock: 'wall', ms: 1_000 })
  })

  it('never fires once stopped', async () => {
    const over = vi.fn()
    cpuLimit(thread(1), 1_000, over).stop()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(over).not.toHaveBeenCalled()
  })
})
