/**
 * The server half of a one-way WebSocket (RFC 6455), the carrier of the push channel (events.ts): the opening
 * handshake, the bytes of the frames the server sends, and a bounded reader of what a browser may send back on a
 * downlink (close, ping, pong). It owns only the wire format; who gets which frame, and when a connection is dropped,
 * is the hub's (events.ts). It never parses a data frame from the page: the page talks to the plugin over the routes,
 * so a text or binary frame is a protocol error that closes the connection.
 *
 * Why a WebSocket: a browser gives one host six HTTP/1.1 connections, shared by every tab, and a stream held over
 * HTTP takes one of them for the page's life; a WebSocket is not counted against them, as the host's own live
 * channels are not. Why no library: the host's `ws` is a transitive package the plugin cannot declare types for
 * without a second install, and a downlink needs only this much; a frame made here once is the very Buffer written
 * to every connection.
 */
import { createHash } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

/** The GUID RFC 6455 §1.3 appends to the client's key before hashing it into the accept header. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

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

/** Answer the handshake: the socket is a WebSocket from here on. */
export function acceptHandshake(req: IncomingMessage, socket: Duplex): void {
  const accept = createHash('sha1')
    .update(header(req, 'sec-websocket-key')! + HANDSHAKE_GUID)
    .digest('base64')
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  )
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

/** The header of an unmasked, final frame of `opcode` carrying `length` bytes. */
function frameHeader(opcode: number, length: number): Buffer {
  if (length < 126) return Buffer.from([0x80 | opcode, length])
  if (length < 65_536) {
    const head = Buffer.alloc(4)
    head[0] = 0x80 | opcode
    head[1] = 126
    head.writeUInt16BE(length, 2)
    return head
  }
  const head = Buffer.alloc(10)
  head[0] = 0x80 | opcode
  head[1] = 127
  head.writeBigUInt64BE(BigInt(length), 2)
  return head
}

/** One whole text frame (header and UTF-8 payload in one Buffer), made once and written as is to every connection. */
export function textFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  return Buffer.concat([frameHeader(0x1, payload.length), payload])
}

/** A ping with no payload: the heartbeat. A browser answers it with a pong by itself while it reads the connection. */
export const PING = frameHeader(0x9, 0)

/** A close frame with `code`. */
export function closeFrame(code: number): Buffer {
  const body = Buffer.alloc(2)
  body.writeUInt16BE(code, 0)
  return Buffer.concat([frameHeader(0x8, 2), body])
}

/** What the page's frames asked for, in order. */
export type Incoming = { kind: 'pong' } | { kind: 'ping'; payload: Buffer } | { kind: 'close' } | { kind: 'bad' }

/**
 * A reader of the frames a page sends on a downlink. Only control frames are taken (a payload of at most 125 bytes, RFC
 * 6455 §5.5), so it never keeps more than one such frame's 131 bytes between chunks; anything else is `bad`, after which it reads nothing more.
 */
export function frameReader(): (chunk: Buffer) => Incoming[] {
  let pending: Buffer = Buffer.alloc(0)
  let broken = false
  return (chunk) => {
    if (broken) return []
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    const out: Incoming[] = []
    while (pending.length >= 2) {
      const fin = (pending[0]! & 0x80) !== 0
      const opcode = pending[0]! & 0x0f
      const masked = (pending[1]! & 0x80) !== 0
      const length = pending[1]! & 0x7f
      // A client's frames are masked; a downlink takes final control frames only (close 8, ping 9, pong 10).
      if (!fin || !masked || opcode < 0x8 || opcode > 0xa || length > 125 || (pending[0]! & 0x70) !== 0) {
        broken = true
        out.push({ kind: 'bad' })
        return out
      }
      const size = 6 + length
      if (pending.length < size) break
      const mask = pending.subarray(2, 6)
      const payload = Buffer.alloc(length)
      for (let i = 0; i < length; i++) payload[i] = pending[6 + i]! ^ mask[i % 4]!
      pending = pending.subarray(size)
      out.push(opcode === 0x8 ? { kind: 'close' } : opcode === 0x9 ? { kind: 'ping', payload } : { kind: 'pong' })
    }
    // Keep the few unread bytes only, not the chunk they arrived in.
    if (pending.length > 0) pending = Buffer.from(pending)
    return out
  }
}

/** A pong answering a ping's payload (at most 125 bytes: the reader takes no longer control frame). */
export function pongFrame(payload: Buffer): Buffer {
  return Buffer.concat([frameHeader(0xa, payload.length), payload])
}
