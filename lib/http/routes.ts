/**
 * The plugin's HTTP API, `/__ap/*`: the browser's only door to the store. Owns routing by the wire table
 * (lib/shared/wire-table.ts: a handler per key, the typecheck refuses a missing one), parsing each request by its
 * entry's schema before its handler runs, and the mapping of every store failure onto the one error shape. The
 * handlers live by area (routes-state.ts, routes-command.ts, routes-profiles.ts, routes-memory.ts, routes-sync.ts,
 * routes-learn.ts), the fence in fence.ts, the body caps in caps.ts, the wire form of state in wire.ts, the push
 * channel in events.ts and writing a reply onto the socket in reply.ts. It never answers a 500 with a stack.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-host-webserver'
import { API_BASE, queryOf } from '../shared/wire-inputs.ts'
import {
  REFUSAL_STATUS,
  WIRE,
  type RawBody,
  type RouteEntry,
  type RouteKey,
  type RouteParsed,
} from '../shared/wire-table.ts'
import { OwnImports } from '../store/import-batches.ts'
import { dataDirForms } from '../store/db/layout.ts'
import { withoutDataDir } from '../shared/errors.ts'
import { parse, record } from '../validate/core.ts'
import {
  checkJsonContentType,
  checkMethod,
  checkRawContentType,
  checkRequestOrigin,
  readJsonBody,
  readRawBody,
} from './fence.ts'
import { ImportPool } from './import-pool.ts'
import { describe, refusalReply, send, type Reply } from './reply.ts'
import { createEventHub, type EventHub } from './events.ts'
import { createUpgrade, type UpgradeHandler } from './upgrade.ts'
import type { BodyCaps } from './caps.ts'
import type { Handler, Handlers, RouteDeps } from './route-kit.ts'
import { COMMAND_ROUTE } from './routes-command.ts'
import { MEMORY_ROUTES } from './routes-memory.ts'
import { PROFILE_ROUTES } from './routes-profiles.ts'
import { STATE_ROUTES } from './routes-state.ts'
import { SYNC_ROUTES } from './routes-sync.ts'
import { LEARN_ROUTES } from './routes-learn.ts'
import { LearnExports } from '../learn/run/exports.ts'
import { StoreError } from '../shared/errors.ts'

/** Every route lives under the wire's base path (`API_BASE`), registered on the host's web server as one prefix route. */
const ROUTE_PREFIX = API_BASE

/** The handler of every route of the wire table. */
const HANDLERS: Handlers = {
  command: COMMAND_ROUTE,
  ...STATE_ROUTES,
  ...PROFILE_ROUTES,
  ...MEMORY_ROUTES,
  ...SYNC_ROUTES,
  ...LEARN_ROUTES,
}

/** A node:http request handler that never rejects. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** The table's entry of route `K`. */
type Entry<K extends RouteKey> = (typeof WIRE)[K] & RouteEntry

/** What the router hands a route besides the deps: the request, its path segment, its body as read, and the parts. */
interface Incoming extends Parts {
  url: URL
  req: IncomingMessage
  param: string
  raw: unknown
}

/** One route as the router runs it: its table entry, its body caps, and its handler bound to its own key's types. */
interface Served {
  entry: RouteEntry
  caps: BodyCaps | undefined
  /** Parse the request by the route's schemas (throws the refusal of the first broken rule), then run its handler. */
  run: (deps: RouteDeps, request: Incoming) => Reply | Promise<Reply>
}

/**
 * Route `key` bound to its handler: within this function the entry, the handler and the parsed input share the one
 * key, so the typecheck holds the handler's input to the entry's schemas (a route added to the table without a
 * handler, or a handler reading a field its schema does not give, fails the typecheck).
 */
function served<K extends RouteKey>(key: K): Served {
  const entry: Entry<K> = WIRE[key]
  const handler: Handler<K> = HANDLERS[key]
  return {
    entry,
    caps: handler.caps,
    run: (deps, { raw, ...request }) =>
      handler.run(deps, { ...request, ...parsed(deps, entry, handler, raw, request.url) }),
  }
}

/** The routes of each path (a path may take GET and POST), exact paths and those taking one segment apart. */
const EXACT = new Map<string, Served[]>()
const WITH_PARAM = new Map<string, Served[]>()
for (const key of Object.keys(WIRE).filter((k): k is RouteKey => Object.hasOwn(WIRE, k))) {
  const route = served(key)
  const paths = route.entry.param === undefined ? EXACT : WITH_PARAM
  paths.set(route.entry.path, [...(paths.get(route.entry.path) ?? []), route])
}

function match(pathname: string): { routes: Served[]; rawParam: string } | undefined {
  const exact = EXACT.get(pathname)
  if (exact !== undefined) return { routes: exact, rawParam: '' }
  for (const [prefix, routes] of WITH_PARAM) {
    const rest = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : undefined
    if (rest !== undefined && rest !== '' && !rest.includes('/')) return { routes, rawParam: rest }
  }
  return undefined
}

/** A store failure in the one error shape, its status by its code. */
function storeRefusal(deps: RouteDeps, error: StoreError): Reply {
  const status = REFUSAL_STATUS[error.code] ?? 500
  if (status >= 500) deps.log.error(`agent-profiles: routes: the store failed: ${error.message}`)
  return refusalReply({
    status,
    code: error.code,
    // The log keeps the path; a reply says "the data directory" (the page words a refusal from its code anyway).
    message: withoutDataDir(error.message, dataDirForms(deps.store.file), 'the data directory'),
    field: error.field,
    limit: error.limit,
    rule: error.rule,
    ...(error.values === undefined ? {} : { values: error.values }),
  })
}

/** Bodies from this size are parsed in the import worker; below it a parse takes under a millisecond or two. */
const LARGE_BODY = 256 * 1024

/**
 * What a request's handler is handed besides its parsed input: the import worker, the background import and the data
 * export last read to learn from.
 */
interface Parts {
  imports: ImportPool
  own: OwnImports
  learn: LearnExports
}

/** The body of a request to `route`, read within its caps; a refusal, or undefined when the client went away. */
async function readBody(
  route: Served,
  req: IncomingMessage,
  imports: ImportPool,
): Promise<{ body: unknown } | { refused: Reply } | undefined> {
  if (route.entry.raw !== undefined) return readRaw(route.entry.raw, req)
  if (route.caps === undefined) return { body: undefined }
  const wrongType = checkJsonContentType(req.headers)
  if (wrongType !== null) return { refused: refusalReply(wrongType) }
  const read = await readJsonBody(
    req,
    route.caps.bytes,
    { from: LARGE_BODY, parse: (bytes) => imports.parseJson(bytes) },
    route.caps.shape,
  )
  if ('gone' in read) return undefined
  if (!read.ok) return { refused: refusalReply(read.refusal) }
  return { body: read.value }
}

/** A raw body (the table's `raw`): its content type one of the entry's, its bytes within the entry's cap, unparsed. */
async function readRaw(
  raw: RawBody,
  req: IncomingMessage,
): Promise<{ body: unknown } | { refused: Reply } | undefined> {
  const wrongType = checkRawContentType(req.headers, raw.types)
  if (wrongType !== null) return { refused: refusalReply(wrongType) }
  const read = await readRawBody(req, raw.bytes)
  if ('gone' in read) return undefined
  if (!read.ok) return { refused: refusalReply(read.refusal) }
  return { body: read.value }
}

/**
 * The request's input parsed by its route's schemas, at the door: the query by the entry's query schema, the body by
 * the handler's own door (a command, by its op's schema) or else the entry's body schema (a JSON body must be an
 * object; a GET's and a raw body's are taken as read). Throws the refusal of the first broken rule, naming its field.
 */
function parsed<K extends RouteKey>(
  deps: RouteDeps,
  entry: Entry<K>,
  handler: Handler<K>,
  raw: unknown,
  url: URL,
): Omit<RouteParsed<K>, 'param'> {
  const query = parse<Entry<K>['query']>(entry.query, queryOf(url.searchParams), '', '')
  if (entry.method === 'POST' && handler.door !== undefined) return { query, body: handler.door(raw, deps) }
  const given = entry.method === 'POST' && entry.raw === undefined ? record(raw, 'body') : raw
  return { query, body: parse<Entry<K>['body']>(entry.body, given, '', '') }
}

async function serve(
  deps: RouteDeps,
  { imports, own, learn }: Parts,
  req: IncomingMessage,
): Promise<Reply | undefined> {
  let trusted: readonly string[] = []
  try {
    trusted = deps.trustedHosts()
  } catch (error) {
    deps.log.warn(`agent-profiles: routes: trustedHosts() failed, only loopback is trusted: ${describe(error)}`)
  }
  const fenced = checkRequestOrigin(req.headers, trusted)
  if (fenced !== null) return refusalReply(fenced)
  const url = new URL(req.url ?? '/', 'http://localhost')
  const found = match(url.pathname)
  if (found === undefined) {
    return refusalReply({
      status: 404,
      code: 'not-found',
      message: `no route ${JSON.stringify(url.pathname.slice(0, 120))}`,
      field: 'path',
    })
  }
  const { routes, rawParam } = found
  const wrongMethod = checkMethod(
    req.method,
    routes.map((r) => r.entry.method),
  )
  if (wrongMethod !== null) return refusalReply(wrongMethod)
  // HEAD is answered as GET (the fence allows it wherever GET is).
  const route = routes.find((r) => r.entry.method === (req.method === 'HEAD' ? 'GET' : req.method))!
  let param: string
  try {
    param = decodeURIComponent(rawParam)
  } catch {
    return refusalReply({ status: 400, code: 'invalid', message: 'the path has a malformed %-escape', field: 'path' })
  }
  const read = await readBody(route, req, imports)
  if (read === undefined) return undefined
  if ('refused' in read) return read.refused
  try {
    return await route.run(deps, { url, req, imports, own, learn, param, raw: read.body })
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    return storeRefusal(deps, error)
  }
}

/** The request handler of every `/__ap/*` route, usable on any node:http server, and its push channel. It never rejects. */
export function createHandler(
  deps: RouteDeps,
): RouteHandler & { events: EventHub; imports: ImportPool; own: OwnImports; upgrade: UpgradeHandler } {
  const events = deps.events ?? createEventHub(deps.store, deps.eventOptions)
  const imports = deps.imports ?? new ImportPool({ log: deps.log })
  const own = new OwnImports(deps.store, deps.log)
  const learn = new LearnExports()
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let reply: Reply | undefined
    try {
      reply = await serve(deps, { imports, own, learn }, req)
    } catch (error) {
      deps.log.error(`agent-profiles: routes: ${req.method} ${req.url} failed: ${describe(error)}`)
      reply = refusalReply({
        status: 500,
        code: 'internal',
        message: 'internal error in dsh-agent-profiles; the details are in the dsh log',
      })
    }
    if (reply === undefined) {
      res.destroy()
      return
    }
    try {
      send(req, res, reply)
    } catch (error) {
      deps.log.error(`agent-profiles: routes: writing the reply failed: ${describe(error)}`)
      res.destroy()
    }
  }
  return Object.assign(handler, { events, imports, own, upgrade: createUpgrade(events, deps.trustedHosts, deps.log) })
}

/**
 * Register the routes on the host's web server when there is one. The dependency is soft: the headless profile has
 * no web server, and a hard one would leave the whole plugin pending there.
 */
export function installRoutes(ctx: Context, deps: RouteDeps): void {
  ctx.inject(['webServer'], (web) => {
    // Made with the web server, so a process without one (headless) keeps no push channel.
    const handler = createHandler(deps)
    web.effect(() => () => handler.events.close(), 'agent-profiles:events')
    web.effect(
      () => () => {
        void handler.imports.close()
        void handler.own.close()
      },
      'agent-profiles:import worker',
    )
    web.effect(() => web.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler }), 'agent-profiles:routes')
    web.effect(
      () => web.webServer.registerUpgrade({ path: WIRE.events.path, handler: handler.upgrade }),
      'agent-profiles:events upgrade',
    )
  })
}
