/**
 * One push connection per browser, however many pages of the app are open. The channel is a WebSocket
 * (live-socket.ts), which costs none of the six HTTP/1.1 connections a browser gives one host; one per browser still
 * keeps the host's work per save the same however many tabs are open. So the pages of an origin elect one leader
 * through the Web Locks API (a lock held for the page's life; the browser hands it to the next page in line the moment
 * the leader's page closes), the leader alone opens the channel, and it relays every event to the other pages over a
 * BroadcastChannel. A leader whose page froze (its timers and tasks stopped) stops beating, and the first visible page
 * to notice steals the lock; the old leader, when it runs again, learns it lost the lock and follows.
 *
 * Owns the election, the leader's connection, the relay, the catch-up of a page that joins late, and the order and
 * uniqueness of the events it hands on (each revision once, oldest first; `reload` always). It never fetches, never
 * touches the snapshot (live.ts applies the events) and never renders. Without Web Locks or BroadcastChannel there is
 * no shared channel, and it opens none: the page refreshes on focus instead.
 */
import type { LiveEvent } from '../../shared/wire-state.ts'
import { socketSource, type SourceLike, type WebSocketLike } from './live-socket.ts'

/** The part of `navigator.locks` the election uses. */
export interface LocksLike {
  request(
    name: string,
    options: { steal?: boolean; signal?: AbortSignal },
    callback: () => Promise<void> | void,
  ): Promise<unknown>
}

/** The BroadcastChannel constructor (the page's, or a test's). */
export type BroadcastChannelLike = new (name: string) => {
  postMessage(message: unknown): void
  close(): void
  onmessage: ((e: MessageEvent) => void) | null
}

/** The timers of the page (a test freezes a simulated page by stopping them). */
export interface TimersLike {
  setInterval(fn: () => void, ms: number): unknown
  clearInterval(handle: unknown): void
  setTimeout(fn: () => void, ms: number): unknown
}

/** Where the feed runs: the page's own APIs unless a test gives its own. */
export interface FeedOptions {
  url: string
  /** The channel's EventSource-shaped connection; by default a WebSocket (live-socket.ts). */
  Source?: SourceLike | undefined
  locks?: LocksLike | undefined
  BroadcastChannel?: BroadcastChannelLike | undefined
  timers?: TimersLike | undefined
  /** Whether the page is hidden away (a hidden page never steals the lead: its timers are throttled anyway). */
  hidden?: (() => boolean) | undefined
  /** How often the leader says it is alive (ms). */
  beatMs?: number
  /** A leader silent this long is taken to be frozen (ms). */
  staleMs?: number
}

/** The state of the channel, as the leader sees its connection. */
export type FeedMode = 'connecting' | 'live' | 'fallback' | 'closed'

/** What the feed hands on to the page. */
export interface FeedSink {
  event(event: LiveEvent): void
  mode(mode: FeedMode): void
}

/** One page's share of the browser's channel. */
export interface LiveFeed {
  readonly mode: FeedMode
  /** Whether this page holds the connection now. */
  readonly leading: boolean
  /** The newest revision this page was handed (or loaded at). */
  readonly cursor: number | undefined
  close(): void
}

/** Messages between the pages; `v1` is in the channel's and the lock's names, so another version never mixes in. */
type Message =
  | { t: 'leader'; from: string }
  | { t: 'beat'; from: string; mode: FeedMode }
  | { t: 'event'; from: string; event: LiveEvent }
  | { t: 'join'; from: string; since: number | undefined }
  | { t: 'catchup'; to: string; events: LiveEvent[] }

const BEAT_MS = 1_000
/** Five beats missed: a busy page skips one now and then; a frozen one misses them all. */
const STALE_MS = 5_000
/** Events each page keeps to catch up a page that joins late; an older gap is answered with `reload`. */
const KEEP = 128

function browserLocks(): LocksLike | undefined {
  return (globalThis.navigator as { locks?: LocksLike } | undefined)?.locks
}

/** The page's WebSocket as the channel's source, when the page has one. */
function pageSource(): SourceLike | undefined {
  const WS = (globalThis as { WebSocket?: WebSocketLike }).WebSocket
  const base = (globalThis as { location?: { href: string } }).location?.href
  return WS === undefined || base === undefined ? undefined : socketSource(WS, base)
}

function pageHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden'
}

/** What a shared feed runs on, each resolved from the options or the page. */
interface FeedEnv {
  url: string
  locks: LocksLike
  Channel: BroadcastChannelLike
  Source: SourceLike
  timers: TimersLike
  hidden: () => boolean
  beatMs: number
  staleMs: number
}

/**
 * Join the browser's channel on `options.url`, this page's state being at revision `since`. Events newer than it reach
 * `sink.event` once each and in order, whichever page holds the connection.
 */
export function openFeed(options: FeedOptions, since: number | undefined, sink: FeedSink): LiveFeed {
  // A key given as undefined means "this page has none" (a test of an old browser), not "use the page's own".
  const locks = 'locks' in options ? options.locks : browserLocks()
  const Channel =
    'BroadcastChannel' in options
      ? options.BroadcastChannel
      : (globalThis as { BroadcastChannel?: BroadcastChannelLike }).BroadcastChannel
  const Source = 'Source' in options ? options.Source : pageSource()
  if (locks === undefined || Channel === undefined || Source === undefined) return fallbackFeed(since)
  const env: FeedEnv = {
    url: options.url,
    locks,
    Channel,
    Source,
    timers: options.timers ?? globalThis,
    hidden: options.hidden ?? pageHidden,
    beatMs: options.beatMs ?? BEAT_MS,
    staleMs: options.staleMs ?? STALE_MS,
  }
  return new SharedFeed(env, since, sink)
}

/** No shared channel (no Web Locks, BroadcastChannel or WebSocket): the page refreshes on focus instead. */
function fallbackFeed(since: number | undefined): LiveFeed {
  let mode: FeedMode = 'fallback'
  return {
    get mode() {
      return mode
    },
    leading: false,
    cursor: since,
    close() {
      mode = 'closed'
    },
  }
}

/**
 * One page's share of the browser's channel: the election (one normal lock request queued at a time; a steal only
 * when the leader went silent), the leader's connection and its relay, a follower's catch-up, and the events handed
 * on, each revision once and oldest first.
 */
class SharedFeed implements LiveFeed {
  private readonly env: FeedEnv
  private readonly sink: FeedSink
  private readonly me = Math.random().toString(36).slice(2) + Date.now().toString(36)
  private readonly channel: InstanceType<BroadcastChannelLike>
  private readonly lockName: string
  private readonly watch: unknown
  private state: FeedMode = 'connecting'
  private closed = false
  private seen: number | undefined
  /** Events handed on, oldest first, newer than `floor`: what a page that joins late is caught up from. */
  private kept: LiveEvent[] = []
  private floor: number | undefined
  // The leader's part.
  private isLeading = false
  private source: InstanceType<SourceLike> | undefined
  private beat: unknown
  // The election's part.
  private holding: (() => void) | undefined
  private waiting: AbortController | undefined
  private stealing = false
  // A follower's part.
  private leader: string | undefined
  private heardAt = Date.now()
  /** While set, this page waits for the leader's catch-up and holds the relayed events meanwhile. */
  private joining: LiveEvent[] | undefined = []

  constructor(env: FeedEnv, since: number | undefined, sink: FeedSink) {
    this.env = env
    this.sink = sink
    this.seen = since
    this.floor = since
    this.channel = new env.Channel(`dsh-agent-profiles:live:v1:${env.url}`)
    this.lockName = `dsh-agent-profiles:live:v1:${env.url}`
    this.channel.onmessage = (e: MessageEvent) => this.heard(e.data as Message)
    this.watch = env.timers.setInterval(() => this.watchLeader(), env.beatMs)
    this.join()
    this.request(false)
  }

  get mode(): FeedMode {
    return this.state
  }

  get leading(): boolean {
    return this.isLeading
  }

  get cursor(): number | undefined {
    return this.seen
  }

  close(): void {
    if (this.closed) return
    this.follow()
    this.closed = true
    this.state = 'closed'
    this.env.timers.clearInterval(this.watch)
    this.holding?.()
    this.waiting?.abort()
    this.channel.close()
  }

  private setMode(next: FeedMode): void {
    if (this.state === next || this.closed) return
    this.state = next
    this.sink.mode(next)
  }

  private post(message: Message): void {
    if (!this.closed) this.channel.postMessage(message)
  }

  /**
   * Hand `event` on to the page unless it is one handed already; a `reload` starts the kept events afresh; a `meta`
   * (no saved change) is handed on as it comes and never kept.
   */
  private hand(event: LiveEvent): void {
    if (this.closed) return
    if (event.kind === 'meta') {
      // Nothing to keep.
    } else if (event.kind === 'reload') {
      this.kept = []
      this.floor = this.seen = event.revision
    } else {
      if (this.seen !== undefined && event.revision <= this.seen) return
      this.seen = event.revision
      this.kept.push(event)
      if (this.kept.length > KEEP) this.floor = this.kept.shift()!.revision
    }
    this.sink.event(event)
  }

  /** An event of the leader's own connection: relayed to the other pages, and handed on here. */
  private readonly onSourceEvent = (e: Event): void => {
    let event: LiveEvent
    try {
      event = JSON.parse((e as MessageEvent<string>).data) as LiveEvent
    } catch {
      return
    }
    this.post({ t: 'event', from: this.me, event })
    this.hand(event)
  }

  /** This page holds the lock now: it announces itself, opens the connection and beats. */
  private lead(): void {
    this.isLeading = true
    this.leader = this.me
    this.joining = undefined
    this.post({ t: 'leader', from: this.me })
    const es = new this.env.Source(`${this.env.url}${this.seen === undefined ? '' : `?since=${this.seen}`}`)
    this.source = es
    es.addEventListener('open', () => {
      this.setMode('live')
      this.post({ t: 'beat', from: this.me, mode: this.state })
    })
    es.addEventListener('change', this.onSourceEvent)
    es.addEventListener('reload', this.onSourceEvent)
    es.addEventListener('meta', this.onSourceEvent)
    es.onerror = () => {
      // CONNECTING: the source retries by itself. CLOSED: it gave up (refused again and again: the cap, the fence, no host).
      if (es.readyState === 2) {
        es.close()
        this.setMode('fallback')
      } else {
        this.setMode('connecting')
      }
      this.post({ t: 'beat', from: this.me, mode: this.state })
    }
    this.beat = this.env.timers.setInterval(
      () => this.post({ t: 'beat', from: this.me, mode: this.state }),
      this.env.beatMs,
    )
  }

  /** This page no longer holds the lock: its connection and beat stop, and it listens to the new leader. */
  private follow(): void {
    if (!this.isLeading) return
    this.isLeading = false
    this.source?.close()
    this.source = undefined
    this.env.timers.clearInterval(this.beat)
    this.heardAt = Date.now()
  }

  /** Ask for the lock: queued behind the holder, or (`steal`) taken from a leader that went silent. */
  private request(steal: boolean): void {
    if (this.closed || this.holding !== undefined || this.stealing || (!steal && this.waiting !== undefined)) return
    if (steal) {
      this.waiting?.abort()
      this.waiting = undefined
      this.stealing = true
    }
    const ac = steal ? undefined : new AbortController()
    if (ac !== undefined) this.waiting = ac
    let release: (() => void) | undefined
    const granted = (): Promise<void> | undefined => {
      if (steal) this.stealing = false
      else if (this.waiting === ac) this.waiting = undefined
      if (this.closed) return undefined
      return new Promise<void>((resolve) => {
        release = resolve
        this.holding = resolve
        this.lead()
      })
    }
    void this.env.locks
      .request(this.lockName, steal ? { steal: true } : { signal: ac!.signal }, granted)
      .catch(() => undefined)
      .then(() => {
        // The lock ended: given back, stolen by a page that found this one silent, or the queued request withdrawn.
        if (steal) this.stealing = false
        if (this.waiting === ac) this.waiting = undefined
        if (release !== undefined && this.holding === release) {
          this.holding = undefined
          this.follow()
        }
        this.request(false)
      })
  }

  /** Ask the leader for the events since this page's cursor, holding what it relays until they come. */
  private join(): void {
    this.joining ??= []
    this.post({ t: 'join', from: this.me, since: this.seen })
  }

  /** A message of another page. */
  private heard(message: Message): void {
    if (this.closed) return
    switch (message.t) {
      case 'leader':
        this.leader = message.from
        this.heardAt = Date.now()
        // Two leaders cannot both hold the lock: an announcement after ours means ours was stolen or given up.
        if (this.isLeading) {
          this.holding?.()
          this.follow()
        }
        if (this.joining !== undefined) this.join()
        return
      case 'beat':
      case 'event':
        // A page frozen while it led may speak once it runs again: only the current leader is heard.
        this.leader ??= message.from
        if (message.from !== this.leader || this.isLeading) return
        this.heardAt = Date.now()
        if (message.t === 'beat') this.setMode(message.mode)
        else if (this.joining !== undefined) this.joining.push(message.event)
        else this.hand(message.event)
        return
      case 'join':
        if (!this.isLeading) return
        this.post({ t: 'catchup', to: message.from, events: this.catchUp(message.since) })
        return
      case 'catchup': {
        if (message.to !== this.me || this.joining === undefined) return
        const held = this.joining
        this.joining = undefined
        for (const event of [...message.events, ...held]) this.hand(event)
        return
      }
    }
  }

  /** The events a page at revision `from` missed, or `reload` when they are no longer kept. */
  private catchUp(from: number | undefined): LiveEvent[] {
    const { seen, floor } = this
    if (from !== undefined && seen !== undefined && from >= seen) return []
    if (from === undefined || floor === undefined || from < floor) return [{ kind: 'reload', revision: seen ?? 0 }]
    return this.kept.filter((event) => event.revision > from)
  }

  /** Every beat: a visible follower that heard nothing for `staleMs` steals the lock. */
  private watchLeader(): void {
    const { timers, hidden, beatMs, staleMs } = this.env
    if (this.isLeading || this.stealing || this.closed || hidden() || Date.now() - this.heardAt < staleMs) return
    // Not all at once: the first page to steal announces itself, and the others hear it before their turn.
    timers.setTimeout(() => {
      if (!this.isLeading && !this.stealing && !this.closed && Date.now() - this.heardAt >= staleMs) this.request(true)
    }, Math.random() * beatMs)
  }
}
