/**
 * The push channel, `GET /__ap/events`: Server-Sent Events telling every open browser what each saved change did
 * (which profiles, which conversations, the default, the order), so each page fetches just that. A browser holds one
 * stream however many tabs it has (one tab leads and relays to the others, client/live-tabs.ts), so a stream here is
 * a browser profile, not a page. Owns the open connections,
 * the recent events a reconnecting page resumes from, the heartbeat, and — while a page listens — a cheap look at
 * whether another dsh process saved. It never sends the data itself (the page fetches what changed through the
 * routes), never writes the store, and is reached only through routes.ts, behind the same fence as every route.
 *
 * Why SSE and not a WebSocket: one-way, plain HTTP through the host's own server (no upgrade route to own), and the
 * browser's EventSource reconnects by itself with `Last-Event-ID`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Change, LiveEvent } from '../shared/contract.ts'
import type { State } from '../state/model.ts'
import type { ProfileStore } from '../store/store.ts'
import { diffStates } from './changes.ts'

/** How the channel paces itself; the defaults suit a page, tests and the benchmark shorten them. */
export interface HubOptions {
  /** A comment line this often keeps proxies and the browser from closing an idle connection (ms). */
  heartbeatMs?: number
  /** While a page listens, how often the store is asked whether another dsh process saved (ms). */
  pollMs?: number
  /** Events remembered for pages that reconnect; an older gap is answered with `reload`. */
  keep?: number
  /** Open connections at most; one more is refused with 503 (the page then refreshes on focus instead). */
  maxConnections?: number
}

const HEARTBEAT_MS = 15_000
const POLL_MS = 250
const KEEP = 512
const MAX_CONNECTIONS = 256
/** Events leave at most this often (a frame at 60 Hz): later saves of a burst share the streams' next write. */
const FLUSH_MS = 16
/** The browser waits this long before reconnecting a dropped channel (the `retry:` field). */
const RETRY_MS = 1_000

/** The push channel over one store. */
export interface EventHub {
  /** Serve one `GET /__ap/events` (already through the fence): keeps `res` open until the page or the hub goes. */
  attach(req: IncomingMessage, res: ServerResponse, since: number | undefined): void
  /** Connections open now. */
  readonly connections: number
  /** End every connection and stop listening to the store. */
  close(): void
}

function frame(event: LiveEvent): string {
  return `id: ${event.revision}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`
}

/** The revision a page resumes from: `Last-Event-ID` (the browser's own reconnect) wins over `?since=`. */
export function resumeFrom(req: IncomingMessage, url: URL): number | undefined {
  const raw = req.headers['last-event-id'] ?? url.searchParams.get('since') ?? undefined
  const text = Array.isArray(raw) ? raw[0] : raw
  if (text === undefined || !/^\d{1,15}$/.test(text.trim())) return undefined
  return Number(text.trim())
}

export function createEventHub(store: ProfileStore, options: HubOptions = {}): EventHub {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
  const pollMs = options.pollMs ?? POLL_MS
  const keep = options.keep ?? KEEP
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS
  /** Each open connection with the revision of the last event it was sent. */
  const open = new Map<ServerResponse, number>()
  /** Recent events, oldest first. */
  const recent: Array<{ revision: number; text: string }> = []
  let seen: State = store.state
  let revision = store.revision
  /** The oldest revision a page can resume from without a gap. */
  let floor = revision
  let heartbeat: NodeJS.Timeout | undefined
  let poll: NodeJS.Timeout | undefined

  const write = (res: ServerResponse, text: string | Buffer): void => {
    if (!res.destroyed && !res.writableEnded) res.write(text)
  }
  /**
   * Events not sent yet. They leave after the current task, so the command that made them answers first, and at most
   * once per FLUSH_MS, so a burst of saves costs each stream one write instead of one per save.
   */
  const outbox: Array<{ revision: number; bytes: Buffer }> = []
  let flushing = false
  let flushedAt = 0
  const flush = (): void => {
    flushing = false
    flushedAt = Date.now()
    const events = outbox.splice(0)
    if (events.length === 0) return
    const all = Buffer.concat(events.map((e) => e.bytes))
    const newest = events.at(-1)!.revision
    for (const [res, sent] of open) {
      if (sent >= newest) continue
      // A page that connected meanwhile was sent the older ones already, in its catch-up.
      const due =
        sent < events[0]!.revision ? all : Buffer.concat(events.filter((e) => e.revision > sent).map((e) => e.bytes))
      open.set(res, newest)
      write(res, due)
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
    const text = frame({ kind: 'change', revision, change })
    recent.push({ revision, text })
    if (recent.length > keep) floor = recent.shift()!.revision
    // Encoded once for every stream it goes to.
    outbox.push({ revision, bytes: Buffer.from(text) })
    schedule()
  })

  const timers = (): void => {
    if (open.size > 0 && heartbeat === undefined) {
      heartbeat = setInterval(() => {
        for (const res of open.keys()) write(res, ': ping\n\n')
      }, heartbeatMs)
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

  return {
    attach(req, res, since) {
      if (open.size >= maxConnections) {
        res.writeHead(503, {
          'Content-Type': 'text/plain; charset=utf-8',
          'Retry-After': '10',
          'Cache-Control': 'no-store',
        })
        res.end('too many open event streams')
        return
      }
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        // no-transform: a compressing proxy would hold events back to fill its buffer.
        'Cache-Control': 'no-store, no-transform',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
        Connection: 'keep-alive',
      })
      if (req.method === 'HEAD') {
        res.end()
        return
      }
      // The first open (no id yet) needs no catch-up; a known id is resumed, an unknown or future one reloads.
      let first = `retry: ${RETRY_MS}\n\n`
      const now = store.revision
      if (since !== undefined && since !== now) {
        if (since < floor || since > now) first += frame({ kind: 'reload', revision: now })
        else for (const e of recent) if (e.revision > since) first += e.text
      }
      res.write(first)
      const last = recent.at(-1)?.revision ?? revision
      req.socket.setNoDelay(true)
      req.socket.setKeepAlive(true)
      open.set(res, since === undefined ? last : Math.max(since, last))
      timers()
      res.once('close', () => {
        open.delete(res)
        timers()
      })
    },
    get connections() {
      return open.size
    },
    close() {
      unsubscribe()
      for (const res of open.keys()) res.end()
      open.clear()
      timers()
    },
  }
}
