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
    req.on('upgrade', (_res, socket, head) => {
      const events: LiveEvent[] = []
      const waiters = new Set<() => void>()
      let pings = 0
      let closeCode: number | undefined
      let pending = Buffer.alloc(0)
      const read = (chunk: Buffer): void => {
        pending = Buffer.concat([pending, chunk])
        for (;;) {
          if (pending.length < 2) break
          const opcode = pending[0]! & 0x0f
          let length = pending[1]! & 0x7f
          let at = 2
          if (length === 126) {
            if (pending.length < 4) break
            length = pending.readUInt16BE(2)
            at = 4
          } else if (length === 127) {
            if (pending.length < 10) break
            length = Number(pending.readBigUInt64BE(2))
            at = 10
          }
          if (pending.length < at + length) break
          const payload = pending.subarray(at, at + length)
          pending = pending.subarray(at + length)
          if (opcode === 0x1) events.push(JSON.parse(payload.toString('utf8')) as LiveEvent)
          else if (opcode === 0x9) {
            pings++
            socket.write(masked(0xa, payload))
          } else if (opcode === 0x8) closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : undefined
        }
        for (const w of [...waiters]) w()
      }
      // A page that hangs from the start reads not even the first frames.
      if (!reading) socket.pause()
      socket.on('data', read)
      socket.on('error', () => undefined)
      const ended = new Promise<number | undefined>((done) => socket.once('close', () => done(closeCode)))
      if (head.length > 0) read(head)
      resolve({
        status: 101,
        socket,
        events: () => events,
        pings: () => pings,
        until(test, ms = 3_000) {
          return new Promise((ok, fail) => {
            const check = (): void => {
              if (!test()) return
              waiters.delete(check)
              clearTimeout(timer)
              ok()
            }
            const timer = setTimeout(() => {
              waiters.delete(check)
              fail(
                new Error(
                  `the channel did not show it; got ${events.length} events, the last ${events.at(-1)?.revision}`,
                ),
              )
            }, ms)
            waiters.add(check)
            check()
          })
        },
        pause: () => socket.pause(),
        ended,
        close() {
          if (!socket.destroyed) socket.end(masked(0x8, Buffer.from([0x03, 0xe8])))
        },
      })
    })
    req.end()
  })
}

/** Narrow an `openChannel` result to an open channel (throws with the refusal otherwise). */
export function opened(result: Channel | Refused): Channel {
  if (result.status !== 101) throw new Error(`the upgrade was refused: ${result.status} ${(result as Refused).body}`)
  return result as Channel
}
