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

/**
 * Join the browser's channel on `options.url`, this page's state being at revision `since`. Events newer than it reach
 * `sink.event` once each and in order, whichever page holds the connection.
 */
export function openFeed(options: FeedOptions, since: number | undefined, sink: FeedSink): LiveFeed {
  // A key given as undefined means "this page has none" (a test of an old browser), not "use the page's own".
  const locks = 'locks' in options ? options.locks : browserLocks()
  const BC =
    'BroadcastChannel' in options
      ? options.BroadcastChannel
      : (globalThis as { BroadcastChannel?: BroadcastChannelLike }).BroadcastChannel
  const ES = 'Source' in options ? options.Source : pageSource()
  const timers: TimersLike = options.timers ?? globalThis
  const hidden = options.hidden ?? pageHidden
  const beatMs = options.beatMs ?? BEAT_MS
  const staleMs = options.staleMs ?? STALE_MS
  const me = Math.random().toString(36).slice(2) + Date.now().toString(36)

  let mode: FeedMode = 'connecting'
  let closed = false
  let cursor = since
  const setMode = (next: FeedMode): void => {
    if (mode === next || closed) return
    mode = next
    sink.mode(next)
  }

  if (locks === undefined || BC === undefined || ES === undefined) {
    mode = 'fallback'
    return {
      get mode() {
        return mode
      },
      leading: false,
      get cursor() {
        return cursor
      },
      close() {
        closed = true
        mode = 'closed'
      },
    }
  }

  const channel = new BC(`dsh-agent-profiles:live:v1:${options.url}`)
  const lockName = `dsh-agent-profiles:live:v1:${options.url}`
  const post = (message: Message): void => {
    if (!closed) channel.postMessage(message)
  }

  /** Events handed on, oldest first, newer than `floor`: what a page that joins late is caught up from. */
  let kept: LiveEvent[] = []
  let floor = since
  const hand = (event: LiveEvent): void => {
    if (closed) return
    if (event.kind === 'reload') {
      kept = []
      floor = cursor = event.revision
    } else {
      if (cursor !== undefined && event.revision <= cursor) return
      cursor = event.revision
      kept.push(event)
      if (kept.length > KEEP) floor = kept.shift()!.revision
    }
    sink.event(event)
  }

  // ── the leader ──
  let leading = false
  let source: InstanceType<SourceLike> | undefined
  let beat: unknown
  const onSourceEvent = (e: Event): void => {
    let event: LiveEvent
    try {
      event = JSON.parse((e as MessageEvent<string>).data) as LiveEvent
    } catch {
      return
    }
    post({ t: 'event', from: me, event })
    hand(event)
  }
  const lead = (): void => {
    leading = true
    leader = me
    joining = undefined
    post({ t: 'leader', from: me })
    const es = new ES(`${options.url}${cursor === undefined ? '' : `?since=${cursor}`}`)
    source = es
    es.addEventListener('open', () => {
      setMode('live')
      post({ t: 'beat', from: me, mode })
    })
    es.addEventListener('change', onSourceEvent)
    es.addEventListener('reload', onSourceEvent)
    es.onerror = () => {
      // CONNECTING: the source retries by itself. CLOSED: it gave up (refused again and again: the cap, the fence, no host).
      if (es.readyState === 2) {
        es.close()
        setMode('fallback')
      } else {
        setMode('connecting')
      }
      post({ t: 'beat', from: me, mode })
    }
    beat = timers.setInterval(() => post({ t: 'beat', from: me, mode }), beatMs)
  }
  const follow = (): void => {
    if (!leading) return
    leading = false
    source?.close()
    source = undefined
    timers.clearInterval(beat)
    heardAt = Date.now()
  }

  // ── the election: one normal request queued at a time; a steal only when the leader went silent ──
  let holding: (() => void) | undefined
  let waiting: AbortController | undefined
  let stealing = false
  const request = (steal: boolean): void => {
    if (closed || holding !== undefined || stealing || (!steal && waiting !== undefined)) return
    if (steal) {
      waiting?.abort()
      waiting = undefined
      stealing = true
    }
    const ac = steal ? undefined : new AbortController()
    if (ac !== undefined) waiting = ac
    let release: (() => void) | undefined
    const granted = (): Promise<void> | undefined => {
      if (steal) stealing = false
      else if (waiting === ac) waiting = undefined
      if (closed) return undefined
      return new Promise<void>((resolve) => {
        release = resolve
        holding = resolve
        lead()
      })
    }
    void locks
      .request(lockName, steal ? { steal: true } : { signal: ac!.signal }, granted)
      .catch(() => undefined)
      .then(() => {
        // The lock ended: given back, stolen by a page that found this one silent, or the queued request withdrawn.
        if (steal) stealing = false
        if (waiting === ac) waiting = undefined
        if (release !== undefined && holding === release) {
          holding = undefined
          follow()
        }
        request(false)
      })
  }

  // ── a follower ──
  let leader: string | undefined
  let heardAt = Date.now()
  /** While set, this page waits for the leader's catch-up and holds the relayed events meanwhile. */
  let joining: LiveEvent[] | undefined = []
  const join = (): void => {
    joining ??= []
    post({ t: 'join', from: me, since: cursor })
  }
  channel.onmessage = (e: MessageEvent) => {
    const message = e.data as Message
    if (closed) return
    switch (message.t) {
      case 'leader':
        leader = message.from
        heardAt = Date.now()
        // Two leaders cannot both hold the lock: an announcement after ours means ours was stolen or given up.
        if (leading) {
          holding?.()
          follow()
        }
        if (joining !== undefined) join()
        return
      case 'beat':
      case 'event':
        // A page frozen while it led may speak once it runs again: only the current leader is heard.
        leader ??= message.from
        if (message.from !== leader || leading) return
        heardAt = Date.now()
        if (message.t === 'beat') setMode(message.mode)
        else if (joining !== undefined) joining.push(message.event)
        else hand(message.event)
        return
      case 'join':
        if (!leading) return
        post({ t: 'catchup', to: message.from, events: catchUp(message.since) })
        return
      case 'catchup': {
        if (message.to !== me || joining === undefined) return
        const held = joining
        joining = undefined
        for (const event of [...message.events, ...held]) hand(event)
        return
      }
    }
  }
  const catchUp = (from: number | undefined): LiveEvent[] => {
    if (from !== undefined && cursor !== undefined && from >= cursor) return []
    if (from === undefined || floor === undefined || from < floor) return [{ kind: 'reload', revision: cursor ?? 0 }]
    return kept.filter((event) => event.revision > from)
  }

  const watch = timers.setInterval(() => {
    if (leading || stealing || closed || hidden() || Date.now() - heardAt < staleMs) return
    // Not all at once: the first page to steal announces itself, and the others hear it before their turn.
    timers.setTimeout(() => {
      if (!leading && !stealing && !closed && Date.now() - heardAt >= staleMs) request(true)
    }, Math.random() * beatMs)
  }, beatMs)

  join()
  request(false)
  return {
    get mode() {
      return mode
    },
    get leading() {
      return leading
    },
    get cursor() {
      return cursor
    },
    close() {
      if (closed) return
      follow()
      closed = true
      mode = 'closed'
      timers.clearInterval(watch)
      holding?.()
      waiting?.abort()
      channel.close()
    },
  }
}
