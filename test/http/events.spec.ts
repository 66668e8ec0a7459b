import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import type { LiveEvent } from '../../lib/shared/contract.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'

let dir: string
let store: ProfileStore
let server: Server
let handler: ReturnType<typeof createHandler>
let api: HttpClient
let port: number
const streams: IncomingMessage[] = []

async function boot(eventOptions: Parameters<typeof createHandler>[0]['eventOptions'] = {}): Promise<void> {
  handler = createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => ({ ...routeMeta(store), revision: store.revision }),
    trustedHosts: () => ['lan.example'],
    log: { warn() {}, error() {} },
    eventOptions,
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  api = httpClient(port)
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-events-'))
  store = await openStore({ file: join(dir, 'profiles.json') })
})

afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy()
  handler.events.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** An open event stream: its status and headers, and everything it has sent so far. */
interface Stream {
  status: number
  headers: IncomingMessage['headers']
  text(): string
  /** The events received so far, parsed. */
  events(): LiveEvent[]
  /** Resolve once `test` holds for the text received (rejects after `ms`). */
  until(test: (text: string) => boolean, ms?: number): Promise<string>
  ended: Promise<void>
}

function open(path = '/__ap/events', headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        streams.push(res)
        let text = ''
        const waiters = new Set<() => void>()
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          text += c
          for (const w of [...waiters]) w()
        })
        const ended = new Promise<void>((done) => res.on('close', () => done()))
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => text,
          events: () => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as LiveEvent),
          until(test, ms = 3_000) {
            return new Promise((ok, fail) => {
              const check = (): void => {
                if (!test(text)) return
                waiters.delete(check)
                clearTimeout(timer)
                ok(text)
              }
              const timer = setTimeout(() => {
                waiters.delete(check)
                fail(new Error(`stream did not show it; got ${JSON.stringify(text)}`))
              }, ms)
              waiters.add(check)
              check()
            })
          },
          ended,
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('GET /__ap/events', () => {
  it('streams each saved change with its revision and what it touched, unbuffered', async () => {
    await boot()
    const s = await open()
    expect(s.status).toBe(200)
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(s.headers['cache-control']).toContain('no-transform')
    expect(s.headers['content-length']).toBeUndefined()
    await s.until((t) => t.includes('retry:'))
    const created = (await api.command({ op: 'profile.create', profile: { name: 'Ada' } })).json as {
      profile: { id: string }
    }
    const id = created.profile.id
    await s.until((t) => t.includes('event: change'))
    const [event] = s.events()
    expect(event).toMatchObject({
      kind: 'change',
      revision: store.revision,
      change: { profiles: [id], memory: [id], removed: [] },
    })
    expect(event!.kind === 'change' && event!.change.order).toEqual(store.state.profiles.map((p) => p.id))
    expect(s.text()).toContain(`id: ${store.revision}\n`)

    // Creating made the new profile the default; going back to the first one is a change of the default alone.
    await api.command({ op: 'profile.activate', id: 'general' })
    await api.command({ op: 'session.set', sessionId: 'conv-1', patch: { note: 'only here' } })
    await api.command({ op: 'memory.add', target: { profileId: id }, items: [{ text: 'likes tea' }] })
    await s.until(() => s.events().length === 4)
    const [, activated, pinned, remembered] = s.events().map((e) => (e.kind === 'change' ? e.change : undefined))
    expect(activated).toMatchObject({ activeId: 'general', profiles: [] })
    expect(activated?.order).toBeUndefined()
    expect(pinned).toMatchObject({ sessions: ['conv-1'], profiles: [] })
    expect(remembered).toMatchObject({ profiles: [id], memory: [id] })

    // The user layer's change names only its count: its items come from their own route.
    await api.command({ op: 'memory.add', target: { user: true }, items: [{ text: 'the user is called Wang' }] })
    await s.until(() => s.events().length === 5)
    const about = s.events()[4]
    expect(about).toMatchObject({ kind: 'change', change: { user: 1, profiles: [], memory: [] } })
    expect(JSON.stringify(about)).not.toContain('Wang')
  })

  it('a reconnecting page gets exactly what it missed, or "reload" when that is too old or from elsewhere', async () => {
    await boot({ keep: 3 })
    const start = store.revision
    for (const name of ['A', 'B']) await api.command({ op: 'profile.create', profile: { name } })
    const resumed = await open('/__ap/events', { 'last-event-id': String(start + 1) })
    await resumed.until(() => resumed.events().length === 1)
    expect(resumed.events()).toEqual([expect.objectContaining({ kind: 'change', revision: start + 2 })])

    const current = await open(`/__ap/events?since=${store.revision}`)
    await current.until((t) => t.includes('retry:'))
    expect(current.events()).toEqual([])

    for (const name of ['C', 'D', 'E']) await api.command({ op: 'profile.create', profile: { name } })
    const old = await open(`/__ap/events?since=${start}`)
    await old.until((t) => t.includes('event: reload'))
    expect(old.events()).toEqual([{ kind: 'reload', revision: store.revision }])
    const future = await open('/__ap/events', { 'last-event-id': String(store.revision + 10) })
    await future.until((t) => t.includes('event: reload'))
  })

  it('sends a heartbeat while idle, and the hub closing ends every stream', async () => {
    await boot({ heartbeatMs: 30 })
    const s = await open()
    await s.until((t) => t.includes(': ping'))
    expect(handler.events.connections).toBe(1)
    handler.events.close()
    await s.ended
    expect(handler.events.connections).toBe(0)
  })

  it('forgets a page that went away', async () => {
    await boot()
    const s = await open()
    await s.until((t) => t.includes('retry:'))
    streams.splice(0).forEach((r) => r.destroy())
    await s.ended
    await expect.poll(() => handler.events.connections).toBe(0)
  })

  it('is fenced like every route: cross-site, foreign Origin and foreign Host are refused', async () => {
    await boot()
    const refusals: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example' },
      { referer: 'http://evil.example/page' },
      { host: 'evil.example' },
      { host: `evil.example:${port}` },
    ]
    for (const headers of refusals) {
      const reply = await api.get('/__ap/events', headers)
      expect(reply.status, JSON.stringify(headers)).toBe(403)
      expect(reply.json.error.code).toBe('forbidden')
    }
    expect(handler.events.connections).toBe(0)
    const trusted = await open('/__ap/events', {
      host: 'lan.example',
      origin: 'http://lan.example',
      'sec-fetch-site': 'same-origin',
    })
    expect(trusted.status).toBe(200)
    expect((await api.post('/__ap/events', {})).status).toBe(405)
  })

  it('refuses connections over the cap with 503 instead of holding them', async () => {
    await boot({ maxConnections: 1 })
    await open()
    const over = await api.get('/__ap/events')
    expect(over.status).toBe(503)
  })
})

describe('GET /__ap/profile/<id> and /__ap/meta', () => {
  it('answer one profile (whole, or its head), the look of a deleted one, and the meta alone; an unknown profile is 404', async () => {
    await boot()
    await api.command({
      op: 'memory.add',
      target: { profileId: store.state.profiles[0]!.id },
      items: [{ text: '只在整份里' }],
    })
    const id = store.state.profiles[0]!.id
    const state = (await api.get('/__ap/state')).json.state as { profiles: { id: string }[] }
    const one = await api.get(`/__ap/profile/${encodeURIComponent(id)}`)
    expect(one.status).toBe(200)
    expect(one.json.profile).toMatchObject({
      id,
      name: store.state.profiles[0]!.name,
      role: store.state.profiles[0]!.role,
    })
    expect(one.json.profile.memory.items.map((it: { text: string }) => it.text)).toEqual(['只在整份里'])
    expect(one.json.head).toEqual(state.profiles[0])
    expect(one.json.revision).toBe(store.revision)
    const head = await api.get(`/__ap/profile/${encodeURIComponent(id)}?head`)
    expect(head.json).toEqual({ head: state.profiles[0] })
    expect(head.text).not.toContain('只在整份里')
    expect((await api.get('/__ap/profile/nope')).status).toBe(404)
    const gone = (
      await api.command({
        op: 'profile.create',
        profile: { name: 'Gone', emoji: '👻', memory: { summary: '只有它知道', items: [] } },
      })
    ).json.profile.id as string
    await api.command({ op: 'profile.delete', id: gone })
    const retired = await api.get(`/__ap/profile/${gone}`)
    expect(retired.json).toEqual({
      retired: { id: gone, name: 'Gone', emoji: '👻', avatar: '', at: expect.any(Number) },
    })
    expect(retired.text).not.toContain('只有它知道')
    const meta = await api.get('/__ap/meta')
    expect(meta.json.meta).toMatchObject({
      revision: store.revision,
      counts: { profiles: store.state.profiles.length },
    })
    expect((await api.get('/__ap/profile/x', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
  })
})
