/**
 * Several pages of one browser, simulated for jsdom (which has neither `navigator.locks` nor a BroadcastChannel
 * shared between pages): each page has its own Web Locks handle, BroadcastChannel constructor, timers and
 * channel connection, all over one lock manager and one set of channels. A page can be closed (its locks are released and its
 * channels closed, as at unload) or frozen (nothing of it runs, neither timers nor messages nor lock callbacks, until
 * it is thawed; what reached it meanwhile runs then, in order). Follows the Web Locks and BroadcastChannel specs in
 * what live-tabs.ts uses: exclusive locks granted in request order, `steal`, `signal`; messages delivered as tasks
 * to every other open channel of the same name.
 */
import type { LiveEvent } from '../../lib/shared/wire-state.ts'
import type { SourceLike } from '../../lib/client/data/live-socket.ts'
import type { BroadcastChannelLike, FeedOptions, LocksLike, TimersLike } from '../../lib/client/data/live-tabs.ts'

/** A stand-in for the channel's connection (EventSource-shaped, as live-tabs.ts sees it): records which page opened what and lets the spec deliver events. */
export class FakeSource {
  readyState = 0
  closed = false
  onerror: ((e: Event) => void) | null = null
  readonly #listeners = new Map<string, Array<(e: Event) => void>>()
  constructor(
    readonly url: string,
    readonly page: SimPage | undefined,
    readonly run: (fn: () => void) => void,
  ) {}
  addEventListener(type: string, fn: (e: Event) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), fn])
  }
  close(): void {
    this.closed = true
    this.readyState = 2
  }
  /** Deliver `event` as the server would (a task of the page that opened the source). */
  emit(event: LiveEvent): void {
    if (this.closed) return
    this.run(() => {
      for (const fn of this.#listeners.get(event.kind) ?? [])
        fn(new MessageEvent(event.kind, { data: JSON.stringify(event) }))
    })
  }
  open(): void {
    this.run(() => {
      this.readyState = 1
      for (const fn of this.#listeners.get('open') ?? []) fn(new Event('open'))
    })
  }
  fail(readyState: number): void {
    this.run(() => {
      this.readyState = readyState
      this.onerror?.(new Event('error'))
    })
  }
}

/** What the shared lock manager and channels need of a page: to run a task of it, and to tell it from another. */
interface PageTasks {
  run(fn: () => void): void
}

interface Holder {
  page: PageTasks
  release(): void
  reject(error: unknown): void
}
interface Waiter {
  page: PageTasks
  grant(): void
}

/** The lock manager every page of the browser shares: exclusive locks granted in request order, `steal`, `signal`. */
class SimLocks {
  readonly #holders = new Map<string, Holder>()
  readonly #queues = new Map<string, Waiter[]>()

  /** The Web Locks handle of `page`. */
  handleFor(page: PageTasks): LocksLike {
    return {
      request: (lockName, options, callback) =>
        new Promise((resolve, reject) => {
          const take = () => this.#take(page, lockName, callback, resolve, reject)
          if (options.steal) {
            const current = this.#holders.get(lockName)
            this.#holders.delete(lockName)
            current?.reject(new DOMException('The lock was stolen', 'AbortError'))
            take()
            return
          }
          this.#enqueue(page, lockName, take, options.signal, reject)
        }),
    }
  }

  #grantNext(name: string): void {
    if (this.#holders.has(name)) return
    this.#queues.get(name)?.shift()?.grant()
  }

  // The page holds `lockName` now; its callback runs as a task of the page, and the lock goes when it settles.
  #take(
    page: PageTasks,
    lockName: string,
    callback: () => Promise<void> | void,
    resolve: (value: unknown) => void,
    reject: (error: unknown) => void,
  ): void {
    let done = false
    const holder: Holder = {
      page,
      release: () => {
        if (done) return
        done = true
        if (this.#holders.get(lockName) === holder) this.#holders.delete(lockName)
        this.#grantNext(lockName)
      },
      reject: (error) => {
        if (done) return
        done = true
        page.run(() => reject(error))
      },
    }
    this.#holders.set(lockName, holder)
    page.run(() => {
      Promise.resolve(callback()).then(
        (value) => {
          holder.release()
          resolve(value)
        },
        (error: unknown) => {
          holder.release()
          reject(error)
        },
      )
    })
  }

  #enqueue(
    page: PageTasks,
    lockName: string,
    grant: () => void,
    signal: AbortSignal | undefined,
    reject: (error: unknown) => void,
  ): void {
    const waiter: Waiter = { page, grant }
    const queue = this.#queues.get(lockName) ?? []
    this.#queues.set(lockName, queue)
    signal?.addEventListener('abort', () => {
      const at = queue.indexOf(waiter)
      if (at < 0) return
      queue.splice(at, 1)
      page.run(() => reject(new DOMException('The request was aborted', 'AbortError')))
    })
    queue.push(waiter)
    this.#grantNext(lockName)
  }

  /** `page` unloaded: its waiting requests go, and the locks it holds are released. */
  drop(page: PageTasks): void {
    for (const [lockName, queue] of this.#queues)
      this.#queues.set(
        lockName,
        queue.filter((w) => w.page !== page),
      )
    for (const [, holder] of [...this.#holders]) if (holder.page === page) holder.release()
  }
}

interface ChannelEntry {
  name: string
  page: PageTasks
  deliver(data: unknown): void
}

/** The BroadcastChannel constructor of `page`, over the browser's one set of open channels. */
function channelClass(page: PageTasks, channels: Set<ChannelEntry>): BroadcastChannelLike {
  return class Channel {
    onmessage: ((e: MessageEvent) => void) | null = null
    readonly #entry: ChannelEntry
    constructor(readonly channelName: string) {
      this.#entry = {
        name: channelName,
        page,
        deliver: (data) => page.run(() => this.onmessage?.(new MessageEvent('message', { data }))),
      }
      channels.add(this.#entry)
    }
    postMessage(message: unknown): void {
      if (!channels.has(this.#entry)) throw new DOMException('closed', 'InvalidStateError')
      const copy = structuredClone(message)
      for (const other of channels) if (other !== this.#entry && other.name === this.channelName) other.deliver(copy)
    }
    close(): void {
      channels.delete(this.#entry)
    }
  }
}

/** One simulated page: the options to give live-tabs.ts / live.ts, and what a spec does to the page. */
export interface SimPage {
  readonly name: string
  readonly options: Required<Pick<FeedOptions, 'locks' | 'BroadcastChannel' | 'timers' | 'Source'>> & {
    hidden: () => boolean
    beatMs: number
    staleMs: number
  }
  /** The connections this page opened, oldest first. */
  readonly sources: FakeSource[]
  /**
   * How many times the page's interval timers have run (never while it is frozen or closed): live-tabs.ts checks its
   * leader on one, so a spec that wants a check to have had its chance waits for enough ticks rather than sleeping.
   */
  readonly ticks: number
  hidden: boolean
  /** Stop everything of the page (timers, messages, lock callbacks) until `thaw`. */
  freeze(): void
  thaw(): void
  /** Unload the page: its locks are released, its channels and timers stop. */
  close(): void
}

/** A browser whose pages share locks and channels. */
export interface SimBrowser {
  page(name: string): SimPage
  /** The sources open now, across every page. */
  openSources(): FakeSource[]
}

/** The connection constructor of `tab`: each source it opens runs its events as tasks of the page and is listed in it. */
function sourceClass(tab: SimTab): SourceLike {
  class PageSource extends FakeSource {
    constructor(url: string) {
      super(url, tab, (fn) => tab.run(fn))
      tab.sources.push(this)
    }
  }
  return PageSource as unknown as SourceLike
}

/** One page of a {@link SimBrowser}: its tasks, timers, locks handle, channels and sources. */
class SimTab implements SimPage, PageTasks {
  readonly options: SimPage['options']
  readonly sources: FakeSource[] = []
  hidden = false
  ticks = 0
  #frozen = false
  #gone = false
  #pending: Array<() => void> = []
  readonly #intervals = new Set<ReturnType<typeof setInterval>>()
  readonly #locks: SimLocks
  readonly #channels: Set<ChannelEntry>

  constructor(
    readonly name: string,
    locks: SimLocks,
    channels: Set<ChannelEntry>,
    timing: { beatMs: number; staleMs: number },
  ) {
    this.#locks = locks
    this.#channels = channels
    this.options = {
      locks: locks.handleFor(this),
      BroadcastChannel: channelClass(this, channels),
      timers: this.#timers(),
      Source: sourceClass(this),
      hidden: () => this.hidden,
      ...timing,
    }
  }

  /** Run `fn` as a task of this page: later, and only while it is neither frozen nor gone. */
  run(fn: () => void): void {
    setTimeout(() => {
      if (this.#gone) return
      if (this.#frozen) this.#pending.push(fn)
      else fn()
    }, 0)
  }

  #timers(): TimersLike {
    return {
      setInterval: (fn, ms) => {
        const handle = setInterval(() => {
          if (this.#frozen || this.#gone) return
          this.ticks++
          fn()
        }, ms)
        this.#intervals.add(handle)
        return handle
      },
      clearInterval: (handle) => {
        clearInterval(handle as ReturnType<typeof setInterval>)
        this.#intervals.delete(handle as ReturnType<typeof setInterval>)
      },
      // A frozen page's timeout fires once it is thawed.
      setTimeout: (fn, ms) => setTimeout(() => this.run(fn), ms),
    }
  }

  freeze(): void {
    this.#frozen = true
  }

  thaw(): void {
    this.#frozen = false
    const due = this.#pending
    this.#pending = []
    for (const fn of due) fn()
  }

  close(): void {
    this.#gone = true
    for (const handle of this.#intervals) clearInterval(handle)
    for (const entry of [...this.#channels]) if (entry.page === this) this.#channels.delete(entry)
    for (const source of this.sources) source.close()
    this.#locks.drop(this)
  }
}

/** A simulated browser; `beatMs` / `staleMs` are given to every page's options (short, so specs run fast). */
export function simBrowser({ beatMs = 20, staleMs = 100 }: { beatMs?: number; staleMs?: number } = {}): SimBrowser {
  const locks = new SimLocks()
  const channels = new Set<ChannelEntry>()
  const all: SimTab[] = []
  return {
    page: (name) => {
      const tab = new SimTab(name, locks, channels, { beatMs, staleMs })
      all.push(tab)
      return tab
    },
    openSources: () => all.flatMap((p) => p.sources.filter((s) => !s.closed)),
  }
}
