/**
 * The request fence of `/__ap/*`: decides from a request's headers whether it may reach the store, and reads a JSON
 * body under a byte cap. The host's web server applies no origin policy to plugin routes, so this module
 * re-states the rules the host applies to `/api`: a loopback or trusted Host (DNS rebinding), no cross-site marker,
 * an Origin — or, lacking one, a Referer — equal to the Host, JSON-only POSTs (a raw body only of its route's types),
 * bounded bodies.
 * It never touches the store, never writes a response, and never buffers more than the cap of one body; a large body
 * is parsed by the parser the caller hands in (the import worker's), so a 48 MB body never holds the event loop.
 */

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { errorText } from '../shared/errors.ts'
import { BodyShape, type BodyShapeLimits, type ShapeExcess } from './body-shape.ts'
import { BodyBytes } from './body-bytes.ts'
import type { RefusalCode, RefusalRule } from '../shared/refusals.ts'

/** The `code` of a wire error (the one list is lib/shared/refusals.ts); the browser half words it by code, field and limit. */
type WireErrorCode = RefusalCode

/** A refused request: the HTTP status, the wire error, and headers the status requires (e.g. `Allow`). */
export interface Refusal {
  status: number
  code: WireErrorCode
  message: string
  field?: string
  limit?: number
  /** The rule broken, when the store names one (StoreError `rule`). */
  rule?: RefusalRule
  /** What the rule's words name (StoreError `values`). */
  values?: string[]
  headers?: Record<string, string>
}

/** Header values quoted in messages are cut so an error never echoes a huge header back. */
const QUOTE_MAX = 120

function quote(value: string): string {
  return JSON.stringify(value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX)}…` : value)
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined
}

function forbidden(message: string, field: string): Refusal {
  return { status: 403, code: 'forbidden', message, field }
}

/** Parse a Host-style authority through WHATWG URL rules (lowercased, default port dropped, IPv6 bracketed). */
function parseAuthority(authority: string): URL | undefined {
  // An authority must not smuggle a path, query, credentials or fragment: `evil.com/x` would otherwise parse.
  if (authority === '' || /[/?#@\\\s]/.test(authority)) return undefined
  try {
    return new URL(`http://${authority}`)
  } catch {
    return undefined
  }
}

/** True for `localhost`, `[::1]` and any IPv4 address in 127.0.0.0/8, given a WHATWG-normalized hostname. */
function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  const parts = hostname.split('.')
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)
}

/**
 * True when the normalized Host matches a trusted-hosts entry: an entry with a port names that exact authority,
 * a port-less entry names the host on any port (the host's own `trustedHosts` convention).
 */
function isTrustedHost(host: URL, trustedHosts: readonly string[]): boolean {
  return trustedHosts.some((entry) => {
    const url = parseAuthority(entry)
    if (url === undefined) return false
    const portless = !/:\d+$/.test(entry.replace(/^\[[^\]]*\]/, ''))
    return portless ? url.hostname === host.hostname : url.host === host.host
  })
}

/**
 * Decide from the headers alone whether a request may touch `/__ap/*`. Hard evidence only ever refuses:
 * a request carrying no browser markers at all (curl, a health probe) passes once its Host is ours.
 * @returns null when allowed, else the 403 refusal naming the header at fault.
 */
export function checkRequestOrigin(headers: IncomingHttpHeaders, trustedHosts: readonly string[]): Refusal | null {
  // The Host fence binds every request: a rebound page's requests carry the attacker's name here even though the
  // socket reaches us, and plain-HTTP image/navigation reads carry no Origin or Fetch-Metadata to go by.
  const rawHost = header(headers, 'host')
  if (rawHost === undefined) return forbidden('the Host header is missing', 'host')
  const host = parseAuthority(rawHost)
  if (host === undefined) return forbidden(`the Host header ${quote(rawHost)} is not a host[:port] authority`, 'host')
  if (!isLoopbackHostname(host.hostname) && !isTrustedHost(host, trustedHosts)) {
    return forbidden(`the Host ${quote(rawHost)} is neither a loopback address nor a trusted host`, 'host')
  }
  if (header(headers, 'sec-fetch-site')?.toLowerCase() === 'cross-site') {
    return forbidden('cross-site requests are refused (Sec-Fetch-Site: cross-site)', 'sec-fetch-site')
  }
  const origin = header(headers, 'origin')
  if (origin !== undefined) {
    if (origin === 'null') return forbidden('an opaque origin ("null") is refused', 'origin')
    return sameAuthority(origin, host)
      ? null
      : forbidden(`the Origin ${quote(origin)} does not match the Host ${quote(rawHost)}`, 'origin')
  }
  // Without an Origin (GETs, <img>, downloads) a Referer, when the browser sends one, is the next best witness.
  const referer = header(headers, 'referer')
  if (referer !== undefined && !sameAuthority(referer, host)) {
    return forbidden(`the Referer ${quote(referer)} does not match the Host ${quote(rawHost)}`, 'referer')
  }
  return null
}

function sameAuthority(url: string, host: URL): boolean {
  try {
    const parsed = new URL(url)
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host === host.host
  } catch {
    return false
  }
}

/**
 * Refuse a method a route does not serve with 405 and the `Allow` list. HEAD rides along with GET.
 * @returns null when the method is allowed.
 */
export function checkMethod(method: string | undefined, allowed: readonly string[]): Refusal | null {
  const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : [...allowed]
  if (method !== undefined && allow.includes(method)) return null
  return {
    status: 405,
    code: 'method-not-allowed',
    message: `method ${quote(method ?? '')} is not allowed here; use ${allow.join(' or ')}`,
    headers: { Allow: allow.join(', ') },
  }
}

/**
 * Refuse a body that is not declared as UTF-8 JSON. Requiring `application/json` also forces a browser's
 * cross-origin POST into a CORS preflight, which these routes never answer.
 * @returns null when the Content-Type is `application/json` (charset absent or utf-8).
 */
export function checkJsonContentType(headers: IncomingHttpHeaders): Refusal | null {
  const raw = header(headers, 'content-type') ?? ''
  const [type, ...params] = raw.split(';').map((s) => s.trim().toLowerCase())
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '')
  if (type === 'application/json' && (charset === undefined || charset === 'utf-8' || charset === 'utf8')) return null
  return {
    status: 415,
    code: 'unsupported-media-type',
    message: `the body must be sent as Content-Type: application/json (UTF-8), not ${quote(raw)}`,
    field: 'content-type',
  }
}

/**
 * Refuse a raw body (a data export's bytes) not declared as one of `types`.
 * @returns null when the Content-Type, its parameters aside, is one of them.
 */
export function checkRawContentType(headers: IncomingHttpHeaders, types: readonly string[]): Refusal | null {
  const raw = header(headers, 'content-type') ?? ''
  const type = raw.split(';')[0]!.trim().toLowerCase()
  if (types.includes(type)) return null
  return {
    status: 415,
    code: 'unsupported-media-type',
    message: `the body must be sent as ${types.join(', ')}, not ${quote(raw)}`,
    field: 'content-type',
  }
}

/**
 * Read a body of at most `limit` bytes as it is, unparsed, under the same rules as a JSON body: a declared size over
 * the limit refused before a byte is read, an undeclared one as soon as it passes it.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return readJsonBody(req, limit, { from: 0, parse: (bytes) => Promise.resolve({ ok: true, value: bytes }) })
}

function tooLarge(limit: number): Refusal {
  return { status: 413, code: 'too-large', message: `the body exceeds the limit of ${limit} bytes`, limit }
}

function badShape(excess: ShapeExcess): Refusal {
  const message =
    excess.what === 'depth'
      ? `the body nests deeper than the limit of ${excess.limit} levels`
      : `the body holds more than the limit of ${excess.limit} JSON values`
  return { status: 413, code: 'too-large', message, field: `body.${excess.what}`, limit: excess.limit }
}

/** The outcome of reading a body: the parsed JSON, a refusal to answer, or a client that went away mid-body. */
export type BodyResult = { ok: true; value: unknown } | { ok: false; refusal: Refusal } | { ok: false; gone: true }

/** A parser of JSON bytes that runs elsewhere (the import worker), for bodies too large to parse on the event loop. */
export interface LargeBodyParser {
  /** Bodies of at least this many bytes go to `parse`; smaller ones parse here, where a thread hop would cost more. */
  from: number
  parse(body: Buffer): Promise<{ ok: true; value: unknown } | { ok: false; message: string }>
}

/**
 * Read and parse a JSON body of at most `limit` bytes and (with `shape`) at most that nesting and count of values. A
 * declared Content-Length over the limit is refused before a byte is read; an undeclared (chunked) body is refused as
 * soon as it passes the limit, and any body as soon as its bytes so far pass a bound of its shape (measured chunk by
 * chunk as they arrive, body-shape.ts), the rest left unread: no parser ever sees a body it could not finish quickly.
 */
export function readJsonBody(
  req: IncomingMessage,
  limit: number,
  large?: LargeBodyParser,
  shape?: BodyShapeLimits,
): Promise<BodyResult> {
  const declared = header(req.headers, 'content-length')
  const length = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined
  if (length !== undefined && length > limit) {
    return Promise.resolve({ ok: false, refusal: tooLarge(limit) })
  }
  return new Promise((resolve) => {
    const body = new BodyBytes(length)
    const scan = shape === undefined ? undefined : new BodyShape(shape)
    const finish = (result: BodyResult): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onGone)
      req.off('close', onClose)
      resolve(result)
    }
    const onData = (chunk: Buffer): void => {
      if (body.size + chunk.length > limit) {
        req.pause()
        finish({ ok: false, refusal: tooLarge(limit) })
        return
      }
      const excess = scan?.feed(chunk)
      if (excess !== undefined) {
        req.pause()
        finish({ ok: false, refusal: badShape(excess) })
        return
      }
      // Ours alone when no other listener reads the request's chunks (the host's or another plugin's).
      body.add(chunk, req.listenerCount('data') === 1)
    }
    const onEnd = (): void => {
      const bytes = body.bytes()
      if (large === undefined || bytes.length < large.from) return finish(parseJson(bytes))
      void large.parse(bytes).then(
        (r) => finish(r.ok ? r : badJson(r.message)),
        (e: unknown) => finish(badJson(errorText(e))),
      )
    }
    const onGone = (): void => finish({ ok: false, gone: true })
    const onClose = (): void => {
      if (!req.complete) onGone()
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onGone)
    req.on('close', onClose)
  })
}

function badJson(reason: string): BodyResult {
  return { ok: false, refusal: { status: 400, code: 'bad-json', message: `the body is not valid JSON: ${reason}` } }
}

function parseJson(body: Buffer): BodyResult {
  if (body.length === 0)
    return {
      ok: false,
      refusal: { status: 400, code: 'bad-json', message: 'the body is empty; expected a JSON object' },
    }
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown }
  } catch (error) {
    return badJson(errorText(error))
  }
}
