/**
 * How many items the next batch of a large own import writes (lib/store/batch-size.ts): as many as this thread
 * writes in the CPU time that holds the event loop about 10 ms on the machine as loaded as it is, so a machine whose
 * other processes stretch a batch's wall time to 8 times its CPU time gets batches of an eighth of the CPU at once,
 * and the batches grow back only over the next few once it is quiet again.
 */
import { describe, expect, it } from 'vitest'
import { BatchSize, MIN_ITEMS } from '../../lib/store/batch-size.ts'

/** A size estimate after `n` batches of `items` that each cost `cpuMs` of CPU over `wallMs`. */
function after(size: BatchSize, n: number, batch: { cpuPerItem: number; stretch: number }): number {
  for (let i = 0; i < n; i++) {
    const items = size.next()
    const cpuMs = items * batch.cpuPerItem
    size.took({ items, cpuMs, wallMs: cpuMs * batch.stretch })
  }
  return size.next()
}

const quiet = { cpuPerItem: 0.01, stretch: 1 }
const loaded = { cpuPerItem: 0.01, stretch: 8 }

describe('the size of an own import batch', () => {
  it('grows on a quiet machine to the items that take about 10 ms of CPU, at most doubling per batch', () => {
    const size = new BatchSize(50)
    expect(after(size, 1, quiet)).toBe(100)
    expect(after(size, 1, quiet)).toBe(200)
    expect(after(size, 10, quiet)).toBe(1000)
  })

  it('shrinks at once to an eighth of that CPU when the load stretches a batch 8 times, and grows back slowly', () => {
    const size = new BatchSize(50)
    after(size, 12, quiet)
    // One loaded batch is enough: the next holds 10 ms of wall time, not 80.
    expect(after(size, 1, loaded)).toBe(125)
    expect(after(size, 5, loaded)).toBe(125)
    // Quiet again: the next batch is not the 1,000 items of a quiet machine yet, but it grows.
    const next = after(size, 1, quiet)
    expect(next).toBeGreaterThan(125)
    expect(next).toBeLessThan(1000)
    expect(after(size, 12, quiet)).toBeGreaterThan(980)
  })

  it('keeps at least the smallest batch however slow, and learns nothing from an empty one', () => {
    const size = new BatchSize(50)
    expect(after(size, 3, { cpuPerItem: 1, stretch: 20 })).toBe(MIN_ITEMS)
    size.took({ items: 0, cpuMs: 0, wallMs: 500 })
    expect(size.next()).toBe(MIN_ITEMS)
  })
})
