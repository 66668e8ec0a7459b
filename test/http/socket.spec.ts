import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Duplex } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { acceptHandshake, closeFrame, frameReader, handshakeProblem, textFrame } from '../../lib/http/socket.ts'

/** A frame as a browser sends it: final, masked, with `payload`. */
function fromPage(opcode: number, payload: Buffer, { masked = true, fin = true } = {}): Buffer {
  const mask = randomBytes(4)
  const body = masked ? Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!)) : payload
  return Buffer.concat([
    Buffer.from([(fin ? 0x80 : 0) | opcode, (masked ? 0x80 : 0) | payload.length]),
    masked ? mask : Buffer.alloc(0),
    body,
  ])
}

function upgradeRequest(headers: Record<string, string>, method = 'GET'): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage
}

describe('the WebSocket downlink wire format', () => {
  it('answers the handshake with the accept key of RFC 6455 and refuses a malformed one by name', () => {
    const good = {
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    }
    expect(handshakeProblem(upgradeRequest(good))).toBeNull()
    let written = ''
    const socket = new Duplex({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString()
        done()
      },
      read() {},
    })
    acceptHandshake(upgradeRequest(good), socket)
    expect(written).toMatch(/^HTTP\/1\.1 101 /)
    // The example of RFC 6455 §1.3.
    expect(written).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n')
    expect(handshakeProblem(upgradeRequest({ ...good, 'sec-websocket-key': 'x'.repeat(5_000) }))).toMatch(/Key/)
    expect(handshakeProblem(upgradeRequest({ ...good, 'sec-websocket-version': '8' }))).toMatch(/Version/)
    expect(handshakeProblem(upgradeRequest({ ...good, upgrade: 'h2c' }))).toMatch(/Upgrade/)
    expect(handshakeProblem(upgradeRequest(good, 'POST'))).toMatch(/GET/)
  })

  it('frames text of every length class the way a browser reads it', () => {
    for (const size of [0, 125, 126, 65_535, 65_536]) {
      const frame = textFrame('x'.repeat(size))
      expect(frame[0]).toBe(0x81)
      const declared =
        frame[1]! < 126 ? frame[1] : frame[1] === 126 ? frame.readUInt16BE(2) : Number(frame.readBigUInt64BE(2))
      expect(declared).toBe(size)
      expect(frame.length - size).toBe(size < 126 ? 2 : size < 65_536 ? 4 : 10)
    }
    expect([...closeFrame(1001)]).toEqual([0x88, 2, 0x03, 0xe9])
  })

  it('reads the page’s control frames across chunk boundaries, and calls anything else a protocol error', () => {
    const read = frameReader()
    const both = Buffer.concat([fromPage(0xa, Buffer.alloc(0)), fromPage(0x9, Buffer.from('hi'))])
    expect(read(both.subarray(0, 3))).toEqual([])
    expect(read(both.subarray(3))).toEqual([{ kind: 'pong' }, { kind: 'ping', payload: Buffer.from('hi') }])
    expect(read(fromPage(0x8, Buffer.from([0x03, 0xe8])))).toEqual([{ kind: 'close' }])
    // A page talks over the routes: a text frame, an unmasked frame, a fragment or an oversized control frame is bad.
    for (const frame of [
      fromPage(0x1, Buffer.from('{}')),
      fromPage(0xa, Buffer.alloc(0), { masked: false }),
      fromPage(0x9, Buffer.alloc(0), { fin: false }),
      Buffer.from([0x89, 0x80 | 126, 0, 200]),
    ]) {
      const fresh = frameReader()
      expect(fresh(frame)).toEqual([{ kind: 'bad' }])
      // After that it reads nothing more.
      expect(fresh(fromPage(0xa, Buffer.alloc(0)))).toEqual([])
    }
  })
})
