/**
 * Plain HTTP helpers for the `/__ap` specs and benchmarks: raw requests with full control of every header (Host,
 * Origin, Sec-Fetch-Site …), avatar data URLs of a chosen size, a seeded random source, and a generator of random
 * and malformed requests for fuzzing. Nothing here knows the routes' internals; it speaks the wire only.
 */
import { Agent, request } from 'node:http'
import { randomBytes } from 'node:crypto'
import type { Meta } from '../../lib/shared/meta.ts'
import { COMMAND_SCHEMAS } from '../../lib/shared/schema-commands.ts'
import { countsOf } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { Rng } from './fuzz.ts'

/** The `meta` index.ts sends when no part reports diagnostics: data file, counts, last fault, memory thresholds. */
export function routeMeta(store: Pick<ProfileStore, 'file' | 'state' | 'lastError'>): Meta {
  return {
    dataFile: store.file,
    counts: countsOf(store.state),
    lastError: store.lastError,
    compressThreshold: 5000,
    memoryBudget: 3000,
  }
}

/** One answered request. */
export interface HttpReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any
}

/** What to send. `headers` are sent exactly as given; `host` defaults to the server's own authority. */
export interface HttpSend {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  agent?: Agent
}

/** A client of one server at `http://127.0.0.1:<port>`. */
export function httpClient(port: number, host = '127.0.0.1') {
  const authority = `${host}:${port}`
  return {
    authority,
    send(s: HttpSend): Promise<HttpReply> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { host: authority, ...s.headers }
        if (
          s.body !== undefined &&
          !Object.keys(headers).some(
            (k) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding',
          )
        ) {
          headers['content-length'] = String(Buffer.byteLength(s.body))
        }
        const req = request(
          { host, port, method: s.method ?? 'GET', path: s.path, headers, agent: s.agent ?? false },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              const body = Buffer.concat(chunks)
              let parsed: { value: unknown } | undefined
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body,
                get text() {
                  return body.toString('utf8')
                },
                // Parsed on first use, so timing a request does not time the client's JSON.parse.
                get json() {
                  if (parsed === undefined) {
                    try {
                      parsed = { value: JSON.parse(body.toString('utf8')) }
                    } catch {
                      parsed = { value: undefined }
                    }
                  }
                  return parsed.value
                },
              })
            })
            res.on('error', reject)
          },
        )
        req.on('error', reject)
        req.end(s.body)
      })
    },
    /** GET a path. */
    get(path: string, headers: Record<string, string> = {}, agent?: Agent): Promise<HttpReply> {
      return this.send({ path, headers, ...(agent ? { agent } : {}) })
    },
    /** POST a JSON value (or raw text) with Content-Type: application/json. */
    post(path: string, body: unknown, headers: Record<string, string> = {}, agent?: Agent): Promise<HttpReply> {
      const raw = typeof body === 'string' ? body : JSON.stringify(body)
      return this.send({
        method: 'POST',
        path,
        body: raw,
        headers: { 'content-type': 'application/json', ...headers },
        ...(agent ? { agent } : {}),
      })
    },
    /** POST a store command to /__ap/command. */
    command(cmd: Record<string, unknown>, agent?: Agent): Promise<HttpReply> {
      return this.post('/__ap/command', cmd, {}, agent)
    },
  }
}

export type HttpClient = ReturnType<typeof httpClient>

/** True when `json` is exactly `{error: {code, message, field?, limit?, rule?}}` with the right types. */
export function isErrorShape(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Object.keys(json).join() !== 'error') return false
  const e = (json as { error: Record<string, unknown> }).error
  if (typeof e !== 'object' || e === null) return false
  const keys = Object.keys(e)
  return (
    typeof e.code === 'string' &&
    typeof e.message === 'string' &&
    e.message !== '' &&
    (e.field === undefined || typeof e.field === 'string') &&
    (e.limit === undefined || typeof e.limit === 'number') &&
    (e.rule === undefined || typeof e.rule === 'string') &&
    keys.every((k) => ['code', 'message', 'field', 'limit', 'rule'].includes(k))
  )
}

/**
 * A WebP data URL of `chars` characters (less up to 3 when `chars` is not reachable in whole base64 quads): a RIFF/WEBP
 * header, then random, incompressible content — the size profile of a real photo.
 */
export function avatarDataUrl(chars: number): string {
  const prefix = 'data:image/webp;base64,'
  const bytes = randomBytes(Math.floor((chars - prefix.length) / 4) * 3)
  bytes.write('RIFF', 0, 'latin1')
  bytes.writeUInt32LE(bytes.length - 8, 4)
  bytes.write('WEBP', 8, 'latin1')
  return prefix + bytes.toString('base64')
}

/**
 * The body of a `state.import` (replace) of `count` profiles `imp-0` … with avatars of `avatarChars` characters of data
 * URL each — an export file of that size — and the profiles in it.
 */
export function largeImport(
  count: number,
  avatarChars: number,
): { body: string; profiles: { id: string; avatar: string }[] } {
  const now = Date.now()
  const profiles = Array.from({ length: count }, (_, i) => ({
    id: `imp-${i}`,
    name: `配置 ${i}`,
    emoji: '🙂',
    avatar: avatarDataUrl(avatarChars),
    role: '角色'.repeat(200),
    personality: '温和',
    speakingStyle: '简洁',
    rules: '实事求是',
    memoryEnabled: true,
    memory: { summary: '', items: [] },
    createdAt: now,
    updatedAt: now,
  }))
  const payload = {
    format: 'dsh-agent-profiles',
    version: 1,
    exportedAt: new Date(now).toISOString(),
    activeId: 'imp-0',
    profiles,
  }
  return { body: JSON.stringify({ op: 'state.import', mode: 'replace', payload }), profiles }
}

/** A PNG data URL: the PNG signature followed by `payload` (enough for the store's signature check). */
export function pngDataUrl(payload: string): string {
  const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(payload)])
  return `data:image/png;base64,${bytes.toString('base64')}`
}

/** Every op the store takes, read off the schemas (so a new op is fuzzed with no line here), and some that are none. */
const OPS = [...Object.keys(COMMAND_SCHEMAS), 'nope', '', '__proto__', 'constructor']
const KEYS = [
  'id',
  'patch',
  'profile',
  'target',
  'items',
  'itemId',
  'text',
  'sessionId',
  'memory',
  'payload',
  'mode',
  'name',
  'role',
  'rules',
  'avatar',
  'emoji',
  'memoryEnabled',
  'profileId',
  'note',
  'memories',
  'summary',
  '__proto__',
  'constructor',
  'prototype',
  'source',
  'at',
  'turn',
  'personality',
  'speakingStyle',
  'format',
  'version',
  'profiles',
]

/** A random JSON value of bounded depth, biased toward the field names and types the API takes. */
function randomValue(rng: Rng, ids: readonly string[], depth = 0): unknown {
  const k = rng.int(depth > 3 ? 7 : 11)
  switch (k) {
    case 0:
      return null
    case 1:
      return rng.chance(0.5)
    case 2:
      return rng.pick([0, -1, 1, 1.5, 1e308, -0, 2 ** 53, 42])
    case 3:
      return rng.pick(ids.length > 0 ? ids : ['x'])
    case 4:
      return rng.pick([
        '',
        ' ',
        '名字',
        '<script>alert(1)</script>',
        '{{x}}',
        'a\u0000b',
        '\ud800',
        'line\nbreak',
        'session-1',
        'merge',
        'replace',
        'user',
        'data:image/svg+xml;base64,PHN2Zz4=',
        '/__ap/avatar/x?v=1',
      ])
    case 5:
      return 'x'.repeat(rng.pick([1, 39, 40, 41, 999, 1000, 1001, 4000, 4001, 8001, 20_000]))
    case 6:
      return rng.pick(['data:image/png;base64,iVBORw0KGgo=', pngDataUrl('x'), avatarDataUrl(rng.pick([100, 5000]))])
    case 7:
    case 8: {
      const o: Record<string, unknown> = {}
      for (let i = rng.int(5); i > 0; i--) o[rng.pick(KEYS)] = randomValue(rng, ids, depth + 1)
      return o
    }
    default:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, ids, depth + 1))
  }
}

/** A command-shaped object: a (mostly) real op with random fields of random types. */
function randomCommand(rng: Rng, ids: readonly string[]): Record<string, unknown> {
  const cmd: Record<string, unknown> = { op: rng.pick(OPS) }
  for (let i = rng.int(4); i > 0; i--) cmd[rng.pick(KEYS)] = randomValue(rng, ids)
  if (rng.chance(0.3)) cmd.id = rng.pick(ids.length > 0 ? ids : ['x'])
  return cmd
}

const TEXTS = [
  '简洁',
  '<b>粗体</b><img src=x onerror=alert(1)>',
  '{{user}} 的助手',
  'plain words',
  '多行\n文本',
  '🙂',
  '  ',
]

/** A well-formed command with plausible arguments, so a fuzz run also changes the state a lot. */
function plausibleCommand(rng: Rng, ids: readonly string[]): Record<string, unknown> {
  const id = rng.pick(ids.length > 0 ? ids : ['x'])
  const text = (): string => (rng.chance(0.05) ? 'y'.repeat(rng.pick([4001, 8001])) : rng.pick(TEXTS))
  const sessionId = `session-f${rng.int(20)}`
  switch (rng.int(10)) {
    case 0:
      return { op: 'profile.create', profile: { name: `fuzz ${rng.int(1000)}`, role: text() } }
    case 1:
      return { op: 'profile.duplicate', id }
    case 2:
      return { op: 'profile.delete', id }
    case 3:
      return { op: 'profile.activate', id }
    case 4:
      return { op: 'memory.add', target: { profileId: id }, items: [{ text: text() }] }
    case 5:
      return { op: 'memory.clear', target: rng.chance(0.5) ? { profileId: id } : { sessionId } }
    case 6:
      return { op: 'session.set', sessionId, patch: { note: text(), profileId: rng.chance(0.5) ? id : null } }
    case 7:
      return { op: 'session.clear', sessionId }
    default:
      return {
        op: 'profile.update',
        id,
        patch: { [rng.pick(['role', 'rules', 'personality', 'speakingStyle', 'emoji'])]: text() },
      }
  }
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']
const PATHS = [
  '/__ap/state',
  '/__ap/command',
  '/__ap/preview',
  '/__ap/export',
  '/__ap/turns/session-1',
  '/__ap/turns/%E0%A4%A',
  '/__ap/turns/__proto__',
  '/__ap/avatar/',
  '/__ap',
  '/__ap/',
  '/__ap/state/',
  '/__ap/nope',
  '/__ap/export?id=nope',
  '/__ap/turns/a/b',
  '/__ap/avatar/%ZZ',
  '/__ap/state?x=%',
  '/__ap/command?x=1',
]
const TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/json; charset=latin1',
  '',
  'multipart/form-data',
]
const ORIGINS = ['null', 'http://evil.example', 'garbage', 'http://127.0.0.1']

/** One random request to the API: mostly well-formed POSTs of random commands, with a share of junk of every kind. */
export function randomRequest(rng: Rng, ids: readonly string[], authority: string): HttpSend {
  const avatar = `/__ap/avatar/${rng.pick([...ids, 'x'])}?v=${rng.int(9)}`
  const card = `/__ap/export/${rng.pick([...ids, 'x'])}?format=${rng.pick(['card-png', 'card-json', 'markdown', 'zip', ''])}`
  const gets = ['/__ap/state', '/__ap/export', '/__ap/turns/session-f1', avatar, card]
  // Mostly a method the path serves, so requests get past the fence and reach the store; the rest is any mix.
  const [method, path] = rng.chance(0.2)
    ? [rng.pick(METHODS), rng.chance(0.5) ? rng.pick(PATHS) : avatar]
    : rng.chance(0.85)
      ? ['POST', rng.chance(0.85) ? '/__ap/command' : '/__ap/preview']
      : [rng.pick(['GET', 'HEAD']), rng.pick(gets)]
  const headers: Record<string, string> = {
    host: rng.chance(0.95) ? authority : rng.pick(['evil.example', '', 'a b', `localhost:${authority.split(':')[1]}`]),
  }
  headers['content-type'] = rng.chance(0.85) ? 'application/json' : rng.pick(TYPES)
  if (rng.chance(0.08)) headers.origin = rng.pick(ORIGINS)
  if (rng.chance(0.05)) headers['sec-fetch-site'] = rng.pick(['cross-site', 'same-origin', 'none'])
  if (method === 'GET' || method === 'HEAD' || rng.chance(0.03)) return { method, path, headers }
  // Now and then a body that says it is past any limit (64 MiB): refused with 413 from its headers, before it is read.
  if (rng.chance(0.03))
    return { method, path, headers: { ...headers, 'content-length': String(64 * 1024 * 1024) }, body: '{' }
  let body: string
  const shape = rng.int(10)
  if (shape === 0)
    body = rng.pick(['', '{', '{"op":', 'nul', '[]', '"text"', '12', 'null', '\uFEFF{}', '{"op":"profile.create"}}'])
  else if (shape === 1) body = JSON.stringify(randomValue(rng, ids))
  else if (path === '/__ap/preview')
    body = JSON.stringify({
      profile: randomValue(rng, ids),
      setting: rng.chance(0.5) ? randomValue(rng, ids) : undefined,
    })
  else body = JSON.stringify(rng.chance(0.4) ? plausibleCommand(rng, ids) : randomCommand(rng, ids))
  return { method, path, headers, body }
}
