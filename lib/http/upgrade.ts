/**
 * The upgrade request of the push channel (`/__ap/events`): the same fence as every route (a loopback or trusted
 * Host, no cross-site marker, an Origin equal to the Host), then a well-formed WebSocket handshake, then the hub.
 * A browser sends the page's Origin with every WebSocket handshake and no CORS applies to one, so without this check
 * any site the user visits could listen to which profiles change. Owns only that order of checks; the handshake's
 * refusals are socket.ts's, the answer and the connection the hub's (events.ts, over the `ws` package).
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WIRE } from '../shared/wire-table.ts'
import type { Log } from '../shared/log.ts'
import { resumeFrom, type EventHub } from './events.ts'
import { checkRequestOrigin, type Refusal } from './fence.ts'
import { describe, refusalReply } from './reply.ts'
import { handshakeProblem, refuseUpgrade } from './socket.ts'

/** A node:http `upgrade` listener (the host's `registerUpgrade` handler). It never throws. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void

function refuse(socket: Duplex, refusal: Refusal): void {
  const reply = refusalReply(refusal)
  refuseUpgrade(socket, reply.status, String(reply.body), refusal.headers)
}

/** The upgrade listener of the push channel over `events`; `trustedHosts` is read per request, as the routes do. */
export function createUpgrade(events: EventHub, trustedHosts: () => readonly string[], log: Log): UpgradeHandler {
  return (req, socket, head) => {
    try {
      let trusted: readonly string[] = []
      try {
        trusted = trustedHosts()
      } catch (error) {
        log.warn(`agent-profiles: events: trustedHosts() failed, only loopback is trusted: ${describe(error)}`)
      }
      const fenced = checkRequestOrigin(req.headers, trusted)
      if (fenced !== null) return refuse(socket, fenced)
      const url = new URL(req.url ?? '/', 'http://localhost')
      if (url.pathname !== WIRE.events.path) {
        return refuse(socket, { status: 404, code: 'not-found', message: 'no such channel', field: 'path' })
      }
      const problem = handshakeProblem(req)
      if (problem !== null) return refuse(socket, { status: 400, code: 'invalid', message: problem, field: 'upgrade' })
      events.attach(req, socket, head, resumeFrom(url))
    } catch (error) {
      log.error(`agent-profiles: events: an upgrade failed: ${describe(error)}`)
      socket.destroy()
    }
  }
}
