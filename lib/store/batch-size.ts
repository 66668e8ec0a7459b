/**
 * How many memory items the next batch of an own import writes (import-batches.ts): as many as this thread can write
 * in the CPU time that holds the event loop about {@link BATCH_MS} on the machine as it is now. It owns the estimate
 * and nothing else; it never writes or times a batch itself.
 *
 * Why CPU time and the load: a batch holds the event loop for its CPU time stretched by every moment the system
 * gives the thread's core to another process. On a quiet machine the two are close; at load 15–18 on 2 cores a batch
 * of 15 ms of CPU held the loop 70–190 ms (measured in the real `dsh web`), and the wall time of one batch says too
 * late and too noisily how loaded the machine is to size the next by it alone. So the cost per item is learned from
 * CPU time, the stretch from wall over CPU, and the CPU a batch may take is {@link BATCH_MS} divided by the stretch.
 */

/** How long one batch should hold the event loop: well under the 100 ms a page or a turn may wait. */
const BATCH_MS = 10

/** The fewest items a batch writes: a batch also costs ~1.5 ms of its own (the draft, the profile's row, the index). */
export const MIN_ITEMS = 10

/** The most items one batch writes: past this the commits' own cost no longer matters to the import's time. */
const MAX_ITEMS = 5000

/** The weight of the newest batch in the running estimates: the load of a shared machine changes within seconds. */
const WEIGHT = 0.5

/** One batch as measured: items written, wall time from start to commit, CPU time this thread spent on it (ms). */
interface BatchTiming {
  items: number
  wallMs: number
  cpuMs: number
}

/** The running estimate of one import. */
export class BatchSize {
  /** CPU ms per item, the batch's own cost spread over its items (so small batches look dearer, as they are). */
  #perItem: number | undefined
  /** Wall time over CPU time: 1 on an idle machine, the load per core on a busy one. */
  #stretch = 1
  #next: number

  constructor(first: number) {
    this.#next = first
  }

  /** Items the next batch may write. */
  next(): number {
    return this.#next
  }

  /** Learn from a batch just written, and size the next: at most twice as many, as few as the estimate says. */
  took({ items, wallMs, cpuMs }: BatchTiming): void {
    if (items <= 0) return
    const cpu = Math.max(cpuMs, 0.05)
    const mix = (old: number | undefined, now: number) => (old === undefined ? now : old + WEIGHT * (now - old))
    this.#perItem = mix(this.#perItem, cpu / items)
    // A busier machine counts at once, a quieter one over the next few batches: the cost of a batch too large is a
    // page that waits, that of one too small only a slower import.
    const stretch = wallMs / cpu
    this.#stretch = Math.max(1, stretch > this.#stretch ? stretch : mix(this.#stretch, stretch))
    const fits = Math.floor(BATCH_MS / this.#stretch / this.#perItem)
    this.#next = Math.min(MAX_ITEMS, 2 * this.#next, Math.max(MIN_ITEMS, fits))
  }
}

/** CPU time this thread has spent so far (ms); the process's where Node cannot tell a thread's (older releases). */
export function threadCpuMs(): number {
  const usage = typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage() : process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
