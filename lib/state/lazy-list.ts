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

/** Where a lazy list's rows come from. */
export interface LazySource<T> {
  /** Every element, in order (called at most once per list). */
  load(): T[]
  /** What the memory items hold by kind, without reading them into the state (memory lists only). */
  tally?(): ItemTally
}

interface Lazy<T> {
  source: LazySource<T>
  loaded: readonly T[] | undefined
  tally: ItemTally | undefined
}

const lazies = new WeakMap<object, Lazy<unknown>>()

function freezeDeep(value: unknown): void {
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

/** A frozen-looking array whose elements are read from `source` when a reader first looks inside it. */
export function lazyList<T>(source: LazySource<T>): readonly T[] {
  const lazy: Lazy<T> = { source, loaded: undefined, tally: undefined }
  // The target stays an empty extensible array: the Proxy invariants then allow reporting the loaded elements.
  const proxy = new Proxy([] as T[], {
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
  lazies.set(proxy, lazy as Lazy<unknown>)
  return proxy
}

/** Whether `list` is a lazy list (the store's freezing leaves it alone: freezing would read it). */
export function isLazyList(list: unknown): boolean {
  return typeof list === 'object' && list !== null && lazies.has(list)
}

/** Whether `list` holds its elements in memory: a plain array, or a lazy list a reader already looked inside. */
export function isInMemory(list: readonly unknown[]): boolean {
  const lazy = lazies.get(list)
  return lazy === undefined || lazy.loaded !== undefined
}

/** What `items` hold by kind; a lazy list not read yet answers from its rows without reading them into the state. */
export function itemTally(items: readonly Flagged[]): ItemTally {
  const lazy = lazies.get(items) as Lazy<Flagged> | undefined
  if (lazy !== undefined && lazy.loaded === undefined && lazy.source.tally !== undefined) {
    lazy.tally ??= lazy.source.tally()
    return lazy.tally
  }
  let archived = 0
  let pending = 0
  for (const it of items) {
    if (it.archived === true) archived++
    if (it.pending === true) pending++
  }
  return { items: items.length, archived, pending }
}
