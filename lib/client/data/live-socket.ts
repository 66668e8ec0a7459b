/**
 * The leader page's end of the push channel: the WebSocket on `/__ap/events`, seen through the small part of the
 * EventSource interface that live-tabs.ts uses (named `change` and `reload` events, `open`, `onerror`, `readyState`),
 * and reconnecting as an EventSource does: after a drop it opens again from the newest revision it was handed, so the
 * host sends what was missed (or `reload`). A WebSocket rather than an EventSource because a browser gives one host
 * six HTTP/1.1 connections for all its tabs, and a stream held over HTTP takes one of them for the page's life; a
 * WebSocket is not counted against them.
 *
 * Owns the connection, its retries and the revision it resumes from. It never sends anything to the host (the page
 * talks over the routes), never parses more than one event per message, and gives up — CLOSED, and the page says its
 * updates are off — after FAILURES attempts in a row that never opened (the host refusing it: the cap on channels,
 * the fence; or no host at all).
 */
import type { LiveEvent } from '../../shared/wire-state.ts'

/** The WebSocket constructor (the page's, or a test's). */
export type WebSocketLike = new (url: string) => {
  onopen: ((e: Event) => void) | null
  onmessage: ((e: MessageEvent) => void) | null
  onclose: ((e: CloseEvent) => void) | null
  onerror: ((e: Event) => void) | null
  close(code?: number): void
}

/** What live-tabs.ts opens: the EventSource-shaped view of the channel. */
export type SourceLike = new (url: string) => {
  addEventListener(type: string, listener: (e: Event) => void): void
  close(): void
  readonly readyState: number
  onerror: ((e: Event) => void) | null
}

/** The first retry waits this long; each failed attempt in a row doubles it (ms). */
const RETRY_MS = 1_000
/** Attempts in a row that never opened before the channel is given up. */
const FAILURES = 3
/** A message longer than this is not an event of the channel (the largest names 200 profiles twice). */
const MESSAGE_MAX = 256 * 1024

const CONNECTING = 0
const OPEN = 1
const CLOSED = 2

/** An EventSource-shaped class over `WS`, resolving relative URLs against `base` (the page's address). */
export function socketSource(
  WS: WebSocketLike,
  base: string,
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
): SourceLike {
  return class SocketSource {
    readyState = CONNECTING
    onerror: ((e: Event) => void) | null = null
    readonly #listeners = new Map<string, Array<(e: Event) => void>>()
    readonly #url: URL
    #since: string | null
    #socket: InstanceType<WebSocketLike> | undefined
    #failures = 0
    #retry: ReturnType<typeof setTimeout> | undefined

    constructor(url: string) {
      this.#url = new URL(url, base)
      this.#url.protocol = this.#url.protocol === 'https:' ? 'wss:' : 'ws:'
      this.#since = this.#url.searchParams.get('since')
      this.#connect()
    }

    addEventListener(type: string, listener: (e: Event) => void): void {
      this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener])
    }

    close(): void {
      this.readyState = CLOSED
      timers.clearTimeout(this.#retry)
      this.#socket?.close(1000)
      this.#socket = undefined
    }

    #dispatch(event: Event): void {
      for (const listener of this.#listeners.get(event.type) ?? []) listener(event)
    }

    #connect(): void {
      const url = new URL(this.#url)
      if (this.#since === null) url.searchParams.delete('since')
      else url.searchParams.set('since', this.#since)
      const socket = new WS(url.href)
      this.#socket = socket
      let opened = false
      socket.onopen = () => {
        if (this.#socket !== socket) return
        opened = true
        this.#failures = 0
        this.readyState = OPEN
        this.#dispatch(new Event('open'))
      }
      socket.onmessage = (e) => {
        if (this.#socket !== socket || typeof e.data !== 'string' || e.data.length > MESSAGE_MAX) return
        let event: LiveEvent
        try {
          event = JSON.parse(e.data) as LiveEvent
        } catch {
          return
        }
        if (typeof event?.revision !== 'number') return
        if (event.kind !== 'change' && event.kind !== 'reload' && event.kind !== 'meta') return
        // A `meta` event saves nothing: resuming from its revision could pass over a change not handed on yet.
        if (event.kind !== 'meta') this.#since = String(event.revision)
        this.#dispatch(new MessageEvent(event.kind, { data: e.data }))
      }
      // A refused handshake fires `error` (and, in browsers, `close` after it): either one ends this attempt, once.
      const ended = (): void => {
        if (this.#socket !== socket || this.readyState === CLOSED) return
        this.#socket = undefined
        socket.close()
        if (!opened) this.#failures++
        this.readyState = this.#failures >= FAILURES ? CLOSED : CONNECTING
        this.onerror?.(new Event('error'))
        if (this.readyState === CLOSED) return
        this.#retry = timers.setTimeout(() => this.#connect(), RETRY_MS * 2 ** Math.max(0, this.#failures - 1))
      }
      socket.onclose = ended
      socket.onerror = ended
    }
  }
}
