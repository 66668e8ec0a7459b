/**
 * Benchmark of `/__ap/*` as the product runs it: the server (createHandler over node:http with the real store, fsync
 * on, and renderer) is its own process, as dsh is (bench/routes-server.ts is the server half). Figures:
 *  - command round trip (`profile.update` of one text field, each to a new value) p50/p99 with 1 and 16 concurrent
 *    clients, driven by wrk (Debian package `wrk`) with bench/routes-command.lua: a C load generator whose own CPU is a
 *    small fraction of the server's, so on this 2-core machine the clients do not starve the server they measure (a
 *    node:http client spent as much CPU per request as the server did, which decided the figure). Beside it two
 *    baselines: the same command called in-process on the server's store (the ratio is the cost of HTTP + routes),
 *    and an HTTP floor: the same wrk load on a server process that answers a reply of the same size doing nothing
 *    else. Each row also gives the server's CPU time per command. Every row is run ROUNDS times, interleaved, and the
 *    median of the rounds is printed with their range, since the machine is shared;
 *  - `GET /__ap/state` size and time with 10 and 100 profiles with avatars, against the size the same state would have
 *    with every avatar inlined as a data URL (the baseline the avatar route replaces).
 * Run: `npm run bench routes` (which installs wrk when it may), or `node --experimental-strip-types
 * bench/routes.bench.ts`. With `ROUTES_BENCH_PROF=<dir>` the routes server writes a V8 CPU profile there (`--cpu-prof`).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startServer, type Server } from './routes-process.ts'

// On the checkout's own disk (not a tmpfs), so fsync costs what it costs for a user.
const ROOT = join(fileURLToPath(import.meta.url), '..', 'results')
mkdirSync(ROOT, { recursive: true })
/** The code before this store (a checkout of it), measured beside this one when it is there: `AP_BASELINE=<dir>`. */
const BASELINE = process.env.AP_BASELINE ?? '/work/wt/sqlite-baseline'
const BASELINE_SERVER = join(BASELINE, 'bench', 'routes-server.ts')
const WRK_SCRIPT = join(fileURLToPath(import.meta.url), '..', 'routes-command.lua')
const PROFILE_DIR = process.env.ROUTES_BENCH_PROF
const routesProfile = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`]
const PROFILES = 100
const ROUNDS = 3
const SECONDS = 4

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function stats(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), n: s.length }
}

const ms = (x: number): string => `${x.toFixed(2)} ms`
const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  )

/** Every figure printed, also written to bench/results/routes.json. */
const results: Record<string, unknown> = { node: process.version }

/** What one wrk run measured: latency percentiles (ms), requests, and the server's CPU per request (ms). */
interface LoadRun {
  p50: number
  p90: number
  p99: number
  max: number
  n: number
  serverCpuMs: number
}

const execFileAsync = promisify(execFile)

/** `clients` wrk connections, each with one request in flight, for `seconds`. */
async function wrk(server: Server, clients: number, seconds: number): Promise<LoadRun> {
  const cpuBefore = await server.cpu()
  const { stdout } = await execFileAsync('wrk', [
    '-t1',
    `-c${clients}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    WRK_SCRIPT,
    `http://127.0.0.1:${server.port}`,
    '--',
    String(PROFILES),
  ]).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ENOENT'
      ? new Error('wrk is not installed (Debian: apt-get install wrk; `npm run bench` installs it when run as root)')
      : e
  })
  const line = stdout.split('\n').find((l) => l.startsWith('{"n"'))
  if (line === undefined) throw new Error(`wrk printed no result:\n${stdout}`)
  const r = JSON.parse(line) as Omit<LoadRun, 'serverCpuMs'> & { errors: number }
  if (r.errors > 0 || r.n === 0) throw new Error(`wrk: ${r.errors} failed requests of ${r.n}`)
  const serverCpuMs = ((await server.cpu()) - cpuBefore) / 1000 / r.n
  return { p50: r.p50, p90: r.p90, p99: r.p99, max: r.max, n: r.n, serverCpuMs }
}

/** Median of each figure over the rounds, and the range of p50 and p99. */
function summary(rounds: LoadRun[]) {
  const of = (k: keyof LoadRun) => median(rounds.map((r) => r[k]))
  return {
    p50: of('p50'),
    p99: of('p99'),
    serverCpuMs: of('serverCpuMs'),
    n: rounds.reduce((a, r) => a + r.n, 0),
    p50Range: [Math.min(...rounds.map((r) => r.p50)), Math.max(...rounds.map((r) => r.p50))],
    p99Range: [Math.min(...rounds.map((r) => r.p99)), Math.max(...rounds.map((r) => r.p99))],
    rounds,
  }
}

async function commandBench(): Promise<void> {
  const routes = await startServer('routes', ROOT, { execArgv: routesProfile })
  let floor: Server | undefined
  let before: Server | undefined
  try {
    await routes.ask({ do: 'seed', profiles: PROFILES })
    if (existsSync(BASELINE_SERVER)) {
      mkdirSync(join(ROOT, 'before'), { recursive: true })
      before = await startServer('routes', join(ROOT, 'before'), { script: BASELINE_SERVER, execArgv: routesProfile })
      await before.ask({ do: 'seed', profiles: PROFILES })
      await wrk(before, 16, 1)
    }
    const replyBytes = (await routes.api.command({ op: 'profile.update', id: 'b-0', patch: { role: '回复样本' } })).body
      .length
    floor = await startServer('floor', String(replyBytes))
    await wrk(routes, 16, 1) // warm-up
    await wrk(floor, 16, 1)
    console.log(
      `\ncommand round trip: profile.update of one text field, ${PROFILES} profiles with avatars of 60 KB of data URL, fsync on, reply ${replyBytes} bytes; server in its own process, load from wrk; median of ${ROUNDS} rounds of ${SECONDS} s [range]`,
    )
    console.log(
      'clients | via HTTP p50 / p99 (server CPU/cmd) | store.command in-process p50 / p99 | HTTP floor p50 / p99 (server CPU/req) | p50 ratios: /in-process, /floor',
    )
    for (const clients of [1, 16]) {
      const http: LoadRun[] = []
      const bare: LoadRun[] = []
      const direct: number[] = []
      const old: LoadRun[] = []
      for (let round = 0; round < ROUNDS; round++) {
        if (before !== undefined) old.push(await wrk(before, clients, SECONDS))
        http.push(await wrk(routes, clients, SECONDS))
        bare.push(await wrk(floor, clients, SECONDS))
        direct.push(
          ...((await routes.ask({ do: 'direct', clients, perClient: clients === 1 ? 400 : 40 })).samples as number[]),
        )
      }
      const h = summary(http)
      const f = summary(bare)
      const d = stats(direct)
      results[`command.${clients}`] = { http: h, direct: d, floor: f, ratio: h.p50 / d.p50, overFloor: h.p50 / f.p50 }
      const range = (r: number[]) => `[${r.map((x) => x.toFixed(2)).join('–')}]`
      console.log(
        `${String(clients).padStart(7)} | ${ms(h.p50)} ${range(h.p50Range)} / ${ms(h.p99)} ${range(h.p99Range)} (${ms(h.serverCpuMs)}) | ${ms(d.p50)} / ${ms(d.p99)} | ${ms(f.p50)} / ${ms(f.p99)} (${ms(f.serverCpuMs)}) | ${(h.p50 / d.p50).toFixed(2)}×, ${(h.p50 / f.p50).toFixed(2)}×`,
      )
      if (old.length > 0) {
        const o = summary(old)
        results[`command.${clients}.before`] = o
        console.log(
          `        | the code before, via HTTP, same rounds: ${ms(o.p50)} ${range(o.p50Range)} / ${ms(o.p99)} ${range(o.p99Range)} (${ms(o.serverCpuMs)}); this / before p50 ${(h.p50 / o.p50).toFixed(2)}×, p99 ${(h.p99 / o.p99).toFixed(2)}×`,
        )
      }
    }
  } finally {
    await before?.close()
    await floor?.close()
    await routes.close()
  }
}

async function stateBench(): Promise<void> {
  console.log('\nGET /__ap/state, profiles with avatars of 60 KB of data URL')
  console.log(
    'profiles | bytes (avatar URLs) | bytes if avatars were inlined | ratio | first GET after a change | repeat GET p50',
  )
  for (const n of [10, 100]) {
    const server = await startServer('routes', ROOT, { execArgv: routesProfile })
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
      console.log(
        `${String(n).padStart(8)} | ${String(bytes).padStart(19)} | ${String(inline).padStart(29)} | ${(inline / bytes).toFixed(0)}× | ${ms(stats(firsts).p50).padStart(24)} | ${ms(stats(repeats).p50)}`,
      )
    } finally {
      await server.close()
    }
  }
}

await commandBench()
await stateBench()
writeFileSync(join(ROOT, 'routes.json'), `${JSON.stringify(results, null, 2)}\n`)
