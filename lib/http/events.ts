/**
 * The push channel, a WebSocket on `/__ap/events`: tells every open page what each saved change did (which profiles,
 * which conversations, the default, the order), so each page fetches just that. Owns the open connections, the recent
 * events a reconnecting page resumes from, the heartbeat, the bound on what may wait for a page, and — while a page
 * listens — a cheap look at whether another dsh process saved. It never sends the data itself (the page fetches what
 * changed through the routes), never writes the store, never reads anything from a page but control frames, and is
 * reached only through routes.ts, behind the same fence as every route. The WebSocket itself (handshake, frames,
 * control frames, the closing handshake) is the `ws` package's, with compression off and a page's frames capped at a
 * control frame's 125 bytes; socket.ts refuses an upgrade before it gets here.
 *
 * Why a WebSocket and not Server-Sent Events: a browser gives one host six HTTP/1.1 connections for all its tabs, the
 * host's development channel takes one per page, and a stream of ours took one more: the fifth tab of the app then
 * found none left and a save hung. A WebSocket is not counted against those six.
 *
 * Memory: each event is encoded once, and that one Buffer is the payload every connection is written, in a catch-up
 * as in a live send (`ws` writes a Buffer payload as it is, after a 2–10-byte frame header of its own per connection;
 * no text is joined or copied per connection). A catch-up larger than a budget is answered with
 * `reload` instead, and a connection that stops reading (what waits for it passes a bound, or it misses a heartbeat's
 * pong) is closed: the page reloads its state when it connects again.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Change, LiveEvent } from '../shared/wire-state.ts'
import type { State } from '../state/model.ts'
import type { ProfileStore } from '../store/store.ts'
import { diffStates } from './changes.ts'
import { CLOSE, refuseUpgrade } from './socket.ts'

/** How the channel paces and bounds itself; the defaults suit a page, tests and the benchmark change them. */
export interface HubOptions {
  /** A ping this often keeps the connection open and asks the page to show it still reads (ms). */
  heartbeatMs?: number
  /** While a page listens, how often the store is asked whether another dsh process saved (ms). */
  pollMs?: number
  /** Events remembered for pages that reconnect; an older gap is answered with `reload`. */
  keep?: number
  /** Open connections at most; one more is refused with 503 (the page then says it is not live). */
  maxConnections?: number
  /** A catch-up of more bytes than this is answered with `reload` (fetching the state is cheaper than the events). */
  catchUpBytes?: number
  /** A connection with more bytes than this waiting to leave has stopped reading and is closed. */
  maxBuffered?: number
}

const HEARTBEAT_MS = 15_000
const POLL_MS = 250
const KEEP = 512
const MAX_CONNECTIONS = 256
/** A page resuming after a short absence misses a few hundred bytes; 256 KB is hundreds of the largest changes. */
const CATCH_UP_BYTES = 256 * 1024
/** Bytes still waiting for a page when the next frame is due: past this, the page has stopped reading. */
const MAX_BUFFERED = 1024 * 1024
/** How long a closed connection waits for the page's side of the close before it is ended (ms). */
const CLOSE_WAIT_MS = 1_000
/** Events leave at most this often (a frame at 60 Hz): later saves of a burst share the connections' next write. */
const FLUSH_MS = 16

/** The push channel over one store. */
export interface EventHub {
  /**
   * Take one upgrade request of `/__ap/events` (already through the fence): answer the handshake and keep `socket`
   * until the page or the hub goes. `since` is the revision the page has, when it has one.
   */
  attach(req: IncomingMessage, socket: Duplex, head: Buffer, since: number | undefined): void
  /** Connections open now. */
  readonly connections: number
  /** End every connection and stop listening to the store. */
  close(): void
}

/** The revision a page resumes from (`?since=`); absent or malformed means none. */
export function resumeFrom(url: URL): number | undefined {
  const text = url.searchParams.get('since')
  if (text === null || !/^\d{1,15}$/.test(text)) return undefined
  return Number(text)
}

/** One open connection. */
interface Connection {
  ws: WebSocket
  /** The revision of the last event it was sent. */
  sent: number
  /** Whether it answered the last ping. */
  answered: boolean
}

/** The push channel over `store`: a page's connection is kept from its upgrade until it or the hub goes. */
export function createEventHub(store: ProfileStore, options: HubOptions = {}): EventHub {
  return new Hub(store, options)
}

/** An event encoded once: the frame every connection is written. */
interface Encoded {
  revision: number
  frame: Buffer
}

/** The channel's bounds, each from the options or its default. */
function boundsOf(options: HubOptions) {
  return {
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    pollMs: options.pollMs ?? POLL_MS,
    keep: options.keep ?? KEEP,
    maxConnections: options.maxConnections ?? MAX_CONNECTIONS,
    catchUpBytes: options.catchUpBytes ?? CATCH_UP_BYTES,
    maxBuffered: options.maxBuffered ?? MAX_BUFFERED,
  }
}

/** The push channel over one store: its connections, the recent events, the outbox, the heartbeat and the poll. */
class Hub implements EventHub {
  private readonly store: ProfileStore
  private readonly bounds: ReturnType<typeof boundsOf>
  private readonly open = new Set<Connection>()
  /** Recent events, oldest first, each as the frame every connection is written. */
  private readonly recent: Encoded[] = []
  /**
   * Events not sent yet. They leave after the current task, so the command that made them answers first, and at most
   * once per FLUSH_MS, so a burst of saves costs each connection one write instead of one per save.
   */
  private readonly outbox: Encoded[] = []
  private flushing = false
  private flushedAt = 0
  private seen: State
  private revision: number
  /** The oldest revision a page can resume from without a gap. */
  private floor: number
  private heartbeat: NodeJS.Timeout | undefined
  private poll: NodeJS.Timeout | undefined
  // The upgrade is answered here (fenced before); compression off, so a payload is written as it is; a page sends
  // control frames only, so nothing longer than one (125 bytes) is read.
  private readonly server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 125,
    clientTracking: false,
  })
  private readonly unsubscribe: () => void

  constructor(store: ProfileStore, options: HubOptions) {
    this.store = store
    this.bounds = boundsOf(options)
    this.seen = store.state
    this.revision = this.floor = store.revision
    const unchange = store.onChange((state) => this.changed(state))
    const unhealth = store.onHealth(() => this.healthChanged())
    this.unsubscribe = () => {
      unchange()
      unhealth()
    }
  }

  /**
   * The data's health changed with no saved change (the integrity check started or ended): every open page is told to
   * fetch the meta. Sent as it comes, outside the revision's order and never kept: a page that connects later loads
   * the meta with the state.
   */
  private healthChanged(): void {
    if (this.open.size === 0) return
    const frame = Buffer.from(JSON.stringify({ kind: 'meta', revision: this.revision } satisfies LiveEvent))
    for (const c of [...this.open]) this.write(c, [frame])
  }

  get connections(): number {
    return this.open.size
  }

  attach(req: IncomingMessage, socket: Duplex, head: Buffer, since: number | undefined): void {
    if (this.open.size >= this.bounds.maxConnections) {
      refuseUpgrade(
        socket,
        503,
        JSON.stringify({
          error: { code: 'too-large', message: 'too many open event channels', limit: this.bounds.maxConnections },
        }),
        { 'Retry-After': '10' },
      )
      return
    }
    this.server.handleUpgrade(req, socket, head, (ws) => this.connected(ws, since))
  }

  close(): void {
    this.unsubscribe()
    for (const c of [...this.open]) this.drop(c, CLOSE.goingAway)
    this.timers()
  }

  /** A page connected at revision `since`: it is sent what it missed, then every event after. */
  private connected(ws: WebSocket, since: number | undefined): void {
    const c: Connection = { ws, sent: 0, answered: true }
    // A ping from the page is answered by `ws` itself; a data frame is not what a downlink takes.
    ws.on('pong', () => {
      c.answered = true
    })
    ws.on('message', () => this.drop(c, CLOSE.protocol))
    ws.on('error', () => ws.terminate())
    ws.once('close', () => {
      this.open.delete(c)
      this.timers()
    })
    const first = this.catchUp(since)
    const last = this.recent.at(-1)?.revision ?? this.revision
    c.sent = since === undefined ? last : Math.max(since, last)
    this.open.add(c)
    this.timers()
    if (first.length > 0) this.write(c, first)
  }

  /** The store saved: the change, encoded once, is kept for catch-ups and queued for every connection. */
  private changed(state: State): void {
    const revision = (this.revision = this.store.revision)
    const change: Change | undefined = diffStates(this.seen, state)
    this.seen = state
    if (change === undefined) return
    const event = {
      revision,
      frame: Buffer.from(JSON.stringify({ kind: 'change', revision, change } satisfies LiveEvent)),
    }
    this.recent.push(event)
    if (this.recent.length > this.bounds.keep) this.floor = this.recent.shift()!.revision
    this.outbox.push(event)
    this.schedule()
  }

  private drop(c: Connection, code: number): void {
    if (!this.open.delete(c)) return
    const { ws } = c
    // A page that stopped reading would never take the close frame: its connection goes at once. Another is sent the
    // close frame, and the connection goes soon after whether or not the page answers.
    if (code === CLOSE.policy || ws.bufferedAmount > 0) ws.terminate()
    else {
      ws.close(code)
      setTimeout(() => ws.terminate(), CLOSE_WAIT_MS).unref()
    }
    this.timers()
  }

  /**
   * Send `payloads` (shared Buffers, never copied) to `c` as text messages. A connection that still holds more than
   * the bound from earlier sends when there is more to send has stopped reading, and is closed instead: checked
   * before the send, so a page that reads has until the next event to take a large catch-up.
   */
  private write(c: Connection, payloads: readonly Buffer[]): void {
    const { ws } = c
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > this.bounds.maxBuffered) return this.drop(c, CLOSE.policy)
    for (const payload of payloads) ws.send(payload, { binary: false })
  }

  private readonly flush = (): void => {
    this.flushing = false
    this.flushedAt = Date.now()
    const events = this.outbox.splice(0)
    if (events.length === 0) return
    const newest = events.at(-1)!.revision
    const all = events.map((e) => e.frame)
    for (const c of this.open) {
      if (c.sent >= newest) continue
      // A page that connected meanwhile was sent the older ones already, in its catch-up.
      const due = c.sent < events[0]!.revision ? all : events.filter((e) => e.revision > c.sent).map((e) => e.frame)
      c.sent = newest
      this.write(c, due)
    }
  }

  private schedule(): void {
    if (this.flushing) return
    this.flushing = true
    const wait = this.flushedAt + FLUSH_MS - Date.now()
    if (wait > 0) setTimeout(this.flush, wait).unref()
    else setImmediate(this.flush)
  }

  private readonly beat = (): void => {
    for (const c of [...this.open]) {
      // No pong since the last ping: the page stopped reading (or is gone without a word).
      if (!c.answered) {
        this.drop(c, CLOSE.policy)
        continue
      }
      c.answered = false
      if (c.ws.bufferedAmount > this.bounds.maxBuffered) this.drop(c, CLOSE.policy)
      else c.ws.ping()
    }
  }

  /** The heartbeat and the poll run while a page listens, and only then. */
  private timers(): void {
    if (this.open.size > 0 && this.heartbeat === undefined) {
      this.heartbeat = setInterval(this.beat, this.bounds.heartbeatMs)
      // Reading the revision is how the store notices another process's commit (one PRAGMA); it then reports it.
      this.poll = setInterval(() => void this.store.revision, this.bounds.pollMs)
      this.heartbeat.unref()
      this.poll.unref()
    } else if (this.open.size === 0 && this.heartbeat !== undefined) {
      clearInterval(this.heartbeat)
      clearInterval(this.poll)
      this.heartbeat = this.poll = undefined
    }
  }

  /** What a page at `since` is sent first: nothing, the events it missed (shared frames), or `reload`. */
  private catchUp(since: number | undefined): Buffer[] {
    const now = this.store.revision
    if (since === undefined || since === now) return []
    const reload = (): Buffer[] => [Buffer.from(JSON.stringify({ kind: 'reload', revision: now } satisfies LiveEvent))]
    if (since < this.floor || since > now) return reload()
    const due: Buffer[] = []
    let bytes = 0
    for (const e of this.recent) {
      if (e.revision <= since) continue
      bytes += e.frame.length
      if (bytes > this.bounds.catchUpBytes) return reload()
      due.push(e.frame)
    }
    return due
  }
}
