import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { handshakeProblem } from '../../lib/http/socket.ts'

function upgradeRequest(headers: Record<string, string>, method = 'GET'): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage
}

describe('the push channel upgrade', () => {
  it('takes a well-formed WebSocket handshake and refuses a malformed one by name', () => {
    const good = {
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    }
    expect(handshakeProblem(upgradeRequest(good))).toBeNull()
    expect(handshakeProblem(upgradeRequest({ ...good, 'sec-websocket-key': 'x'.repeat(5_000) }))).toMatch(/Key/)
    expect(handshakeProblem(upgradeRequest({ ...good, 'sec-websocket-version': '8' }))).toMatch(/Version/)
    expect(handshakeProblem(upgradeRequest({ ...good, upgrade: 'h2c' }))).toMatch(/Upgrade/)
    expect(handshakeProblem(upgradeRequest(good, 'POST'))).toMatch(/GET/)
  })
})
