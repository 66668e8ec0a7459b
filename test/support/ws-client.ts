/**
 * A WebSocket client of the push channel for specs and benchmarks, over a plain `node:http` upgrade request so that a
 * spec chooses every handshake header (Origin, Host, Sec-Fetch-Site) and can stop reading the socket, as a frozen or
 * hung page does. Reads the server's frames (text, ping, close), answers pings while it reads, and masks what it
 * sends, as RFC 6455 requires of a client.
 */
import { randomBytes } from 'node:crypto'
import { request, type IncomingHttpHeaders } from 'node:http'
import type { Socket } from 'node:net'
import type { LiveEvent } from '../../lib/shared/wire-state.ts'

/** Where to connect: a TCP port on loopback, or a Unix socket (its kernel buffers are small and fixed). */
export type Target = { port: number } | { socketPath: string; port: number }

/** An upgrade the server refused: its status and body. */
export interface Refused {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** An open channel. */
export interface Channel {
  status: 101
  socket: Socket
  /** The events received so far. */
  events(): LiveEvent[]
  /** Pings received so far. */
  pings(): number
  /** Resolve once `test` holds (rejects after `ms`, with what was received). */
  until(test: () => boolean, ms?: number): Promise<void>
  /** Stop reading the socket (and so answering pings), as a page that hangs. */
  pause(): void
  /** Resolves when the socket closed, with the close code the server sent (undefined when it sent none). */
  ended: Promise<number | undefined>
  close(): void
}

function masked(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4)
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, body])
}

/** One frame at the start of `buffer` and its end, or undefined while it has not all arrived. */
function frameAt(buffer: Buffer): { opcode: number; payload: Buffer; end: number } | undefined {
  if (buffer.length < 2) return undefined
  const opcode = buffer[0]! & 0x0f
  let length = buffer[1]! & 0x7f
  let at = 2
  if (length === 126) {
    if (buffer.length < 4) return undefined
    length = buffer.readUInt16BE(2)
    at = 4
  } else if (length === 127) {
    if (buffer.length < 10) return undefined
    length = Number(buffer.readBigUInt64BE(2))
    at = 10
  }
  if (buffer.length < at + length) return undefined
  return { opcode, payload: buffer.subarray(at, at + length), end: at + length }
}

/** An open channel over an upgraded socket: reads its frames, answers its pings, keeps its events. */
class ClientChannel implements Channel {
  readonly status = 101
  readonly ended: Promise<number | undefined>
  readonly #events: LiveEvent[] = []
  readonly #waiters = new Set<() => void>()
  #pings = 0
  #closeCode: number | undefined
  #pending = Buffer.alloc(0)

  constructor(
    readonly socket: Socket,
    head: Buffer,
    reading: boolean,
  ) {
    // A page that hangs from the start reads not even the first frames.
    if (!reading) socket.pause()
    socket.on('data', (chunk: Buffer) => this.#read(chunk))
    socket.on('error', () => undefined)
    this.ended = new Promise((done) => socket.once('close', () => done(this.#closeCode)))
    if (head.length > 0) this.#read(head)
  }

  events(): LiveEvent[] {
    return this.#events
  }

  pings(): number {
    return this.#pings
  }

  #read(chunk: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, chunk])
    for (let frame = frameAt(this.#pending); frame !== undefined; frame = frameAt(this.#pending)) {
      this.#pending = this.#pending.subarray(frame.end)
      this.#onFrame(frame.opcode, frame.payload)
    }
    for (const w of [...this.#waiters]) w()
  }

  #onFrame(opcode: number, payload: Buffer): void {
    if (opcode === 0x1) this.#events.push(JSON.parse(payload.toString('utf8')) as LiveEvent)
    else if (opcode === 0x9) {
      this.#pings++
      this.socket.write(masked(0xa, payload))
    } else if (opcode === 0x8) this.#closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : undefined
  }

  until(test: () => boolean, ms = 3_000): Promise<void> {
    return new Promise((ok, fail) => {
      const check = (): void => {
        if (!test()) return
        this.#waiters.delete(check)
        clearTimeout(timer)
        ok()
      }
      const timer = setTimeout(() => {
        this.#waiters.delete(check)
        const events = this.#events
        fail(new Error(`the channel did not show it; got ${events.length} events, the last ${events.at(-1)?.revision}`))
      }, ms)
      this.#waiters.add(check)
      check()
    })
  }

  pause(): void {
    this.socket.pause()
  }

  close(): void {
    if (!this.socket.destroyed) this.socket.end(masked(0x8, Buffer.from([0x03, 0xe8])))
  }
}

/**
 * Open `/__ap/events` (or `path`) with `headers` over the handshake; resolves with the channel or the refusal. With
 * `reading: false` the socket is never read (until `socket.resume()`).
 */
export function openChannel(
  target: Target,
  path = '/__ap/events',
  headers: Record<string, string> = {},
  { reading = true }: { reading?: boolean } = {},
): Promise<Channel | Refused> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      ...target,
      path,
      agent: false,
      headers: {
        host: `127.0.0.1:${target.port}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('upgrade', (_res, socket: Socket, head: Buffer) => resolve(new ClientChannel(socket, head, reading)))
    req.end()
  })
}

/** Narrow an `openChannel` result to an open channel (throws with the refusal otherwise). */
export function opened(result: Channel | Refused): Channel {
  if (result.status !== 101) throw new Error(`the upgrade was refused: ${result.status} ${(result as Refused).body}`)
  return result as Channel
}
