/**
 * Benchmark of `/__ap/*` over a real node:http server with the real store (fsync on) and renderer:
 *  - command round trip (`profile.update` of one text field) p50/p99 with 1 and 16 concurrent clients, against the
 *    same command called in-process on the store as the baseline (the ratio is the cost of HTTP + routes), and
 *    against an HTTP floor: the same clients and a server that answers a reply of the same size doing nothing else
 *    (the clients share this process's one thread with the server, so their own HTTP work counts in every figure);
 *  - `GET /__ap/state` size and time with 10 and 100 profiles with avatars, against the size the same state would have
 *    with every avatar inlined as a data URL (the baseline the avatar route replaces).
 * Run: `node --experimental-strip-types bench/routes.bench.ts` (Node 22), or `npm run bench`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { renderProfile } from '../lib/prompt.ts'
import { createHandler } from '../lib/routes.ts'
import { openStore, type ProfileStore } from '../lib/store.ts'
import { avatarDataUrl, httpClient, type HttpClient } from '../test/support/http.ts'

/** A realistic avatar: 512 px WebP at quality 0.92 is tens of KB; 60 KB of data URL is the store benchmark's figure. */
const AVATAR_CHARS = 60_000

// On the checkout's own disk (not a tmpfs), so fsync costs what it costs for a user.
const ROOT = join(fileURLToPath(import.meta.url), '..', 'results')
mkdirSync(ROOT, { recursive: true })

interface Rig {
  store: ProfileStore
  server: Server
  api: HttpClient
  dir: string
}

async function rig(): Promise<Rig> {
  const dir = mkdtempSync(join(ROOT, 'routes-'))
  const store = await openStore({ file: join(dir, 'profiles.json') })
  const server = createServer(createHandler({
    store,
    preview: (p, s) => renderProfile(p, s),
    meta: () => ({ dataFile: store.file, counts: { profiles: store.state.profiles.length }, lastError: store.lastError }),
    trustedHosts: () => [],
    log: { warn: (m) => console.warn(m), error: (m) => console.error(m) },
  }))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { store, server, api: httpClient((server.address() as AddressInfo).port), dir }
}

async function teardown(r: Rig): Promise<void> {
  r.server.closeAllConnections()
  await new Promise<void>((resolve) => r.server.close(() => resolve()))
  await r.store.close()
  rmSync(r.dir, { recursive: true, force: true })
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function stats(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), n: s.length }
}

const ms = (x: number): string => `${x.toFixed(2)} ms`

/** Every figure printed, also written to bench/results/routes.json. */
const results: Record<string, unknown> = { node: process.version }

/** Fill the store with `n` profiles carrying avatars, through the import command. */
async function seed(store: ProfileStore, n: number): Promise<void> {
  const now = Date.now()
  const profiles = Array.from({ length: n }, (_, i) => ({
    id: `b-${i}`, name: `配置 ${i}`, emoji: '🙂', avatar: avatarDataUrl(AVATAR_CHARS),
    role: `第 ${i} 套配置的角色设定：一位严谨的助手。`, personality: '耐心', speakingStyle: '简洁直白', rules: '实事求是，不猜测。',
    memoryEnabled: true, memory: { summary: '', items: [] }, createdAt: now, updatedAt: now,
  }))
  await store.command({ op: 'state.import', mode: 'replace', payload: { format: 'dsh-agent-profiles', version: 1, exportedAt: new Date(now).toISOString(), activeId: 'b-0', profiles } } as never)
}

/** A server that answers every request with `body` after reading it, and does nothing else. */
async function floorServer(body: Buffer): Promise<{ api: HttpClient; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length }).end(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    api: httpClient((server.address() as AddressInfo).port),
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** `clients` loops of `perClient` round trips each; every sample is one request's own latency. */
async function roundTrips(r: Rig, clients: number, perClient: number, via: HttpClient | 'store'): Promise<number[]> {
  const samples: number[] = []
  let counter = 0
  const loop = async (c: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const id = `b-${c % r.store.state.profiles.length}`
    for (let i = 0; i < perClient; i++) {
      const cmd = { op: 'profile.update', id, patch: { role: `角色修改 ${counter++}` } }
      const t = performance.now()
      if (via !== 'store') {
        const reply = await via.command(cmd, agent)
        if (reply.status !== 200) throw new Error(`command failed: ${reply.status} ${reply.text}`)
      } else {
        await r.store.command(cmd as never)
      }
      samples.push(performance.now() - t)
    }
    agent.destroy()
  }
  await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)))
  return samples
}

async function commandBench(): Promise<void> {
  const r = await rig()
  try {
    await seed(r.store, 100)
    await roundTrips(r, 4, 25, r.api) // warm-up
    const floor = await floorServer((await r.api.command({ op: 'profile.update', id: 'b-0', patch: { role: '回复样本' } })).body)
    console.log('\ncommand round trip: profile.update of one text field, 100 profiles with 60 KB avatars, fsync on')
    console.log('clients | via HTTP p50 / p99           | store.command in-process p50 / p99 | HTTP floor p50 / p99 | p50 ratios: /in-process, /floor')
    try {
      for (const clients of [1, 16]) {
        const perClient = clients === 1 ? 400 : 40
        const http = stats(await roundTrips(r, clients, perClient, r.api))
        const direct = stats(await roundTrips(r, clients, perClient, 'store'))
        const bare = stats(await roundTrips(r, clients, perClient, floor.api))
        results[`command.${clients}`] = { http, direct, floor: bare, ratio: http.p50 / direct.p50, overFloor: http.p50 / bare.p50 }
        console.log(`${String(clients).padStart(7)} | ${ms(http.p50)} / ${ms(http.p99)} (n=${http.n}) | ${ms(direct.p50)} / ${ms(direct.p99)} | ${ms(bare.p50)} / ${ms(bare.p99)} | ${(http.p50 / direct.p50).toFixed(2)}×, ${(http.p50 / bare.p50).toFixed(2)}×`)
      }
    } finally {
      await floor.close()
    }
  } finally {
    await teardown(r)
  }
}

async function stateBench(): Promise<void> {
  console.log(`\nGET /__ap/state with avatars of ${AVATAR_CHARS} characters`)
  console.log('profiles | bytes (avatar URLs) | bytes if avatars were inlined | ratio | first GET after a change | repeat GET p50')
  for (const n of [10, 100]) {
    const r = await rig()
    try {
      await seed(r.store, n)
      const inline = Buffer.byteLength(JSON.stringify({ state: r.store.state }))
      const firsts: number[] = []
      const repeats: number[] = []
      let bytes = 0
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      for (let round = 0; round < 30; round++) {
        await r.store.command({ op: 'profile.update', id: 'b-0', patch: { role: `改动 ${round}` } } as never)
        let t = performance.now()
        const first = await r.api.get('/__ap/state', {}, agent)
        firsts.push(performance.now() - t)
        bytes = first.body.length
        for (let k = 0; k < 10; k++) {
          t = performance.now()
          await r.api.get('/__ap/state', {}, agent)
          repeats.push(performance.now() - t)
        }
      }
      agent.destroy()
      results[`state.${n}`] = { bytes, inlineBytes: inline, firstGet: stats(firsts), repeatGet: stats(repeats) }
      console.log(`${String(n).padStart(8)} | ${String(bytes).padStart(19)} | ${String(inline).padStart(29)} | ${(inline / bytes).toFixed(0)}× | ${ms(stats(firsts).p50).padStart(24)} | ${ms(stats(repeats).p50)}`)
    } finally {
      await teardown(r)
    }
  }
}

await commandBench()
await stateBench()
writeFileSync(join(ROOT, 'routes.json'), `${JSON.stringify(results, null, 2)}\n`)
