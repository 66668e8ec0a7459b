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

export function createEventHub(store: ProfileStore, options: HubOptions = {}): EventHub {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
  const pollMs = options.pollMs ?? POLL_MS
  const keep = options.keep ?? KEEP
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS
  const catchUpBytes = options.catchUpBytes ?? CATCH_UP_BYTES
  const maxBuffered = options.maxBuffered ?? MAX_BUFFERED
  const open = new Set<Connection>()
  /** Recent events, oldest first, each as the frame every connection is written. */
  const recent: Array<{ revision: number; frame: Buffer }> = []
  let seen: State = store.state
  let revision = store.revision
  /** The oldest revision a page can resume from without a gap. */
  let floor = revision
  let heartbeat: NodeJS.Timeout | undefined
  let poll: NodeJS.Timeout | undefined
  // The upgrade is answered here (fenced before); compression off, so a payload is written as it is; a page sends
  // control frames only, so nothing longer than one (125 bytes) is read.
  const server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 125,
    clientTracking: false,
  })

  const drop = (c: Connection, code: number): void => {
    if (!open.delete(c)) return
    const { ws } = c
    // A page that stopped reading would never take the close frame: its connection goes at once. Another is sent the
    // close frame, and the connection goes soon after whether or not the page answers.
    if (code === CLOSE.policy || ws.bufferedAmount > 0) ws.terminate()
    else {
      ws.close(code)
      setTimeout(() => ws.terminate(), CLOSE_WAIT_MS).unref()
    }
    timers()
  }
  /**
   * Send `payloads` (shared Buffers, never copied) to `c` as text messages. A connection that still holds more than
   * the bound from earlier sends when there is more to send has stopped reading, and is closed instead: checked
   * before the send, so a page that reads has until the next event to take a large catch-up.
   */
  const write = (c: Connection, payloads: readonly Buffer[]): void => {
    const { ws } = c
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > maxBuffered) return drop(c, CLOSE.policy)
    for (const payload of payloads) ws.send(payload, { binary: false })
  }

  /**
   * Events not sent yet. They leave after the current task, so the command that made them answers first, and at most
   * once per FLUSH_MS, so a burst of saves costs each connection one write instead of one per save.
   */
  const outbox: Array<{ revision: number; frame: Buffer }> = []
  let flushing = false
  let flushedAt = 0
  const flush = (): void => {
    flushing = false
    flushedAt = Date.now()
    const events = outbox.splice(0)
    if (events.length === 0) return
    const newest = events.at(-1)!.revision
    const all = events.map((e) => e.frame)
    for (const c of open) {
      if (c.sent >= newest) continue
      // A page that connected meanwhile was sent the older ones already, in its catch-up.
      const due = c.sent < events[0]!.revision ? all : events.filter((e) => e.revision > c.sent).map((e) => e.frame)
      c.sent = newest
      write(c, due)
    }
  }
  const schedule = (): void => {
    if (flushing) return
    flushing = true
    const wait = flushedAt + FLUSH_MS - Date.now()
    if (wait > 0) setTimeout(flush, wait).unref()
    else setImmediate(flush)
  }

  const unsubscribe = store.onChange((state) => {
    revision = store.revision
    const change: Change | undefined = diffStates(seen, state)
    seen = state
    if (change === undefined) return
    // Encoded once, for the catch-ups and for every connection it goes to.
    const event = {
      revision,
      frame: Buffer.from(JSON.stringify({ kind: 'change', revision, change } satisfies LiveEvent)),
    }
    recent.push(event)
    if (recent.length > keep) floor = recent.shift()!.revision
    outbox.push(event)
    schedule()
  })

  const beat = (): void => {
    for (const c of [...open]) {
      // No pong since the last ping: the page stopped reading (or is gone without a word).
      if (!c.answered) {
        drop(c, CLOSE.policy)
        continue
      }
      c.answered = false
      if (c.ws.bufferedAmount > maxBuffered) drop(c, CLOSE.policy)
      else c.ws.ping()
    }
  }
  const timers = (): void => {
    if (open.size > 0 && heartbeat === undefined) {
      heartbeat = setInterval(beat, heartbeatMs)
      // Reading the revision is how the store notices another process's commit (one PRAGMA); it then reports it.
      poll = setInterval(() => void store.revision, pollMs)
      heartbeat.unref()
      poll.unref()
    } else if (open.size === 0 && heartbeat !== undefined) {
      clearInterval(heartbeat)
      clearInterval(poll)
      heartbeat = poll = undefined
    }
  }

  /** What a page at `since` is sent first: nothing, the events it missed (shared frames), or `reload`. */
  const catchUp = (since: number | undefined): Buffer[] => {
    const now = store.revision
    if (since === undefined || since === now) return []
    const reload = (): Buffer[] => [Buffer.from(JSON.stringify({ kind: 'reload', revision: now } satisfies LiveEvent))]
    if (since < floor || since > now) return reload()
    const due: Buffer[] = []
    let bytes = 0
    for (const e of recent) {
      if (e.revision <= since) continue
      bytes += e.frame.length
      if (bytes > catchUpBytes) return reload()
      due.push(e.frame)
    }
    return due
  }

  return {
    attach(req, socket, head, since) {
      if (open.size >= maxConnections) {
        refuseUpgrade(
          socket,
          503,
          JSON.stringify({
            error: { code: 'too-large', message: 'too many open event channels', limit: maxConnections },
          }),
          { 'Retry-After': '10' },
        )
        return
      }
      server.handleUpgrade(req, socket, head, (ws) => {
        const c: Connection = { ws, sent: 0, answered: true }
        // A ping from the page is answered by `ws` itself; a data frame is not what a downlink takes.
        ws.on('pong', () => {
          c.answered = true
        })
        ws.on('message', () => drop(c, CLOSE.protocol))
        ws.on('error', () => ws.terminate())
        ws.once('close', () => {
          open.delete(c)
          timers()
        })
        const first = catchUp(since)
        const last = recent.at(-1)?.revision ?? revision
        c.sent = since === undefined ? last : Math.max(since, last)
        open.add(c)
        timers()
        if (first.length > 0) write(c, first)
      })
    },
    get connections() {
      return open.size
    },
    close() {
      unsubscribe()
      for (const c of [...open]) drop(c, CLOSE.goingAway)
      timers()
    },
  }
}
