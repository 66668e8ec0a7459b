/**
 * A memory list appended to while its rows stay on disk: the first save into a profile after a start made "the rows
 * + these items" by reading every row, checking each and copying them into a new array (0.15–0.3 s at 10,000 items);
 * now the new list is a lazy list over the same rows and the items appended, which answers its tally, its core for a
 * render, items by id and its last id from the rows' own answers and the appended items, and reads the rows only
 * when a reader looks inside it. Owns that list's face and the step the row writer and the history take from it; it
 * never decides whether an append is allowed (the commands do) and never touches the rows.
 *
 * The rows are read when a reader asks, as they are then: a list of this kind that a caller kept and reads only after
 * a later write changed the same profile's rows reads that write's rows too (with its own items), as a list left on
 * disk at the start does after another process's write. The live state is never affected: its list is the newest.
 */
import {
  freezeDeep,
  itemTally,
  itemsWithIds,
  lazyList,
  memoryCore,
  unreadSource,
  type CoreWant,
  type ItemTally,
  type MemoryCore,
} from './lazy-list.ts'

/** What this module reads of a memory item (model.ts's MemoryItem has these). */
interface Item {
  id: string
  text: string
  at: number
  archived?: true
  pending?: true
  pinned?: true
}

/**
 * A list made by {@link appendedItemsOnDisk}: the list whose rows hold it (never read here) and every item appended since;
 * and the one step that made it: the list it was made from and the items that step appended (forgotten once the
 * row writer took it, so that no chain of lists stays alive).
 */
interface Appended<T> {
  root: readonly T[]
  all: readonly T[]
  from?: readonly T[]
  added: readonly T[]
}

const appendedOf = new WeakMap<object, Appended<unknown>>()

/**
 * The texts of every row of `items` when it is a profile's list no reader looked inside (see LazySource.texts);
 * undefined otherwise.
 */
export function storedTexts<T>(items: readonly T[]): readonly string[] | undefined {
  return unreadSource(items)?.texts?.()
}

/** Whether an item is a pinned one a render always carries (the rows' kind "pinned" alone). */
const isPinned = (it: Item) => it.pinned === true && it.archived !== true && it.pending !== true
/** Whether an item is memory as a list's counts count it: neither a suggestion nor archived. */
const isMemory = (it: Item) => it.archived !== true && it.pending !== true

/** `tally` with `items` counted in (`sign` 1) or out (-1). */
function tallied(tally: ItemTally, items: readonly Item[], sign: 1 | -1): ItemTally {
  return {
    items: tally.items + sign * items.length,
    archived: tally.archived + sign * items.filter((it) => it.archived === true).length,
    pending: tally.pending + sign * items.filter((it) => it.pending === true).length,
  }
}

/**
 * The rows' side of an appended list: the rows are read as they are when a reader asks, and the appended items'
 * rows are there once the write that appended them committed (before: not). So each answer of the rows leaves out
 * the appended items' rows and the appended items are added from memory: the same answer before and after that write.
 */
class RowsAndAdded<T extends Item> {
  readonly #root: readonly T[]
  readonly #all: readonly T[]
  readonly #ids: ReadonlySet<string>

  constructor(root: readonly T[], all: readonly T[]) {
    this.#root = root
    this.#all = all
    this.#ids = new Set(all.map((it) => it.id))
  }

  /** The appended items whose rows the database holds now (read by id: a few rows). */
  #written(): T[] {
    return unreadSource(this.#root)?.byIds?.([...this.#ids]) ?? []
  }

  load(): T[] {
    return [...this.#root.filter((it) => !this.#ids.has(it.id)), ...this.#all]
  }

  tally(): ItemTally {
    const rows = unreadSource(this.#root)?.tally?.()
    if (rows === undefined) return itemTally(this.load())
    return tallied(tallied(rows, this.#written(), -1), this.#all, 1)
  }

  /**
   * The core of the rows and the appended items together (see MemoryCore): every pinned item, then the other memory
   * newest first (by time, then list order) until the budget is passed. The rows' core holds every row that can make
   * it, since the appended items only take budget from them; an appended item orders after every row (its order is
   * counted down from the largest safe integer, far above any row's position). Undefined when the rows cannot tell.
   */
  core(want: CoreWant<T>): MemoryCore<T> | undefined {
    const rows = memoryCore(this.#root, want)
    if (rows === undefined) return undefined
    const n = this.#all.length
    const mine = this.#all.map((item, i) => ({ item, order: Number.MAX_SAFE_INTEGER - n + i }))
    const all = [...rows.items.filter(({ item }) => !this.#ids.has(item.id)), ...mine]
    const items = all.filter(({ item }) => isPinned(item))
    const others = all
      .filter(({ item }) => isMemory(item) && item.pinned !== true)
      .sort((a, b) => b.item.at - a.item.at || b.order - a.order)
    let used = 0
    for (const taken of others) {
      items.push(taken)
      used += want.size(taken.item)
      if (used > want.budget) break
    }
    const total = rows.total - this.#written().filter(isMemory).length + this.#all.filter(isMemory).length
    return { items, total }
  }

  byIds(wanted: readonly string[]): T[] {
    const rows = wanted.filter((id) => !this.#ids.has(id))
    const asked = new Set(rows)
    const found =
      itemsWithIds(this.#root, rows) ?? new Map(this.#root.filter((it) => asked.has(it.id)).map((it) => [it.id, it]))
    const want = new Set(wanted)
    return [...found.values(), ...this.#all.filter((it) => want.has(it.id))]
  }
}

/**
 * `list` with `added` appended, its rows left on disk, when `list` is a list no reader looked inside that can tell
 * its rows' texts (or one made here from such a list); undefined otherwise (the caller appends to the array).
 */
export function appendedItemsOnDisk<T extends Item>(list: readonly T[], added: readonly T[]): T[] | undefined {
  const source = unreadSource(list)
  const prior = appendedOf.get(list) as Appended<T> | undefined
  if (source === undefined || (prior === undefined && source.texts === undefined)) return undefined
  const root = prior?.root ?? list
  const all = [...(prior?.all ?? []), ...added]
  freezeDeep(added)
  const both = new RowsAndAdded(root, all)
  const out = lazyList<T>({
    load: () => both.load(),
    tally: () => both.tally(),
    core: (want) => both.core(want),
    byIds: (wanted) => both.byIds(wanted),
    lastId: () => ({ found: true, id: all.at(-1)?.id }),
    texts: () => {
      const rows = unreadSource(root)?.texts?.()
      return rows === undefined ? undefined : [...rows, ...all.map((it) => it.text)]
    },
  })
  appendedOf.set(out, { root, all, from: list, added })
  return out
}

/** The items the steps from `before` to `after` appended, oldest first; undefined when `after` was not made so. */
function stepsBetween<T>(before: readonly T[], after: readonly T[]): T[] | undefined {
  const parts: (readonly T[])[] = []
  for (let at = after; at !== before;) {
    const step = appendedOf.get(at) as Appended<T> | undefined
    if (step?.from === undefined) return undefined
    parts.unshift(step.added)
    at = step.from
  }
  return parts.flat()
}

/**
 * The items `after` appended to `before` when it was made from it by {@link appendedItemsOnDisk} alone (one command's
 * append, for its history entry); undefined otherwise (the caller compares the lists).
 */
export function appendedTo<T>(before: readonly T[], after: readonly T[]): readonly T[] | undefined {
  return before === after ? undefined : stepsBetween(before, after)
}

/**
 * What the write of `after` over the rows of `before` inserts, when `after` was made from `before` by appends on
 * disk alone (a batch may hold several); undefined otherwise (the writer compares the lists). The steps are
 * forgotten once taken: the write makes `after` the rows' list.
 */
export function takeAppended<T>(before: readonly T[], after: readonly T[]): readonly T[] | undefined {
  const added = appendedTo(before, after)
  const step = appendedOf.get(after)
  if (added !== undefined && step !== undefined) delete step.from
  return added
}

/** The last item appended to `list` when it was made by {@link appendedItemsOnDisk}; undefined otherwise. */
export function lastAppended<T>(list: readonly T[]): T | undefined {
  return (appendedOf.get(list) as Appended<T> | undefined)?.all.at(-1)
}
