/**
 * A list of the state read from the database when first touched: a profile's memory items and a memory history list
 * stay on disk until a reader needs them (years of memory cost nothing at start), while every reader keeps seeing a
 * plain frozen array. It owns only the array's face (a Proxy over the loaded array) and the tally of memory items
 * that is known without reading them; it never decides what the rows hold (the store's loader does).
 *
 * Why a Proxy and not a getter: a state is spread, compared by identity and handed on by dozens of readers; a list
 * that stays the same object through all of that is read at most once, and only by the reader that looks inside it.
 * Once read it stays (a snapshot never changes under its reader); a command that changes the list makes a plain one.
 */

/** What a memory item says of its kind (model.ts's MemoryItem has these; named here so the model can use the tally). */
interface Flagged {
  archived?: true
  pending?: true
}

/** What a memory list holds by kind, for heads and counts that must not read every item. */
export interface ItemTally {
  items: number
  archived: number
  pending: number
}

/**
 * What a render of the memory needs of a list of memory items (see lib/prompt/render.ts): the pinned items, and the
 * others that are memory (neither pending nor archived) newest first, as the render ranks them (time, then list
 * order), until their sizes pass the budget (the one that passes it included: the render then knows not all fit), each
 * with a number that orders it as the list does; and how many of the list's items are memory. Nothing past that item
 * can make it into a render, so a list of years costs what its budget holds.
 */
export interface MemoryCore<T> {
  /** In no particular order (the render ranks them). */
  items: { item: T; order: number }[]
  /** How many items of the whole list are memory. */
  total: number
}

/** What a render asks of a list's core: its budget in characters, and what an item takes of it (0: not memory). */
export interface CoreWant<T> {
  budget: number
  size(item: T): number
}

/** Where a lazy list's rows come from. */
export interface LazySource<T> {
  /** Every element, in order (called at most once per list). */
  load(): T[]
  /** What the memory items hold by kind, without reading them into the state (memory lists only). */
  tally?(): ItemTally
  /** The core of a memory list for a render, read without the rest; undefined when it has none (memory lists only). */
  core?(want: CoreWant<T>): MemoryCore<T> | undefined
  /** The elements of these ids the rows hold, read without the rest (memory lists only). */
  byIds?(ids: readonly string[]): T[]
  /** The last element's id, read without any element (`found` false: it cannot tell without reading the list). */
  lastId?(): { found: boolean; id?: string }
  /** Each element's id and size, in order, without reading an element; undefined when it cannot tell (history lists). */
  sizes?(): Sized[] | undefined
  /**
   * The text of every row, without checking the rows: every item a read would give says one of them (a row the read
   * sets aside may add one it does not); undefined when a read would not give every row (memory lists only).
   */
  texts?(): string[] | undefined
  /**
   * Whether the text of a row (other than those of the ids `except`), in the form `formOf` gives (the duplicate rule's
   * compared form), is one of `forms`, found without reading every row: as {@link texts} answers, so a row the read
   * sets aside may say one; undefined when it cannot tell without reading every row's text (memory lists only).
   */
  says?(want: Said): boolean | undefined
}

/** What {@link LazySource.says} looks for. */
export interface Said {
  forms: ReadonlySet<string>
  formOf(text: string): string
  except?: ReadonlySet<string>
}

/** An element's id and its size as a bound of its list counts it (a history entry: characters of its JSON). */
export interface Sized {
  id: string
  size: number
}

interface Lazy<T> {
  source: LazySource<T>
  loaded: readonly T[] | undefined
  tally: ItemTally | undefined
}

const lazies = new WeakMap<object, Lazy<unknown>>()

/**
 * The lazy state behind `list`, or undefined for a plain array. The one place its element type is asserted: a list is
 * registered by {@link lazyList} alone, with the state made for its own elements, so a `readonly T[]` that is a key
 * was made from a `Lazy<T>`.
 */
function lazyOf<T>(list: readonly T[]): Lazy<T> | undefined {
  return lazies.get(list) as Lazy<T> | undefined
}

/** Freeze `value` and everything in it, as the store freezes a state (a lazy list's elements are frozen here). */
export function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const v of Object.values(value)) freezeDeep(v)
}

function loadedOf<T>(lazy: Lazy<T>): readonly T[] {
  if (lazy.loaded === undefined) {
    const list = lazy.source.load()
    freezeDeep(list)
    lazy.loaded = list
  }
  return lazy.loaded
}

function refuse(): boolean {
  return false
}

/**
 * A frozen-looking array whose elements are read from `source` when a reader first looks inside it. Typed as the
 * state types every list it holds, a plain array (a frozen one keeps its type: lib/store/deep-freeze.ts): like a
 * frozen array, it refuses every write.
 */
export function lazyList<T>(source: LazySource<T>): T[] {
  const lazy: Lazy<T> = { source, loaded: undefined, tally: undefined }
  // The target stays an empty extensible array: the Proxy invariants then allow reporting the loaded elements.
  const target: T[] = []
  const proxy = new Proxy(target, {
    get(_t, key) {
      const list = loadedOf(lazy)
      const v: unknown = Reflect.get(list, key)
      // Array methods run on the loaded array itself: a Proxy in their loop would cost a trap per element.
      return typeof v === 'function' && key !== 'constructor' ? (v as () => unknown).bind(list) : v
    },
    has: (_t, key) => Reflect.has(loadedOf(lazy), key),
    ownKeys: () => Reflect.ownKeys(loadedOf(lazy)),
    getOwnPropertyDescriptor(_t, key) {
      const list = loadedOf(lazy)
      const d = Reflect.getOwnPropertyDescriptor(list, key)
      if (d === undefined) return undefined
      // Reported as the Proxy's empty target allows: `length` writable, elements configurable (neither can be changed).
      return key === 'length'
        ? { value: list.length, writable: true, enumerable: false, configurable: false }
        : { value: d.value as unknown, writable: false, enumerable: d.enumerable ?? true, configurable: true }
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  })
  lazies.set(proxy, lazy)
  return proxy
}

/** Whether `list` is a lazy list (the store's freezing leaves it alone: freezing would read it). */
export function isLazyList(list: unknown): boolean {
  return typeof list === 'object' && list !== null && lazies.has(list)
}

/** The source of `list` when it is a lazy list no reader has looked inside yet; undefined otherwise. */
export function unreadSource<T>(list: readonly T[]): LazySource<T> | undefined {
  const lazy = lazyOf(list)
  return lazy?.loaded === undefined ? lazy?.source : undefined
}

/** Whether `list` holds its elements in memory: a plain array, or a lazy list a reader already looked inside. */
export function isInMemory(list: readonly unknown[]): boolean {
  const lazy = lazies.get(list)
  return lazy === undefined || lazy.loaded !== undefined
}

/**
 * Tallies of lists counted already. A list the state holds never changes (frozen, or a lazy list, which refuses every
 * write), so its tally is counted once: a reply's counts after a change then count the one list that changed, not
 * every item of every profile (during a large import each batch's state was counted whole by every state reply, more
 * main-thread time than the batches themselves took).
 */
const tallies = new WeakMap<object, ItemTally>()

/** What `items` hold by kind; a lazy list not read yet answers from its rows without reading them into the state. */
export function itemTally(items: readonly Flagged[]): ItemTally {
  const lazy = lazyOf(items)
  if (lazy !== undefined && lazy.loaded === undefined && lazy.source.tally !== undefined) {
    lazy.tally ??= lazy.source.tally()
    return lazy.tally
  }
  const known = tallies.get(items)
  if (known !== undefined) return known
  let archived = 0
  let pending = 0
  // A lazy list read already is counted on its array, not element by element through its Proxy.
  for (const it of lazy?.loaded ?? items) {
    if (it.archived === true) archived++
    if (it.pending === true) pending++
  }
  const tally = { items: items.length, archived, pending }
  if (lazy !== undefined || Object.isFrozen(items)) tallies.set(items, tally)
  return tally
}

/**
 * The core of `items` for a render (see {@link MemoryCore}) when it is a lazy list not read yet that can answer it
 * from its rows; undefined otherwise (the caller reads the list itself, which costs nothing more when it is in memory).
 */
export function memoryCore<T extends Flagged>(items: readonly T[], want: CoreWant<T>): MemoryCore<T> | undefined {
  const lazy = lazyOf(items)
  if (lazy === undefined || lazy.loaded !== undefined || lazy.source.core === undefined) return undefined
  const core = lazy.source.core(want)
  if (core !== undefined) freezeDeep(core.items)
  return core
}

/**
 * The items of `items` with these ids, by id, read from the rows alone when it is a lazy list not read yet that can
 * (what recall found through the index: a few of years of items); undefined otherwise (the caller looks in the list).
 */
export function itemsWithIds<T extends { id: string }>(
  items: readonly T[],
  ids: readonly string[],
): Map<string, T> | undefined {
  const lazy = lazyOf(items)
  if (lazy === undefined || lazy.loaded !== undefined || lazy.source.byIds === undefined) return undefined
  const found = lazy.source.byIds(ids)
  freezeDeep(found)
  return new Map(found.map((it) => [it.id, it]))
}

/**
 * The id of the last element of `list` (undefined when it is empty or absent): for a lazy list not read yet that can
 * tell, read from its rows without reading an element (a history entry may hold thousands of items).
 */
export function lastIdOf<T extends { id: string }>(list: readonly T[] | undefined): string | undefined {
  if (list === undefined) return undefined
  const lazy = lazyOf(list)
  if (lazy !== undefined && lazy.loaded === undefined && lazy.source.lastId !== undefined) {
    const last = lazy.source.lastId()
    if (last.found) return last.id
  }
  return list.at(-1)?.id
}

/** A list made by {@link appendedOnDisk}: its elements still on disk (read by id), then those held in memory. */
interface Appended<T> {
  read(ids: readonly string[]): T[]
  disk: readonly Sized[]
  memory: readonly { item: T; size: number }[]
}

const appendedParts = new WeakMap<object, Appended<unknown>>()

/** What the commit of an appended list writes: rows to insert and rows to delete, against the list it came from. */
export interface AppendStep<T> {
  /** The list the rows hold (the first of the chain of appends since the last write). */
  root: readonly T[]
  added: T[]
  dropped: string[]
}

const appendSteps = new WeakMap<object, AppendStep<unknown>>()

/**
 * `list` with `item` appended and its `drop(sizes)` oldest elements dropped, still on disk, when `list` is on disk
 * and its source can tell its elements' sizes (or was made here); undefined otherwise (the caller appends to the
 * array). A history bounded by its entries' sizes then costs one short read of the rows' sizes, not every entry parsed
 * and measured again (a bulk write's entry is a megabyte of JSON, read by the next write only to be dropped).
 *
 * The list is read when a reader looks, by the ids of the rows it keeps: those rows stay until a later write drops
 * them, so a reader of this snapshot after such a write misses them, as one of a list read at the start does after
 * another process's write. The step to the rows ({@link appendStep}) is kept for the write of the commit.
 */
export function appendedOnDisk<T extends { id: string }>(
  list: readonly T[],
  item: T,
  size: number,
  drop: (sizes: readonly number[]) => number,
): T[] | undefined {
  let parts = appendedParts.get(list) as Appended<T> | undefined
  if (parts === undefined) {
    const lazy = lazyOf(list)
    const source = lazy?.loaded === undefined ? lazy?.source : undefined
    const disk = source?.byIds === undefined ? undefined : source.sizes?.()
    if (source?.byIds === undefined || disk === undefined) return undefined
    parts = { read: (ids) => source.byIds!(ids), disk, memory: [] }
  }
  const n = drop([...parts.disk, ...parts.memory, { size }].map((e) => e.size))
  const fromMemory = Math.max(0, n - parts.disk.length)
  const disk = parts.disk.slice(n)
  const memory = [...parts.memory.slice(fromMemory), { item, size }]
  freezeDeep(item)
  const read = parts.read
  const out = lazyList<T>({
    load: () => [...(disk.length === 0 ? [] : read(disk.map((e) => e.id))), ...memory.map((m) => m.item)],
    lastId: () => ({ found: true, id: item.id }),
  })
  appendedParts.set(out, { read, disk, memory })
  const prior = appendSteps.get(list) as AppendStep<T> | undefined
  const gone = [...parts.disk.slice(0, n).map((e) => e.id), ...parts.memory.slice(0, fromMemory).map((m) => m.item.id)]
  const unwritten = new Set(prior?.added.map((e) => e.id))
  // A Set, not `gone.includes` per entry: a batch of many appends dropping many entries compared every pair.
  const goneIds = new Set(gone)
  appendSteps.set(out, {
    root: prior?.root ?? list,
    added: [...(prior?.added.filter((e) => !goneIds.has(e.id)) ?? []), item],
    dropped: [...(prior?.dropped ?? []), ...gone.filter((id) => !unwritten.has(id))],
  })
  return out
}

/**
 * What turns `before`'s rows into `after`'s when `after` was made from it by {@link appendedOnDisk} alone; undefined
 * otherwise (the writer compares the lists). Forgotten once asked: the write that asks makes `after` the rows' list,
 * and a chain of steps would keep every list before it alive.
 */
export function appendStep<T>(before: readonly T[], after: readonly T[]): AppendStep<T> | undefined {
  const step = appendSteps.get(after) as AppendStep<T> | undefined
  if (step?.root !== before) return undefined
  appendSteps.delete(after)
  return step
}
