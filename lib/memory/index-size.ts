/**
 * The search index's size for Diagnostics (`meta.recall.index`), kept so that reading it never costs a request more
 * than a moment. Counting the index reads all of its tables: ~1 ms at a few thousand items, but 200–500 ms at
 * 237,000, and every open page reads the meta again after every change it hears of — a large import of 1,200
 * batches then counted the index 1,200 times, most of the host's time, and each count held the event loop. So a
 * count that took long is not repeated in a request: the last figure is answered and a new count waits until the
 * store has had no change for a moment, and at least {@link COST_GAP} times the last count's duration has passed.
 * Owns that schedule only; it never writes, and the counting itself is the store's (MemoryIndex.size).
 */
import { performance } from 'node:perf_hooks'
import type { RecallStatus } from '../shared/diagnostics.ts'
import type { ProfileStore } from '../store/store.ts'

type IndexFigures = RecallStatus['index']

/** A count that took at most this long is done again in the request that finds the store changed. */
const INLINE_MS = 10

/** Writes have paused when the store's revision has not moved for this long. */
const QUIET_MS = 1000

/** A slow count waits at least this many times its own duration after the previous one (≤ 2 % of the time). */
const COST_GAP = 50

const EMPTY: IndexFigures = { items: 0, bytes: 0, rebuiltAt: null, mode: 'disk' }

/** The index's figures, counted again after a change inline when that is cheap, else once writes pause. */
export class IndexSize {
  readonly #store: ProfileStore
  #value: IndexFigures | undefined
  #revision = -1
  #cost = 0
  #countedAt = 0
  #timer: NodeJS.Timeout | undefined

  constructor(store: ProfileStore) {
    this.#store = store
  }

  /** The figures as of the last count: counted now when the store changed and the last count was cheap. */
  get(): IndexFigures {
    if (this.#value === undefined || (this.#revision !== this.#store.revision && this.#cost <= INLINE_MS)) this.#count()
    else if (this.#revision !== this.#store.revision) this.#later(this.#store.revision)
    return this.#value ?? EMPTY
  }

  /** Stop a count that is waiting (the plugin is being unloaded). */
  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #count(): void {
    const revision = this.#store.revision
    const started = performance.now()
    this.#value =
      this.#store.searchIndex((index) => ({ ...index.size(), rebuiltAt: index.rebuiltAt, mode: index.mode })) ?? EMPTY
    this.#cost = performance.now() - started
    this.#countedAt = performance.now()
    this.#revision = revision
  }

  /** Count once the store has stayed at `seen` for {@link QUIET_MS} and the cost gap has passed. */
  #later(seen: number): void {
    if (this.#timer !== undefined) return
    const wait = Math.max(QUIET_MS, this.#countedAt + COST_GAP * this.#cost - performance.now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      const now = this.#store.revision
      if (now !== seen) this.#later(now)
      else if (now !== this.#revision) this.#count()
    }, wait)
    // A count nobody waits for must not keep the host's process alive.
    this.#timer.unref()
  }
}
