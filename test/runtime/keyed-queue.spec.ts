import { describe, expect, it } from 'vitest'
import { KeyedQueue } from '../../lib/runtime/keyed-queue.ts'

/** A job that records its start and end, and ends when `release` is called (or fails when `fail` is). */
function gate(log: string[], name: string) {
  let release!: () => void
  let fail!: (e: Error) => void
  const done = new Promise<string>((resolve, reject) => {
    release = () => resolve(name)
    fail = reject
  })
  const job = async () => {
    log.push(`start ${name}`)
    try {
      return await done
    } finally {
      log.push(`end ${name}`)
    }
  }
  return { job, release: () => release(), fail: (e: Error) => fail(e) }
}

const turn = () => new Promise((r) => setTimeout(r, 0))

describe('jobs one after another per key', () => {
  it('starts a key’s next job only when the one before ended, and other keys meanwhile', async () => {
    const log: string[] = []
    const q = new KeyedQueue()
    const a1 = gate(log, 'a1')
    const a2 = gate(log, 'a2')
    const b1 = gate(log, 'b1')
    const r1 = q.run('a', a1.job)
    const r2 = q.run('a', a2.job)
    const r3 = q.run('b', b1.job)
    await turn()
    expect(log).toEqual(['start a1', 'start b1'])
    a1.release()
    expect(await r1).toBe('a1')
    await turn()
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2'])
    a2.release()
    b1.release()
    expect(await Promise.all([r2, r3])).toEqual(['a2', 'b1'])
  })

  it('runs the next job after one that failed, and hands the failure to that job’s caller alone', async () => {
    const log: string[] = []
    const q = new KeyedQueue()
    const first = gate(log, 'first')
    const second = gate(log, 'second')
    const r1 = q.run('k', first.job)
    const r2 = q.run('k', second.job)
    await turn()
    first.fail(new Error('disk full'))
    await expect(r1).rejects.toThrow('disk full')
    await turn()
    expect(log).toEqual(['start first', 'end first', 'start second'])
    second.release()
    expect(await r2).toBe('second')
  })
})
