/**
 * Where each memory item's row sits in its list: the `pos` this process read or wrote for it, kept beside the state
 * (keyed by the item objects, which the state shares from one snapshot to the next) so that a write can place a new
 * or moved item between its neighbours without renumbering the rows after it. Positions are sparse: only their order
 * means anything. It owns the bookkeeping and the choice of positions; it never runs a statement.
 */
import type { MemoryItem } from '../../state/model.ts'

/** The gap left between items placed at the end: room for later inserts between them without renumbering. */
const POSITION_STEP = 1024

/** The positions of one database's item rows, per owner. */
export class Positions {
  readonly #byOwner = new Map<string, WeakMap<MemoryItem, number>>()
  /** What the write under way placed: taken once it commits, dropped when it does not (see {@link begin}). */
  #staged: [string, MemoryItem, number][] = []

  #of(owner: string): WeakMap<MemoryItem, number> {
    let map = this.#byOwner.get(owner)
    if (map === undefined) {
      map = new WeakMap()
      this.#byOwner.set(owner, map)
    }
    return map
  }

  /** The row position of `item` in `owner`'s list, when this process read or wrote it. */
  get(owner: string, item: MemoryItem | undefined): number | undefined {
    return item === undefined ? undefined : this.#byOwner.get(owner)?.get(item)
  }

  /** `item`'s row in `owner`'s list is at `pos` (as read). */
  set(owner: string, item: MemoryItem, pos: number): void {
    this.#of(owner).set(item, pos)
  }

  /**
   * `owner`'s list is read from its rows again when next looked at (read-rows.ts `lazyItems`): the positions of the
   * items it held go with their table. Why: a WeakMap's entries go with their items, but V8 shrinks its table only
   * on a delete, never for the entries the collector clears; after an own import each profile's table stayed sized for
   * the thousands of items that had gone on disk (131 KB for 5,200 items, 12.5 MB for 95 profiles). Nothing is lost: the items read back get their positions
   * as read, and an item whose position is not known is placed again with the rows after it (RowWriter).
   */
  forget(owner: string): void {
    this.#byOwner.delete(owner)
  }

  /** A write is starting: what an earlier one staged and never committed (it rolled back) is dropped. */
  begin(): void {
    this.#staged = []
  }

  /** The write under way puts `item`'s row at `pos`: known once it commits ({@link committed}). */
  stage(owner: string, item: MemoryItem, pos: number): void {
    this.#staged.push([owner, item, pos])
  }

  /** The write under way committed: its positions are the rows'. */
  committed(): void {
    for (const [owner, item, pos] of this.#staged) this.set(owner, item, pos)
    this.#staged = []
  }

  /**
   * Positions for `middle` (the items between two kept neighbours at `lo` and `hi`, either absent at an end), in
   * order, each strictly between the one before and `hi`; `known(i)` is where the row of the i-th one is now, if it
   * has one, kept when it still fits. Undefined when they do not fit between `lo` and `hi` (the caller then places
   * the items after `lo` again, up to the end of the list).
   */
  place(
    middle: number,
    lo: number | undefined,
    hi: number | undefined,
    known: (i: number) => number | undefined,
  ): number[] | undefined {
    const out: number[] = []
    let prev = lo ?? (hi === undefined ? -POSITION_STEP : hi - POSITION_STEP * (middle + 1))
    for (let i = 0; i < middle; i++) {
      const left = middle - i
      const had = known(i)
      let p: number
      if (had !== undefined && had > prev && (hi === undefined || had < hi - (left - 1))) p = had
      else if (hi === undefined) p = prev + POSITION_STEP
      else p = prev + Math.max(1, Math.floor((hi - prev) / (left + 1)))
      if (hi !== undefined && p >= hi) return undefined
      out.push(p)
      prev = p
    }
    return out
  }
}
