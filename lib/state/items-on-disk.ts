/**
 * A memory list appended to, or with one item edited or removed by id, while its rows stay on disk: the first save,
 * edit or removal in a profile after a start made the new list by reading every row, checking each and copying them
 * into a new array (0.15–0.3 s at 10,000 items); now the new list is a lazy list over the same rows and the items
 * it changed, which answers its tally, its core for a render, items by id and its last id from the rows' own answers
 * and its own items, and reads the rows only when a reader looks inside it. Owns that list's face and the step the row writer and the history take from it; it
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
  type Said,
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

/** One step of a list on disk: items appended, one item edited in place, or one item removed. */
export type DiskOp<T> = { add: readonly T[] } | { edit: T; was: T } | { remove: T }

/**
 * A list made here: the list whose rows hold it (never read here), the items appended since (edits and removals of
 * them applied), the rows' items edited (by id) and the ids removed (rows or appended); and the one step that made
 * it: the list it was made from and what that step did (forgotten once the row writer took it, so that no chain of
 * lists stays alive).
 */
interface Appended<T> {
  root: readonly T[]
  all: readonly T[]
  swapped: ReadonlyMap<string, T>
  gone: ReadonlySet<string>
  from?: readonly T[]
  op: DiskOp<T>
}

const appendedOf = new WeakMap<object, Appended<unknown>>()

/**
 * The texts of every row of `items` when it is a profile's list no reader looked inside (see LazySource.texts);
 * undefined otherwise.
 */
export function storedTexts<T>(items: readonly T[]): readonly string[] | undefined {
  return unreadSource(items)?.texts?.()
}

/**
 * Whether a row of `items` says one of `forms` (see LazySource.says) when it is a profile's list no reader looked
 * inside that can tell without reading every row; undefined otherwise.
 */
export function storedSays<T>(items: readonly T[], want: Said): boolean | undefined {
  return unreadSource(items)?.says?.(want)
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
 * The rows' side of a list changed on disk: the rows are read as they are when a reader asks, and the rows of the
 * items this list appended, edited or removed (its own ids) are written once the write of the change committed
 * (before: not). So each answer of the rows leaves out the rows of its own ids, whatever they hold now, and adds its
 * own items from memory: the same answer before and after that write.
 */
class RowsAndAdded<T extends Item> {
  readonly #root: readonly T[]
  readonly #all: readonly T[]
  readonly #swapped: ReadonlyMap<string, T>
  readonly #own: readonly string[]
  readonly #ids: ReadonlySet<string>

  constructor(state: Pick<Appended<T>, 'root' | 'all' | 'swapped' | 'gone'>) {
    this.#root = state.root
    this.#all = state.all
    this.#swapped = state.swapped
    this.#ids = new Set([...state.all.map((it) => it.id), ...state.swapped.keys(), ...state.gone])
    this.#own = [...this.#ids]
  }

  /** The items of this list that are its own (appended or edited), in memory. */
  #mine(): T[] {
    return [...this.#swapped.values(), ...this.#all]
  }

  /** The rows of this list's own ids the database holds now (read by id: a few rows). */
  #written(): T[] {
    return unreadSource(this.#root)?.byIds?.(this.#own) ?? []
  }

  load(): T[] {
    const rows = this.#root.flatMap((it) => {
      if (!this.#ids.has(it.id)) return [it]
      const now = this.#swapped.get(it.id)
      return now === undefined ? [] : [now]
    })
    return [...rows, ...this.#all]
  }

  tally(): ItemTally {
    const rows = unreadSource(this.#root)?.tally?.()
    if (rows === undefined) return itemTally(this.load())
    return tallied(tallied(rows, this.#written(), -1), this.#mine(), 1)
  }

  /**
   * The core of the list (see MemoryCore): every pinned item, then the other memory newest first (by time, then list
   * order) until the budget is passed. The rows' core is asked with the budget grown by what the rows of this list's
   * own ids take, so it holds every row that can make it: any other row ranked before one that makes it takes no more
   * than the budget plus those rows. An edited row keeps its place (an edit of a row left outside that core ranks
   * after every row that is inside it, so it cannot make it either); an appended item orders after every row (its
   * order is counted down from the largest safe integer, far above any row's position). Undefined when the rows
   * cannot tell.
   */
  core(want: CoreWant<T>): MemoryCore<T> | undefined {
    const written = this.#written()
    const extra = written.reduce((sum, it) => sum + want.size(it), 0)
    const rows = memoryCore(this.#root, { ...want, budget: want.budget + extra })
    if (rows === undefined) return undefined
    const n = this.#all.length
    const mine = this.#all.map((item, i) => ({ item, order: Number.MAX_SAFE_INTEGER - n + i }))
    const kept = rows.items.flatMap((entry) => {
      if (!this.#ids.has(entry.item.id)) return [entry]
      const now = this.#swapped.get(entry.item.id)
      return now === undefined ? [] : [{ item: now, order: entry.order }]
    })
    const all = [...kept, ...mine]
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
    const total = rows.total - written.filter(isMemory).length + this.#mine().filter(isMemory).length
    return { items, total }
  }

  byIds(wanted: readonly string[]): T[] {
    const rows = wanted.filter((id) => !this.#ids.has(id))
    const asked = new Set(rows)
    const found =
      itemsWithIds(this.#root, rows) ?? new Map(this.#root.filter((it) => asked.has(it.id)).map((it) => [it.id, it]))
    const want = new Set(wanted)
    return [...found.values(), ...this.#mine().filter((it) => want.has(it.id))]
  }

  lastId(): { found: boolean; id?: string } {
    const last = this.#all.at(-1)
    if (last !== undefined) return { found: true, id: last.id }
    const rows = unreadSource(this.#root)?.lastId?.() ?? { found: false }
    // The last row removed or edited here: which row is last then takes the list to tell.
    return rows.id !== undefined && this.#ids.has(rows.id) ? { found: false } : rows
  }

  texts(): string[] | undefined {
    const rows = unreadSource(this.#root)?.texts?.()
    return rows === undefined ? undefined : [...rows, ...this.#mine().map((it) => it.text)]
  }

  /** As {@link texts}: the rows (its own ids' rows too, whatever they hold now) or its own items. */
  says(want: Said): boolean | undefined {
    const rows = unreadSource(this.#root)?.says?.(want)
    const mine = this.#mine().filter((it) => want.except?.has(it.id) !== true)
    return rows === undefined ? undefined : rows || mine.some((it) => want.forms.has(want.formOf(it.text)))
  }
}

/** Whether `list` is a list no reader looked inside that can be changed on disk (or one made here from such a list). */
export function changesOnDisk<T>(list: readonly T[]): boolean {
  const source = unreadSource(list)
  return source !== undefined && (appendedOf.has(list) || source.texts !== undefined)
}

/** `list` after `op`, its rows left on disk, when {@link changesOnDisk}; undefined otherwise (the caller reads it). */
function changedOnDisk<T extends Item>(list: readonly T[], op: DiskOp<T>): T[] | undefined {
  if (!changesOnDisk(list)) return undefined
  const prior = appendedOf.get(list) as Appended<T> | undefined
  const state = {
    root: prior?.root ?? list,
    all: [...(prior?.all ?? [])],
    swapped: new Map(prior?.swapped),
    gone: new Set(prior?.gone),
  }
  if ('add' in op) {
    freezeDeep(op.add)
    state.all.push(...op.add)
  } else {
    const id = 'edit' in op ? op.edit.id : op.remove.id
    const at = state.all.findIndex((it) => it.id === id)
    if ('edit' in op) {
      freezeDeep(op.edit)
      if (at >= 0) state.all[at] = op.edit
      else state.swapped.set(id, op.edit)
    } else {
      if (at >= 0) state.all.splice(at, 1)
      state.swapped.delete(id)
      state.gone.add(id)
    }
  }
  const both = new RowsAndAdded(state)
  const out = lazyList<T>({
    load: () => both.load(),
    tally: () => both.tally(),
    core: (want) => both.core(want),
    byIds: (wanted) => both.byIds(wanted),
    lastId: () => both.lastId(),
    texts: () => both.texts(),
    says: (want) => both.says(want),
  })
  appendedOf.set(out, { ...state, from: list, op })
  return out
}

/**
 * `list` with `added` appended, its rows left on disk, when `list` is a list no reader looked inside that can tell
 * its rows' texts (or one made here from such a list); undefined otherwise (the caller appends to the array).
 */
export function appendedItemsOnDisk<T extends Item>(list: readonly T[], added: readonly T[]): T[] | undefined {
  return changedOnDisk(list, { add: added })
}

/** `list` with its item `was` (read by id) replaced by `edit` in its place, its rows left on disk; as above. */
export function editedItemOnDisk<T extends Item>(list: readonly T[], was: T, edit: T): T[] | undefined {
  return changedOnDisk(list, { edit, was })
}

/** `list` without its item `item` (read by id), its rows left on disk; as above. */
export function removedItemOnDisk<T extends Item>(list: readonly T[], item: T): T[] | undefined {
  return changedOnDisk(list, { remove: item })
}

/** The steps from `before` to `after`, oldest first; undefined when `after` was not made so. */
function stepsBetween<T>(before: readonly T[], after: readonly T[]): DiskOp<T>[] | undefined {
  const steps: DiskOp<T>[] = []
  for (let at = after; at !== before;) {
    const step = appendedOf.get(at) as Appended<T> | undefined
    if (step?.from === undefined) return undefined
    steps.unshift(step.op)
    at = step.from
  }
  return steps
}

/** What a history entry says a change did. */
export interface DiskChange<T> {
  added: T[]
  removed: T[]
  edited: { before: T; after: T }[]
}

/** The net change of `ops`: an item appended then edited or removed is added as it ends, or not at all. */
function netChange<T extends { id: string }>(ops: readonly DiskOp<T>[]): DiskChange<T> {
  const added = new Map<string, T>()
  const edited = new Map<string, { before: T; after: T }>()
  const removed: T[] = []
  for (const op of ops) {
    if ('add' in op) for (const it of op.add) added.set(it.id, it)
    else if ('edit' in op) {
      if (added.has(op.edit.id)) added.set(op.edit.id, op.edit)
      else edited.set(op.edit.id, { before: edited.get(op.edit.id)?.before ?? op.was, after: op.edit })
    } else if (!added.delete(op.remove.id)) {
      removed.push(edited.get(op.remove.id)?.before ?? op.remove)
      edited.delete(op.remove.id)
    }
  }
  return { added: [...added.values()], removed, edited: [...edited.values()] }
}

/**
 * What `after` did to `before` when it was made from it by changes on disk alone (one command's, for its history
 * entry); undefined otherwise (the caller compares the lists).
 */
export function changedTo<T extends { id: string }>(
  before: readonly T[],
  after: readonly T[],
): DiskChange<T> | undefined {
  const steps = before === after ? undefined : stepsBetween(before, after)
  return steps === undefined ? undefined : netChange(steps)
}

/**
 * What the write of `after` over the rows of `before` does, step by step, when `after` was made from `before` by
 * changes on disk alone (a batch may hold several); undefined otherwise (the writer compares the lists). The steps
 * are forgotten once taken: the write makes `after` the rows' list.
 */
export function takeSteps<T>(before: readonly T[], after: readonly T[]): readonly DiskOp<T>[] | undefined {
  const steps = before === after ? undefined : stepsBetween(before, after)
  const step = appendedOf.get(after)
  if (steps !== undefined && step !== undefined) delete step.from
  return steps
}

/** The last item appended to `list` when it was made here; undefined otherwise. */
export function lastAppended<T>(list: readonly T[]): T | undefined {
  return (appendedOf.get(list) as Appended<T> | undefined)?.all.at(-1)
}
