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

interface Holder {
  page: SimPage
  release(): void
  reject(error: unknown): void
}
interface Waiter {
  page: SimPage
  grant(): void
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

/** A simulated browser; `beatMs` / `staleMs` are given to every page's options (short, so specs run fast). */
export function simBrowser({ beatMs = 20, staleMs = 100 }: { beatMs?: number; staleMs?: number } = {}): SimBrowser {
  const holders = new Map<string, Holder>()
  const queues = new Map<string, Waiter[]>()
  const channels = new Set<{ name: string; page: SimPage; deliver(data: unknown): void }>()
  const all: SimPage[] = []

  const grantNext = (name: string): void => {
    if (holders.has(name)) return
    const next = queues.get(name)?.shift()
    next?.grant()
  }

  const page = (name: string): SimPage => {
    let frozen = false
    let gone = false
    let pending: Array<() => void> = []
    const intervals = new Set<ReturnType<typeof setInterval>>()
    /** Run `fn` as a task of this page: later, and only while it is neither frozen nor gone. */
    const run = (fn: () => void): void => {
      setTimeout(() => {
        if (gone) return
        if (frozen) pending.push(fn)
        else fn()
      }, 0)
    }
    const timers: TimersLike = {
      setInterval: (fn, ms) => {
        const handle = setInterval(() => {
          if (!frozen && !gone) fn()
        }, ms)
        intervals.add(handle)
        return handle
      },
      clearInterval: (handle) => {
        clearInterval(handle as ReturnType<typeof setInterval>)
        intervals.delete(handle as ReturnType<typeof setInterval>)
      },
      // A frozen page's timeout fires once it is thawed.
      setTimeout: (fn, ms) => setTimeout(() => run(fn), ms),
    }
    const locks: LocksLike = {
      request(lockName, options, callback) {
        return new Promise((resolve, reject) => {
          const take = (): void => {
            let done = false
            const holder: Holder = {
              page: self,
              release: () => {
                if (done) return
                done = true
                if (holders.get(lockName) === holder) holders.delete(lockName)
                grantNext(lockName)
              },
              reject: (error) => {
                if (done) return
                done = true
                run(() => reject(error))
              },
            }
            holders.set(lockName, holder)
            run(() => {
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
          if (options.steal) {
            const current = holders.get(lockName)
            holders.delete(lockName)
            current?.reject(new DOMException('The lock was stolen', 'AbortError'))
            take()
            return
          }
          const waiter: Waiter = { page: self, grant: take }
          const queue = queues.get(lockName) ?? []
          queues.set(lockName, queue)
          options.signal?.addEventListener('abort', () => {
            const at = queue.indexOf(waiter)
            if (at < 0) return
            queue.splice(at, 1)
            run(() => reject(new DOMException('The request was aborted', 'AbortError')))
          })
          queue.push(waiter)
          grantNext(lockName)
        })
      },
    }
    class Channel {
      onmessage: ((e: MessageEvent) => void) | null = null
      readonly #entry: { name: string; page: SimPage; deliver(data: unknown): void }
      constructor(readonly channelName: string) {
        this.#entry = {
          name: channelName,
          page: self,
          deliver: (data) => run(() => this.onmessage?.(new MessageEvent('message', { data }))),
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
    const sources: FakeSource[] = []
    class PageSource extends FakeSource {
      constructor(url: string) {
        super(url, self, run)
        sources.push(this)
      }
    }
    const self: SimPage = {
      name,
      options: {
        locks,
        BroadcastChannel: Channel as unknown as BroadcastChannelLike,
        timers,
        Source: PageSource as unknown as SourceLike,
        hidden: () => self.hidden,
        beatMs,
        staleMs,
      },
      sources,
      hidden: false,
      freeze() {
        frozen = true
      },
      thaw() {
        frozen = false
        const due = pending
        pending = []
        for (const fn of due) fn()
      },
      close() {
        gone = true
        for (const handle of intervals) clearInterval(handle)
        for (const entry of [...channels]) if (entry.page === self) channels.delete(entry)
        for (const source of sources) source.close()
        for (const [lockName, queue] of queues)
          queues.set(
            lockName,
            queue.filter((w) => w.page !== self),
          )
        for (const [, holder] of [...holders]) if (holder.page === self) holder.release()
      },
    }
    all.push(self)
    return self
  }

  return {
    page,
    openSources: () => all.flatMap((p) => p.sources.filter((s) => !s.closed)),
  }
}
