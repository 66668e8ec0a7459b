/**
 * The refusals of the push channel's upgrade (events.ts): whether a request is a WebSocket opening handshake this
 * server takes, an HTTP refusal written on the upgrade's raw socket (the routes' JSON error shape, which `ws` has no
 * public way to send), and the close codes the hub uses. It owns nothing of an open connection: the handshake's answer,
 * the frames and the closing handshake are the `ws` package's.
 *
 * Why a WebSocket: a browser gives one host six HTTP/1.1 connections, shared by every tab, and a stream held over
 * HTTP takes one of them for the page's life; a WebSocket is not counted against them, as the host's own live
 * channels are not.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

/** Close codes the hub sends (RFC 6455 §7.4.1). */
export const CLOSE = {
  /** The hub is shutting down. */
  goingAway: 1001,
  /** The page sent a data frame or a malformed one. */
  protocol: 1002,
  /** The page stopped reading: what waited for it passed the bound, or it missed a heartbeat. */
  policy: 1008,
  /** Too many connections already. */
  tryAgain: 1013,
} as const

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Why `req` is not a WebSocket opening handshake this server takes (a sentence), or null when it is. The key is 16
 * bytes in base64, always 24 characters, so the check is a fixed-length test.
 */
export function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'a WebSocket opens with GET'
  if (header(req, 'upgrade')?.toLowerCase() !== 'websocket') return 'the Upgrade header must be "websocket"'
  if (header(req, 'sec-websocket-version') !== '13') return 'Sec-WebSocket-Version must be 13'
  const key = header(req, 'sec-websocket-key')
  if (key === undefined || !/^[A-Za-z0-9+/]{22}==$/.test(key)) return 'Sec-WebSocket-Key must be 16 bytes in base64'
  return null
}

/** Refuse an upgrade with an HTTP status and a JSON body (the routes' error shape), then close the socket. */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.from(body)
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${bytes.length}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n${extra}\r\n`,
  )
  socket.end(bytes)
}
