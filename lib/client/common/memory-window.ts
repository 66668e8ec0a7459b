/**
 * The items of one memory list as the settings list scrolls through them: fetched from the search route a page at a
 * time, only the pages the visible rows need, and the count of all matches (the scrollbar's length). One window per
 * query and saved version: a new search, filter or change saved elsewhere makes a new window, which shows the rows of
 * the one before it until its own pages arrive, so the list never blinks empty. A list whose first rows the page holds
 * (the user layer whole, which a save's reply brings; a profile's core when it has no archive, or the first rows a
 * save's reply brought when it has one) makes a window with those pages already here, in the route's order, so that
 * showing it, and showing it again after a save, asks nothing until the user scrolls past them. It never renders and
 * never writes.
 */
import { newestFirst } from '../../shared/memory-order.ts'
import type { MemoryItem } from '../../state/model.ts'
import type { ApiClient, MemoryQuery } from '../data/api.ts'

/** Items fetched per request: a screen of rows is about ten, so one request covers several screens of scrolling. */
export const WINDOW_PAGE = 100

/** The first items of an unfiltered list in the route's order, and how many it has in all. */
export interface HeldRows {
  readonly items: readonly MemoryItem[]
  readonly total: number
}

/** The rows of a list held whole (`items` as saved, in any order): all of it, in the route's order. */
export function wholeRows(items: readonly MemoryItem[]): HeldRows {
  return { items: newestFirst(items), total: items.length }
}

/** The pages of one query, fetched on demand; listeners hear each page that arrives. */
export class MemoryWindow {
  readonly #client: ApiClient
  readonly query: MemoryQuery
  readonly #pages = new Map<number, readonly MemoryItem[]>()
  readonly #asked = new Set<number>()
  readonly #failed = new Set<number>()
  readonly #listeners = new Set<() => void>()
  #previous: MemoryWindow | undefined
  #total: number | undefined
  #error: unknown = null
  #version = 0
  /** The rows last asked for, asked again by `retry`. */
  #wanted = { from: 0, to: 0 }

  constructor(client: ApiClient, query: MemoryQuery, previous?: MemoryWindow) {
    this.#client = client
    this.query = query
    this.#previous = previous
  }

  /**
   * The unfiltered window of a list whose first rows the page holds (the whole list, or whole pages of it: a save asks
   * for WINDOW_PAGE rows): their pages are cut from them and never asked for; the pages after them are asked for
   * when shown.
   */
  static held(client: ApiClient, query: MemoryQuery, rows: HeldRows): MemoryWindow {
    const window = new MemoryWindow(client, query)
    for (let page = 0; page * WINDOW_PAGE < rows.items.length; page++) {
      window.#pages.set(page, rows.items.slice(page * WINDOW_PAGE, (page + 1) * WINDOW_PAGE))
      window.#asked.add(page)
    }
    window.#total = rows.total
    return window
  }

  /** How many items match, once the first page answered (the previous window's count until then). */
  get total(): number | undefined {
    return this.#total ?? this.#previous?.total
  }

  /** The last request's failure, null when none failed. */
  get error(): unknown {
    return this.#error
  }

  /** Moves with every page that arrives (for `useSyncExternalStore`). */
  readonly version = (): number => this.#version

  readonly subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn)
    return () => {
      this.#listeners.delete(fn)
    }
  }

  /** Item `index` of the matches, or undefined while its page is being fetched. */
  at(index: number): MemoryItem | undefined {
    const page = this.#pages.get(Math.floor(index / WINDOW_PAGE))
    if (page !== undefined) return page[index % WINDOW_PAGE]
    return this.#previous?.at(index)
  }

  /** Every item fetched so far (the add box checks a new item against them). */
  loaded(): MemoryItem[] {
    return [...this.#pages.values()].flat()
  }

  /** Fetch the pages holding items `from`…`to` (inclusive) that are not here or on their way. */
  ensure(from: number, to: number): void {
    this.#wanted = { from, to }
    const last =
      this.#total === undefined
        ? Math.floor(from / WINDOW_PAGE)
        : Math.floor(Math.min(to, this.#total - 1) / WINDOW_PAGE)
    for (let page = Math.floor(Math.max(0, from) / WINDOW_PAGE); page <= last; page++) {
      if (this.#asked.has(page)) continue
      this.#asked.add(page)
      this.#client.searchMemory(this.query, page * WINDOW_PAGE, WINDOW_PAGE).then(
        (reply) => {
          this.#pages.set(page, reply.items)
          this.#total = reply.total
          this.#error = null
          // Once its own first page is here the window stands on its own; the old rows would only mislead.
          this.#previous = undefined
          this.#changed()
          // The count may show that more of the asked rows exist than the first guess covered.
          if (last < Math.floor(Math.min(to, reply.total - 1) / WINDOW_PAGE)) this.ensure(from, to)
        },
        (error: unknown) => {
          // Asked again only by `retry`: asking on every render would repeat a failing request without end.
          this.#failed.add(page)
          this.#error = error
          this.#changed()
        },
      )
    }
  }

  /** Ask again for the pages whose request failed, for the rows last asked for. */
  retry(): void {
    for (const page of this.#failed) this.#asked.delete(page)
    this.#failed.clear()
    this.#error = null
    this.#changed()
    this.ensure(this.#wanted.from, this.#wanted.to)
  }

  #changed(): void {
    this.#version++
    for (const fn of [...this.#listeners]) fn()
  }
}
