/**
 * The leader page's WebSocket (lib/client/data/live-socket.ts) against the real routes and hub, with Node's own
 * WebSocket (the same WHATWG interface as a page's): it resumes from the newest revision after a drop, and gives up
 * when the host refuses it again and again.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { socketSource, type WebSocketLike } from '../../../lib/client/data/live-socket.ts'
import { createHandler } from '../../../lib/http/routes.ts'
import { renderProfile } from '../../../lib/prompt/render.ts'
import type { LiveEvent } from '../../../lib/shared/wire-state.ts'
import { openStore } from '../../../lib/store/open-store.ts'
import type { ProfileStore } from '../../../lib/store/store.ts'
import { httpClient, routeMeta } from '../../support/http.ts'

let dir: string
let store: ProfileStore
let server: Server
let handler: ReturnType<typeof createHandler>
const upgraded: Duplex[] = []

async function boot(eventOptions: Parameters<typeof createHandler>[0]['eventOptions'] = {}): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'ap-live-socket-'))
  store = await openStore({ file: join(dir, 'profiles.json') })
  handler = createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => ({ ...routeMeta(store), revision: store.revision }),
    trustedHosts: () => [],
    log: { warn() {}, error() {} },
    eventOptions,
  })
  server = createServer(handler)
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    upgraded.push(socket)
    handler.upgrade(req, socket, head)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

afterEach(async () => {
  upgraded.length = 0
  handler.events.close()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const WS = globalThis.WebSocket as unknown as WebSocketLike

describe('the leader page’s WebSocket', () => {
  it('hands on each change once, and after a drop resumes from the newest one it was handed', async () => {
    const base = await boot()
    const api = httpClient(Number(new URL(base).port))
    const Source = socketSource(WS, base)
    const source = new Source(`/__ap/events?since=${store.revision}`)
    const seen: LiveEvent[] = []
    let opens = 0
    source.addEventListener('open', () => opens++)
    for (const kind of ['change', 'reload'])
      source.addEventListener(kind, (e) => seen.push(JSON.parse((e as MessageEvent<string>).data) as LiveEvent))
    await vi.waitFor(() => expect(source.readyState).toBe(1))
    await api.command({ op: 'profile.create', profile: { name: 'A' } })
    await vi.waitFor(() => expect(seen).toHaveLength(1))

    // The host drops the connection (as it does a page that stopped reading); a save lands while it is away.
    for (const socket of upgraded.splice(0)) socket.destroy()
    await vi.waitFor(() => expect(handler.events.connections).toBe(0))
    await api.command({ op: 'profile.create', profile: { name: 'B' } })
    await vi.waitFor(() => expect(opens).toBe(2), { timeout: 5_000 })
    await api.command({ op: 'profile.create', profile: { name: 'C' } })
    await vi.waitFor(() => expect(seen).toHaveLength(3))
    expect(seen.map((e) => [e.kind, e.revision])).toEqual([
      ['change', store.revision - 2],
      ['change', store.revision - 1],
      ['change', store.revision],
    ])
    source.close()
    await vi.waitFor(() => expect(handler.events.connections).toBe(0))
  })

  it('gives up (CLOSED, with an error) when the host refuses it three times in a row', async () => {
    const base = await boot({ maxConnections: 0 })
    const Source = socketSource(WS, base)
    const source = new Source('/__ap/events')
    const states: number[] = []
    source.onerror = () => states.push(source.readyState)
    await vi.waitFor(() => expect(source.readyState).toBe(2), { timeout: 10_000 })
    expect(states).toEqual([0, 0, 2])
  })
})
