import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { damageLeafPage } from '../support/damaged-page.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'
import { openChannel, opened, type Channel, type Refused } from '../support/ws-client.ts'

let dir: string
let store: ProfileStore
let server: Server
let handler: ReturnType<typeof createHandler>
let api: HttpClient
let port: number

/** An upgrade listener that notes, per socket, every chunk the hub writes to it. */
function record(upgrade: ReturnType<typeof createHandler>['upgrade']) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const chunks: Buffer[] = []
    written.push(chunks)
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk)) chunks.push(chunk)
      return write(chunk, ...rest)
    }) as typeof socket.write
    upgrade(req, socket, head)
  }
}

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
  server.on('upgrade', record(handler.upgrade))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  api = httpClient(port)
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-events-'))
  store = await openStore({ file: join(dir, 'profiles.json') })
})

afterEach(async () => {
  written.length = 0
  handler.events.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every chunk the server wrote to each upgraded socket, in order (to see which Buffers each connection was sent). */
const written: Buffer[][] = []

function channel(headers: Record<string, string> = {}, path = '/__ap/events'): Promise<Channel> {
  return openChannel({ port }, path, headers).then(opened)
}

describe('the push channel (WebSocket on /__ap/events)', () => {
  it('sends each saved change with its revision and what it touched', async () => {
    await boot()
    const s = await channel()
    const created = (await api.command({ op: 'profile.create', profile: { name: 'Ada' } })).json as {
      profile: { id: string }
    }
    const id = created.profile.id
    await s.until(() => s.events().length === 1)
    const [event] = s.events()
    expect(event).toMatchObject({
      kind: 'change',
      revision: store.revision,
      change: { profiles: [id], memory: [id], removed: [] },
    })
    expect(event!.kind === 'change' && event!.change.order).toEqual(store.state.profiles.map((p) => p.id))

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
    const resumed = await channel({}, `/__ap/events?since=${start + 1}`)
    await resumed.until(() => resumed.events().length === 1)
    expect(resumed.events()).toEqual([expect.objectContaining({ kind: 'change', revision: start + 2 })])

    for (const name of ['C', 'D', 'E']) await api.command({ op: 'profile.create', profile: { name } })
    const old = await channel({}, `/__ap/events?since=${start}`)
    await old.until(() => old.events().length === 1)
    expect(old.events()).toEqual([{ kind: 'reload', revision: store.revision }])
    const future = await channel({}, `/__ap/events?since=${store.revision + 10}`)
    await future.until(() => future.events().length === 1)
    expect(future.events()).toEqual([{ kind: 'reload', revision: store.revision }])
  })

  it('catches pages up from the one frame made per event: every connection is written the same Buffers', async () => {
    await boot()
    const start = store.revision
    const live = await channel()
    for (const name of ['A', 'B', 'C']) await api.command({ op: 'profile.create', profile: { name } })
    await live.until(() => live.events().length === 3)
    const first = await channel({}, `/__ap/events?since=${start}`)
    const second = await channel({}, `/__ap/events?since=${start}`)
    await first.until(() => first.events().length === 3)
    await second.until(() => second.events().length === 3)
    expect(second.events()).toEqual(live.events())
    // The three connections, in the order they opened: the live one was sent each event as the change was saved; the
    // two that resumed were sent those very Buffers as payloads (no text joined, no copy made for a connection; each
    // connection's own part is the few bytes of a frame header before each).
    const payloads = (chunks: Buffer[]) =>
      chunks.flatMap((c, i) => (c[0] === 0x81 && c.length <= 10 && i + 1 < chunks.length ? [chunks[i + 1]!] : []))
    const [liveWrites, firstWrites, secondWrites] = written.map(payloads)
    expect(liveWrites).toHaveLength(3)
    expect(liveWrites!.map((p) => JSON.parse(p.toString()).kind)).toEqual(['change', 'change', 'change'])
    for (const [i, payload] of liveWrites!.entries()) {
      expect(firstWrites![i]).toBe(payload)
      expect(secondWrites![i]).toBe(payload)
    }
  })

  it('answers "reload" instead of a catch-up larger than its byte budget', async () => {
    await boot({ catchUpBytes: 1_500 })
    const start = store.revision
    for (let i = 0; i < 12; i++) await api.command({ op: 'profile.create', profile: { name: `P${i}` } })
    const far = await channel({}, `/__ap/events?since=${start}`)
    await far.until(() => far.events().length > 0)
    expect(far.events()).toEqual([{ kind: 'reload', revision: store.revision }])
    // A short absence is still caught up event by event.
    const near = await channel({}, `/__ap/events?since=${store.revision - 1}`)
    await near.until(() => near.events().length > 0)
    expect(near.events()).toEqual([expect.objectContaining({ kind: 'change', revision: store.revision })])
  })

  it('closes a connection that stops answering the heartbeat, and keeps one that reads', async () => {
    await boot({ heartbeatMs: 40 })
    const reading = await channel()
    const hung = await channel()
    await reading.until(() => reading.pings() >= 1)
    hung.pause()
    await expect.poll(() => handler.events.connections, { timeout: 5_000 }).toBe(1)
    await reading.until(() => reading.pings() >= 4)
    expect(reading.socket.destroyed).toBe(false)
    expect(handler.events.connections).toBe(1)
  })

  it('closes a connection whose unsent bytes pass the bound, and keeps one that reads', async () => {
    // The catch-up budget is raised above the bound here, so that what one resuming page is sent passes it at once.
    await boot({ maxBuffered: 16 * 1024, catchUpBytes: 4 * 1024 * 1024, heartbeatMs: 60_000 })
    const start = store.revision
    // Each change of the order names every profile: ~350 KB of catch-up for 190 profiles made one by one (within the limit of 200), well past
    // what the kernel's buffers of a Unix socket take (~220 KB for 150 was just within them).
    for (let i = 0; i < 190; i++) await api.command({ op: 'profile.create', profile: { name: `Profile ${i}` } })
    // Over a Unix socket, whose kernel buffers are small and fixed, what a page does not read waits in the host.
    const socketPath = join(dir, 'events.sock')
    const local = createServer(handler)
    local.on('upgrade', record(handler.upgrade))
    await new Promise<void>((resolve) => local.listen(socketPath, resolve))
    const reading = opened(await openChannel({ socketPath, port }, `/__ap/events?since=${start}`))
    const hung = await openChannel({ socketPath, port }, `/__ap/events?since=${start}`, {}, { reading: false })
    try {
      await reading.until(() => reading.events().at(-1)?.revision === store.revision)
      // The next change finds what the hung page was sent still waiting in the host: that connection is closed.
      const before = store.revision
      await api.command({ op: 'profile.update', id: 'general', patch: { name: 'General, renamed' } })
      expect(store.revision).toBeGreaterThan(before)
      await reading.until(() => reading.events().at(-1)?.revision === store.revision)
      await expect.poll(() => handler.events.connections).toBe(1)
      expect(reading.socket.destroyed).toBe(false)
    } finally {
      opened(hung).socket.destroy()
      reading.socket.destroy()
      local.closeAllConnections()
      await new Promise<void>((resolve) => local.close(() => resolve()))
    }
  })

  it('a hub closing ends every connection, and a page that went away is forgotten', async () => {
    await boot()
    const gone = await channel()
    gone.socket.destroy()
    await expect.poll(() => handler.events.connections).toBe(0)
    const s = await channel()
    expect(handler.events.connections).toBe(1)
    handler.events.close()
    expect(await s.ended).toBe(1001)
    expect(handler.events.connections).toBe(0)
  })

  it('the upgrade is fenced like every route: cross-site, foreign Origin and foreign Host are refused', async () => {
    await boot()
    const refusals: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { host: 'evil.example' },
      { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
    ]
    for (const headers of refusals) {
      const reply = (await openChannel({ port }, '/__ap/events', headers)) as Refused
      expect(reply.status, JSON.stringify(headers)).toBe(403)
      expect(JSON.parse(reply.body).error.code).toBe('forbidden')
    }
    expect(handler.events.connections).toBe(0)
    const trusted = await openChannel({ port }, '/__ap/events', {
      host: 'lan.example',
      origin: 'http://lan.example',
      'sec-fetch-site': 'same-origin',
    })
    expect(trusted.status).toBe(101)
    const sameOrigin = await openChannel({ port }, '/__ap/events', { origin: `http://127.0.0.1:${port}` })
    expect(sameOrigin.status).toBe(101)
    // Not a WebSocket: a plain GET is told to upgrade, a malformed handshake is refused.
    expect((await api.get('/__ap/events')).status).toBe(426)
    const bad = (await openChannel({ port }, '/__ap/events', { 'sec-websocket-key': 'short' })) as Refused
    expect(bad.status).toBe(400)
  })

  it('refuses connections over the cap with 503 instead of holding them', async () => {
    await boot({ maxConnections: 1 })
    await channel()
    const over = (await openChannel({ port })) as Refused
    expect(over.status).toBe(503)
  })

  it('tells every page the meta changed when the integrity check starts and ends, nothing saved (#44)', async () => {
    await store.close()
    const file = join(dir, 'profiles.sqlite')
    const seed = await openStore({ file })
    const items = Array.from({ length: 3_000 }, (_, i) => ({
      id: `m${i}`,
      text: `第${i}条事实`,
      source: 'auto' as const,
    }))
    await seed.command({ op: 'profile.update', id: 'general', patch: { memory: { summary: '', items } } })
    await seed.close()
    store = await openStore({ file })
    await vi.waitFor(() => expect(store.health.check?.state).toBe('sound'), { timeout: 20_000 })
    await boot()
    const s = await channel()
    // A page goes bad while dsh runs: the read that meets it starts the check again.
    await damageLeafPage(file, 'memory_items')
    expect(() => store.state.profiles.find((p) => p.id === 'general')!.memory.items.length).toThrow(/damaged/)
    await s.until(() => s.events().length === 1)
    await vi.waitFor(() => expect(store.health.check?.state).toBe('damaged'), { timeout: 20_000 })
    await s.until(() => s.events().length === 2)
    expect(s.events()).toEqual([
      { kind: 'meta', revision: store.revision },
      { kind: 'meta', revision: store.revision },
    ])
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
