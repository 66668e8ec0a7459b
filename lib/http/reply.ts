/**
 * Writing the routes' replies onto the socket: the reply shape, the one error shape `{error: {code, message, field?,
 * limit?}}` and how a reply's pieces leave (one corked write, nosniff, a refused body's connection closed). It never
 * decides what a route answers (routes.ts does) and never reads a request body (fence.ts does).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Refusal } from './fence.ts'

/** A successful reply: status, extra headers, and the body (JSON text, bytes, or bytes in pieces sent as they are). */
export interface Reply {
  status: number
  headers: Record<string, string>
  body?: string | Buffer | Buffer[]
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** A 200 JSON reply that no cache keeps. */
export function json(body: Reply['body'], headers: Record<string, string> = {}): Reply {
  return { status: 200, headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', ...headers }, body }
}

/** A caught failure for the log: its stack when it has one. */
export function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

/** The one error shape `{error: {code, message, field?, limit?, rule?, values?}}`. */
function errorBody(r: Refusal): string {
  const { code, message, field, limit, rule, values } = r
  return JSON.stringify({
    error: {
      code,
      message,
      ...(field === undefined ? {} : { field }),
      ...(limit === undefined ? {} : { limit }),
      ...(rule === undefined ? {} : { rule }),
      ...(values === undefined ? {} : { values }),
    },
  })
}

/**
 * Write `reply` and end the response. A request whose body was refused unread closes its connection after the reply
 * instead of draining the rest.
 */
export function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return
  const body =
    typeof reply.body === 'string' ? [Buffer.from(reply.body)] : Buffer.isBuffer(reply.body) ? [reply.body] : reply.body
  // A body left unread (refused before or midway) is not drained: the connection closes once the reply is out.
  const unread =
    !req.complete && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0)
  res.writeHead(reply.status, {
    'X-Content-Type-Options': 'nosniff',
    ...(body === undefined ? {} : { 'Content-Length': String(body.reduce((n, piece) => n + piece.length, 0)) }),
    ...(unread ? { Connection: 'close' } : {}),
    ...reply.headers,
  })
  if (unread) res.once('finish', () => setImmediate(() => req.socket.destroy()))
  // Corked (end() uncorks), the pieces leave in one write with the headers.
  res.cork()
  for (const piece of body ?? []) res.write(piece)
  res.end()
}

/** A refusal as a reply, in the one error shape. */
export function refusalReply(r: Refusal): Reply {
  return {
    status: r.status,
    headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', ...r.headers },
    body: errorBody(r),
  }
}
