/**
 * The server half of bench/routes.bench.ts, run as its own process (as dsh is for a browser): `routes` serves
 * createHandler over node:http with the real store (fsync on) on a temporary directory, wired as index.ts wires it
 * (its meta without the prompt diagnostics); `floor` answers every request with a fixed reply and does nothing else.
 * It only serves and measures itself; the clients and every figure live in the bench. Not a `.bench.ts`, so
 * `npm run bench` does not run it alone.
 *
 * Protocol (IPC): the child sends `{port}` once listening; then the bench sends requests `{id, do, ...}` and gets
 * `{id, ...}` back: `seed` (routes: import `n` profiles with avatars; answers the size of that state with every avatar
 * inlined), `cpu` (this process's CPU time so far, µs), `direct` (routes: store.command round trips in-process, the
 * baseline without HTTP), `close` (then it exits, which writes a CPU profile when started with --cpu-prof).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { renderProfile } from '../lib/prompt/render.ts'
import { createHandler } from '../lib/http/routes.ts'
import { openStore } from '../lib/store/open-store.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import { avatarDataUrl, routeMeta } from '../test/support/http.ts'
import { importProfiles } from './seed-profiles.ts'

/** A realistic avatar: 512 px WebP at quality 0.92 is tens of KB; 60 KB of data URL is the store benchmark's figure. */
const AVATAR_CHARS = 60_000

/** A request from the bench. */
export type ServerRequest =
  | { id: number; do: 'seed'; profiles: number }
  | { id: number; do: 'cpu' }
  | { id: number; do: 'direct'; clients: number; perClient: number }
  | { id: number; do: 'close' }

const [mode, arg] = process.argv.slice(2)
const send = (message: object): void => void process.send!(message)

/** Replace the store's profiles with `n` profiles carrying avatars, through the import command. */
function seed(store: ProfileStore, n: number): Promise<void> {
  return importProfiles(store, n, (i) => ({
    id: `b-${i}`,
    avatar: avatarDataUrl(AVATAR_CHARS),
    role: `第 ${i} 套配置的角色设定：一位严谨的助手。`,
    personality: '耐心',
    speakingStyle: '简洁直白',
    rules: '实事求是，不猜测。',
  }))
}

/** `clients` concurrent loops of `perClient` profile.update commands on the store itself; each sample is one command. */
async function direct(store: ProfileStore, clients: number, perClient: number): Promise<number[]> {
  const samples: number[] = []
  let counter = 0
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const id = `b-${c % store.state.profiles.length}`
      for (let i = 0; i < perClient; i++) {
        const t = performance.now()
        await store.command({ op: 'profile.update', id, patch: { role: `角色修改 ${counter++}` } })
        samples.push(performance.now() - t)
      }
    }),
  )
  return samples
}

let handler: RequestListener
let upgrade: ReturnType<typeof createHandler>['upgrade'] | undefined
let store: ProfileStore | undefined
let dir: string | undefined
if (mode === 'routes') {
  dir = mkdtempSync(join(arg!, 'routes-'))
  const opened = await openStore({ file: join(dir, 'profiles.json') })
  store = opened
  const routes = createHandler({
    store: opened,
    preview: (p, s) => renderProfile(p, s),
    // index.ts's meta without the prompt diagnostics (no prompt part runs here): what it computes per reply.
    meta: () => routeMeta(opened),
    trustedHosts: () => [],
    log: { warn: (m) => console.warn(m), error: (m) => console.error(m) },
  })
  handler = routes
  // The push channel's WebSocket, as index.ts registers it on the host's server.
  upgrade = routes.upgrade
} else if (mode === 'floor') {
  const body = Buffer.from(`{"pad":"${'x'.repeat(Math.max(0, Number(arg) - 10))}"}`)
  handler = (req, res) => {
    req.resume()
    req.on('end', () =>
      res
        .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length })
        .end(body),
    )
  }
} else {
  throw new Error(`usage: routes-server.ts routes <results dir> | floor <reply bytes>`)
}

const server = createServer(handler)
if (upgrade !== undefined) server.on('upgrade', upgrade)
server.listen(0, '127.0.0.1', () => send({ port: (server.address() as AddressInfo).port }))

process.on('message', async (m: ServerRequest) => {
  if (m.do === 'seed') {
    await seed(store!, m.profiles)
    send({ id: m.id, inlineBytes: Buffer.byteLength(JSON.stringify({ state: store!.state })) })
  } else if (m.do === 'cpu') {
    const { user, system } = process.cpuUsage()
    send({ id: m.id, micros: user + system })
  } else if (m.do === 'direct') {
    send({ id: m.id, samples: await direct(store!, m.clients, m.perClient) })
  } else if (m.do === 'close') {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await store?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    send({ id: m.id })
    process.exit(0)
  }
})
