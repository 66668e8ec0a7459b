/**
 * Benchmark of `/__ap/*` as the product runs it: the server (createHandler over node:http with the real store, fsync
 * on, and renderer) is its own process, as dsh is, and the clients are in this one, as browsers are, so client CPU
 * does not count against the server (bench/routes-server.ts is the server half). Figures:
 *  - command round trip (`profile.update` of one text field) p50/p99 with 1 and 16 concurrent clients, beside two
 *    baselines: the same command called in-process on the server's store (the ratio is the cost of HTTP + routes),
 *    and an HTTP floor: the same clients and a server process that answers a reply of the same size doing nothing
 *    else. Each row also gives the server's CPU time per command and the load average while it ran (the machine is
 *    shared, so latency figures move with it; CPU per command much less);
 *  - `GET /__ap/state` size and time with 10 and 100 profiles with avatars, against the size the same state would have
 *    with every avatar inlined as a data URL (the baseline the avatar route replaces).
 * Run: `node --experimental-strip-types bench/routes.bench.ts` (Node 22), or `npm run bench`. With
 * `ROUTES_BENCH_PROF=<dir>` the routes server writes a V8 CPU profile there (`--cpu-prof`).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { httpClient, type HttpClient } from '../test/support/http.ts'
import type { ServerRequest } from './routes-server.ts'

// On the checkout's own disk (not a tmpfs), so fsync costs what it costs for a user.
const ROOT = join(fileURLToPath(import.meta.url), '..', 'results')
mkdirSync(ROOT, { recursive: true })
const SERVER = join(fileURLToPath(import.meta.url), '..', 'routes-server.ts')
const PROFILE_DIR = process.env.ROUTES_BENCH_PROF

type Ask = { do: 'seed'; profiles: number } | { do: 'cpu' } | { do: 'direct'; clients: number; perClient: number } | { do: 'close' }

/** A server process and a client of it. */
interface Server {
  api: HttpClient
  ask(request: Ask): Promise<Record<string, unknown>>
  /** The server's CPU time (user + system) so far, in microseconds. */
  cpu(): Promise<number>
  close(): Promise<void>
}

async function startServer(mode: 'routes' | 'floor', arg: string): Promise<Server> {
  const profile = mode === 'routes' && PROFILE_DIR !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`] : []
  const child: ChildProcess = fork(SERVER, [mode, arg], { execArgv: [...process.execArgv, ...profile], stdio: 'inherit' })
  const pending = new Map<number, (reply: Record<string, unknown>) => void>()
  let next = 0
  const port = await new Promise<number>((resolvePort, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`routes-server ${mode} exited with ${code}`)))
    child.on('message', (m: Record<string, unknown>) => {
      if (typeof m.port === 'number') resolvePort(m.port)
      else pending.get(m.id as number)?.(m)
    })
  })
  const ask = (request: Ask) => new Promise<Record<string, unknown>>((done) => {
    const id = next++
    pending.set(id, (reply) => {
      pending.delete(id)
      done(reply)
    })
    child.send({ ...request, id } satisfies ServerRequest)
  })
  return {
    api: httpClient(port),
    ask,
    cpu: async () => (await ask({ do: 'cpu' })).micros as number,
    close: async () => {
      child.removeAllListeners('exit')
      const exited = new Promise((done) => child.once('exit', done))
      await ask({ do: 'close' })
      await exited
    },
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function stats(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), n: s.length }
}

const ms = (x: number): string => `${x.toFixed(2)} ms`
const load = (): number => Number(loadavg()[0]!.toFixed(2))

/** Every figure printed, also written to bench/results/routes.json. */
const results: Record<string, unknown> = { node: process.version }

/**
 * `clients` loops of `perClient` round trips each over HTTP; every sample is one request's own latency. Also the
 * server's CPU time per request and the 1-minute load average before and after.
 */
async function roundTrips(server: Server, clients: number, perClient: number, profiles: number) {
  const samples: number[] = []
  let counter = 0
  const loadBefore = load()
  const cpuBefore = await server.cpu()
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const id = `b-${c % profiles}`
    for (let i = 0; i < perClient; i++) {
      const cmd = { op: 'profile.update', id, patch: { role: `角色修改 ${counter++}` } }
      const t = performance.now()
      const reply = await server.api.command(cmd, agent)
      if (reply.status !== 200) throw new Error(`command failed: ${reply.status} ${reply.text}`)
      samples.push(performance.now() - t)
    }
    agent.destroy()
  }))
  const cpuPerRequest = (await server.cpu() - cpuBefore) / 1000 / samples.length
  return { ...stats(samples), serverCpuMs: Number(cpuPerRequest.toFixed(3)), load: [loadBefore, load()] }
}

async function commandBench(): Promise<void> {
  const routes = await startServer('routes', ROOT)
  let floor: Server | undefined
  try {
    await routes.ask({ do: 'seed', profiles: 100 })
    await roundTrips(routes, 4, 25, 100) // warm-up
    const replyBytes = (await routes.api.command({ op: 'profile.update', id: 'b-0', patch: { role: '回复样本' } })).body.length
    floor = await startServer('floor', String(replyBytes))
    await roundTrips(floor, 4, 25, 100) // warm-up
    console.log(`\ncommand round trip: profile.update of one text field, 100 profiles with avatars of 60 KB of data URL, fsync on, reply ${replyBytes} bytes; server in its own process`)
    console.log('clients | via HTTP p50 / p99 (server CPU/cmd, load) | store.command in-process p50 / p99 | HTTP floor p50 / p99 (server CPU/req, load) | p50 ratios: /in-process, /floor')
    for (const clients of [1, 16]) {
      const perClient = clients === 1 ? 400 : 40
      const http = await roundTrips(routes, clients, perClient, 100)
      const loadBefore = load()
      const direct = { ...stats((await routes.ask({ do: 'direct', clients, perClient })).samples as number[]), load: [loadBefore, load()] }
      const bare = await roundTrips(floor, clients, perClient, 100)
      results[`command.${clients}`] = { http, direct, floor: bare, ratio: http.p50 / direct.p50, overFloor: http.p50 / bare.p50 }
      console.log(`${String(clients).padStart(7)} | ${ms(http.p50)} / ${ms(http.p99)} (${ms(http.serverCpuMs)}, ${http.load.join('→')}) | ${ms(direct.p50)} / ${ms(direct.p99)} (${direct.load.join('→')}) | ${ms(bare.p50)} / ${ms(bare.p99)} (${ms(bare.serverCpuMs)}, ${bare.load.join('→')}) | ${(http.p50 / direct.p50).toFixed(2)}×, ${(http.p50 / bare.p50).toFixed(2)}×`)
    }
  } finally {
    await floor?.close()
    await routes.close()
  }
}

async function stateBench(): Promise<void> {
  console.log('\nGET /__ap/state, profiles with avatars of 60 KB of data URL')
  console.log('profiles | bytes (avatar URLs) | bytes if avatars were inlined | ratio | first GET after a change | repeat GET p50')
  for (const n of [10, 100]) {
    const server = await startServer('routes', ROOT)
    try {
      const inline = (await server.ask({ do: 'seed', profiles: n })).inlineBytes as number
      const firsts: number[] = []
      const repeats: number[] = []
      let bytes = 0
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      for (let round = 0; round < 30; round++) {
        await server.api.command({ op: 'profile.update', id: 'b-0', patch: { role: `改动 ${round}` } }, agent)
        let t = performance.now()
        const first = await server.api.get('/__ap/state', {}, agent)
        firsts.push(performance.now() - t)
        bytes = first.body.length
        for (let k = 0; k < 10; k++) {
          t = performance.now()
          await server.api.get('/__ap/state', {}, agent)
          repeats.push(performance.now() - t)
        }
      }
      agent.destroy()
      results[`state.${n}`] = { bytes, inlineBytes: inline, firstGet: stats(firsts), repeatGet: stats(repeats) }
      console.log(`${String(n).padStart(8)} | ${String(bytes).padStart(19)} | ${String(inline).padStart(29)} | ${(inline / bytes).toFixed(0)}× | ${ms(stats(firsts).p50).padStart(24)} | ${ms(stats(repeats).p50)}`)
    } finally {
      await server.close()
    }
  }
}

await commandBench()
await stateBench()
writeFileSync(join(ROOT, 'routes.json'), `${JSON.stringify(results, null, 2)}\n`)
