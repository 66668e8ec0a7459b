import { describe, expect, it, vi } from 'vitest'
import { createJobRunner, type JobRunnerOptions, type Settled } from '../../lib/memory/runner.ts'

/** A run the test finishes by hand. */
interface Held {
  key: string
  input: string
  signal: AbortSignal
  resolve(value: string): void
  reject(error: unknown): void
}

/** A runner whose every run waits for the test, and what it did: runs started, outcomes handed over, log lines. */
function harness(options: Partial<JobRunnerOptions<string, string>> = {}) {
  const held: Held[] = []
  const done: Array<{ key: string; outcome: Settled<string> }> = []
  const logged: string[] = []
  const live = new Map<string, number>()
  let peak = 0
  const runner = createJobRunner<string, string>({
    name: 'test job',
    concurrency: 2,
    queueLimit: 4,
    run: (key, input, signal) =>
      new Promise<string>((resolve, reject) => {
        live.set(key, (live.get(key) ?? 0) + 1)
        peak = Math.max(peak, live.get(key)!)
        const end = () => live.set(key, live.get(key)! - 1)
        held.push({
          key,
          input,
          signal,
          resolve: (v) => {
            end()
            resolve(v)
          },
          reject: (e) => {
            end()
            reject(e)
          },
        })
      }),
    done: (key, outcome) => {
      done.push({ key, outcome })
    },
    log: { warn: (m) => void logged.push(`warn ${m}`), error: (m) => void logged.push(`error ${m}`) },
    ...options,
  })
  return { runner, held, done, logged, peakPerKey: () => peak }
}

/** Let settled promises hand their outcomes over. */
const flush = () => new Promise<void>((r) => setTimeout(r, 0))

describe('the job runner', () => {
  it('runs one key once at a time; a request while it runs becomes one follow-up with the latest input', async () => {
    const { runner, held, done, peakPerKey } = harness()
    expect(runner.request('s1', 'first')).toBe('started')
    expect(runner.request('s1', 'second')).toBe('follow-up')
    expect(runner.request('s1', 'third')).toBe('folded')
    expect(held.map((h) => h.input)).toEqual(['first'])
    expect(runner.running()).toEqual(['s1'])
    expect(runner.waiting()).toEqual(['s1'])
    held[0]!.resolve('a')
    await flush()
    expect(done).toEqual([{ key: 's1', outcome: { ok: true, value: 'a' } }])
    expect(held.map((h) => h.input)).toEqual(['first', 'third'])
    held[1]!.resolve('b')
    await flush()
    expect(done.map((d) => d.outcome)).toEqual([
      { ok: true, value: 'a' },
      { ok: true, value: 'b' },
    ])
    expect(held).toHaveLength(2)
    expect(peakPerKey()).toBe(1)
    expect(runner.running()).toEqual([])
    expect(runner.waiting()).toEqual([])
  })

  it('runs different keys side by side up to the concurrency; the rest wait and start oldest first', async () => {
    const { runner, held } = harness({ concurrency: 2 })
    expect(['a', 'b', 'c', 'd'].map((k) => runner.request(k, k))).toEqual(['started', 'started', 'queued', 'queued'])
    expect(runner.running()).toEqual(['a', 'b'])
    expect(runner.waiting()).toEqual(['c', 'd'])
    held[1]!.resolve('b')
    await flush()
    expect(runner.running()).toEqual(['a', 'c'])
    expect(runner.waiting()).toEqual(['d'])
  })

  it('a follow-up does not hold up other keys: a slot goes to the next key whose own run is not in flight', async () => {
    const { runner, held } = harness({ concurrency: 2 })
    runner.request('a', 'a1')
    runner.request('b', 'b1')
    expect(runner.request('a', 'a2')).toBe('follow-up')
    expect(runner.request('c', 'c1')).toBe('queued')
    held.find((h) => h.key === 'b')!.resolve('b')
    await flush()
    expect(runner.running()).toEqual(['a', 'c'])
    expect(runner.waiting()).toEqual(['a'])
  })

  it('bounds the queue: a request beyond it is refused, never run, and warned about once until there is room', async () => {
    const { runner, held, logged } = harness({ concurrency: 1, queueLimit: 2 })
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => runner.request(k, k))).toEqual([
      'started',
      'queued',
      'queued',
      'refused',
      'refused',
    ])
    expect(runner.request('b', 'b again')).toBe('folded')
    expect(logged).toEqual(['warn agent-profiles: test job: 2 runs are waiting already; d is left out this time'])
    for (let i = 0; i < 3; i++) {
      held[i]!.resolve(String(i))
      await flush()
    }
    expect(held.map((h) => h.input)).toEqual(['a', 'b again', 'c'])
    expect(runner.request('f', 'f')).toBe('started')
    expect(runner.request('g', 'g')).toBe('queued')
    expect(runner.request('h', 'h')).toBe('queued')
    expect(runner.request('i', 'i')).toBe('refused')
    expect(logged).toHaveLength(2)
  })

  it('a run that throws, at once or later, is handed over as a failure and the key runs again on the next request', async () => {
    const thrown = new Error('boom')
    let calls = 0
    const done: Settled<string>[] = []
    const runner = createJobRunner<string, string>({
      name: 'test job',
      concurrency: 1,
      queueLimit: 1,
      run: () => {
        calls += 1
        if (calls === 1) throw thrown
        return Promise.reject(new Error('later'))
      },
      done: (_key, outcome) => {
        done.push(outcome)
      },
      log: { warn() {}, error() {} },
    })
    expect(runner.request('a', '')).toBe('started')
    await flush()
    expect(runner.request('a', '')).toBe('started')
    await flush()
    expect(done).toEqual([
      { ok: false, error: thrown },
      { ok: false, error: new Error('later') },
    ])
  })

  it('a failing owner callback is logged, and the queue still moves', async () => {
    const { runner, held, logged } = harness({
      concurrency: 1,
      done: () => {
        throw new Error('bookkeeping')
      },
    })
    runner.request('a', 'a')
    runner.request('b', 'b')
    held[0]!.resolve('x')
    await flush()
    expect(logged).toEqual(['error agent-profiles: test job: recording a run of a failed: bookkeeping'])
    expect(runner.running()).toEqual(['b'])
  })

  it('teardown drops waiting keys and timers, aborts the runs in flight, ignores their outcome and refuses new requests', async () => {
    const { runner, held, done, logged } = harness({ concurrency: 1 })
    let fired = false
    runner.request('a', 'a')
    runner.request('a', 'a again')
    runner.request('b', 'b')
    runner.later(0, () => {
      fired = true
    })
    runner.stop()
    expect(held[0]!.signal.aborted).toBe(true)
    expect(runner.waiting()).toEqual([])
    held[0]!.reject(new Error('cancelled: the plugin is unloading'))
    await flush()
    await flush()
    expect(done).toEqual([])
    expect(held).toHaveLength(1)
    expect(fired).toBe(false)
    expect(runner.request('c', 'c')).toBe('refused')
    runner.later(0, () => {
      fired = true
    })
    await flush()
    expect(fired).toBe(false)
    expect(logged).toEqual([])
  })

  it('a deferred step runs after its delay, and what it throws is logged rather than thrown', async () => {
    const { runner, logged } = harness()
    const order: string[] = []
    runner.later(20, () => {
      order.push('late')
    })
    runner.later(0, () => {
      order.push('soon')
      throw new Error('step')
    })
    await vi.waitFor(() => expect(order).toEqual(['soon', 'late']))
    expect(logged).toEqual(['error agent-profiles: test job: a deferred step failed: step'])
  })
})
