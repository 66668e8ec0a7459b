/**
 * Calling a route of the wire table (lib/shared/wire-table.ts) by its key: the URL from the entry's path, the path
 * segment and the query, the method from the entry, the body as JSON (or a raw body's bytes as its type), and the
 * reply typed by the entry; a refusal becomes an {@link ApiError} carrying the host's code, field, limit and rule.
 * The one place the page turns a reply's
 * text into its type (the host built it from the same table). It never keeps state and never renders.
 */
import { API_BASE } from '../../shared/wire-inputs.ts'
import { WIRE, type RouteEntry, type RouteInput, type RouteKey, type RouteReply } from '../../shared/wire-table.ts'
import type { BrowserOp, ReplyOf } from '../../shared/commands.ts'

/** A refused or failed request, carrying the host's error code and, for bad input, the field and its limit. */
export class ApiError extends Error {
  readonly code: string
  readonly status: number
  readonly field?: string
  readonly limit?: number
  /** The rule broken, when the host names one (`name.bidi`): the page words it in the user's language. */
  readonly rule?: string
  /** What the rule's words name (a team library's name). */
  values?: readonly string[]
  constructor(message: string, code: string, status: number, field?: string, limit?: number, rule?: string) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.status = status
    if (field !== undefined) this.field = field
    if (limit !== undefined) this.limit = limit
    if (rule !== undefined) this.rule = rule
  }
}

/** What a caller gives the command route: the command, and the query that asks its reply for more. */
type CommandInput<O extends BrowserOp> = { body: { op: O } } & Pick<RouteInput<'command'>, 'query'>

/** What a caller gives route `K` (nothing for a route that takes nothing). */
type InputParam<K extends RouteKey> = {} extends RouteInput<K> ? [input?: RouteInput<K>] : [input: RouteInput<K>]

/**
 * Calls routes by key against one base (`/__ap` on the page's origin unless given). A command's reply is typed by the
 * op it sends (the host answers each op with its own fields, commands.ts `ReplyOf`); every other route's by its entry.
 */
export interface Caller {
  <O extends BrowserOp>(key: 'command', input: CommandInput<O>): Promise<ReplyOf<O>>
  <K extends RouteKey>(key: K, ...input: InputParam<K>): Promise<RouteReply<K>>
}

/** The URL of route `key` under `base` with its path segment and query (a download's `href`, or a request's). */
export function urlOf<K extends RouteKey>(base: string, key: K, ...[input]: InputParam<K>): string {
  return urlAt(base, WIRE[key], input)
}

/** The URL of the route of `entry` under `base` with the path segment and query `input` gives. */
function urlAt(base: string, entry: RouteEntry, input: unknown): string {
  const given = (input ?? {}) as { param?: string; query?: Record<string, string | readonly string[] | undefined> }
  // A flag given empty is sent bare (`?head`), as the host reads only whether it is there.
  const parts: string[] = []
  for (const [name, value] of Object.entries(given.query ?? {})) {
    if (value === undefined) continue
    for (const one of typeof value === 'string' ? [value] : value)
      parts.push(one === '' ? encodeURIComponent(name) : new URLSearchParams([[name, one]]).toString())
  }
  const search = parts.join('&')
  const path = entry.path.slice(API_BASE.length) + (given.param === undefined ? '' : encodeURIComponent(given.param))
  return `${base}${path}${search === '' ? '' : `?${search}`}`
}

/** The error of a refused reply: the host's `{error: {code, message, field?, limit?, rule?, values?}}`. */
function refusalOf(res: Response, parsed: unknown): ApiError {
  const e = (parsed as { error?: Record<string, unknown> } | undefined)?.error
  const message = typeof e?.message === 'string' ? e.message : `HTTP ${res.status} ${res.statusText}`.trim()
  const failure = new ApiError(
    message,
    typeof e?.code === 'string' ? e.code : 'http',
    res.status,
    typeof e?.field === 'string' ? e.field : undefined,
    typeof e?.limit === 'number' ? e.limit : undefined,
    typeof e?.rule === 'string' ? e.rule : undefined,
  )
  if (Array.isArray(e?.values)) failure.values = e.values.filter((v): v is string => typeof v === 'string')
  return failure
}

/** The headers and body of a request to `entry`: none for a GET, a raw body's bytes as its type, else JSON. */
function sent(entry: RouteEntry, input: unknown): Pick<RequestInit, 'headers' | 'body'> {
  if (entry.method === 'GET') return { headers: { accept: 'application/json' } }
  const given = input as { body?: unknown; raw?: { bytes: Blob | ArrayBuffer; type: string } } | undefined
  if (entry.raw !== undefined && given?.raw !== undefined)
    return { headers: { accept: 'application/json', 'content-type': given.raw.type }, body: given.raw.bytes }
  return {
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(given?.body ?? {}),
  }
}

/**
 * A caller of the routes under `base` through `fetchImpl` (the page's `fetch`, looked up per call, unless given). Its
 * overloads are the types {@link Caller} names: the reply's text is the host's, built from the same table entry
 * (lib/http/routes.ts registers one handler per key), so this is where the page takes the reply as its type.
 */
export function callerOf(base: string, fetchImpl?: typeof fetch): Caller {
  function call<O extends BrowserOp>(key: 'command', input: CommandInput<O>): Promise<ReplyOf<O>>
  function call<K extends RouteKey>(key: K, ...input: InputParam<K>): Promise<RouteReply<K>>
  async function call(key: RouteKey, input?: unknown): Promise<unknown> {
    const entry = WIRE[key]
    const doFetch = fetchImpl ?? globalThis.fetch
    let res: Response
    try {
      res = await doFetch(urlAt(base, entry, input), {
        method: entry.method,
        credentials: 'same-origin',
        ...sent(entry, input),
      })
    } catch (error) {
      throw new ApiError(error instanceof Error ? error.message : String(error), 'network', 0)
    }
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (!res.ok) throw refusalOf(res, parsed)
    if (parsed === undefined)
      throw new ApiError(`HTTP ${res.status}: the answer is not JSON`, 'bad-response', res.status)
    return parsed
  }
  return call
}
