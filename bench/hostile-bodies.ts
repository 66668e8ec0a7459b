/**
 * The request bodies and the large file of issue #40 against the real `dsh web`, one fresh host per case: the 16 MB
 * envelope of 95 × 10,000 items (then how long the next start takes), a 46 MB body of nested arrays, a 4.5 MB body of
 * 1.5 million `{}`, and four nested bodies at once. For each: the HTTP status and time, the worst wait of a
 * `GET /__ap/state` probe beside it (what every page and conversation waited), and 5 s after the answer the host's
 * memory against where it started (VmRSS), its thread count against where it started, and the CPU it still used over
 * the next second (a parse that goes on after its answer keeps a core busy): `probeHost`, which own-import.ts uses
 * too. Used by import-hostile.bench.ts.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { itemsEnvelope } from '../test/support/hostile-files.ts'
import { startWeb, type Home, type Web } from '../test/support/dsh.ts'
import type { ModelServer } from '../test/support/model-server.ts'
import { rssParts, type RssParts } from './rss-parts.ts'

/** One case: the bodies sent at once, and whether the host's next start is timed after it. */
interface BodyCase {
  name: string
  bodies: () => Buffer<ArrayBuffer>[]
  restart?: boolean
}

const nested = (): Buffer<ArrayBuffer> =>
  Buffer.from(`{"op":"sessions.clearAll","x":[${`${'['.repeat(1000)}${']'.repeat(1000)},`.repeat(23_000)}0]}`)

/** The cases of issue #40 items 3 and 4. */
export const BODY_CASES: BodyCase[] = [
  {
    name: '16 MB envelope, 95 profiles x 10,000 items',
    bodies: () => [
      Buffer.from(
        JSON.stringify({
          op: 'profiles.importFiles',
          files: [{ name: 'huge.json', format: 'envelope', text: itemsEnvelope(95, 10_000) }],
        }),
      ),
    ],
    restart: true,
  },
  { name: '46 MB body of nested arrays', bodies: () => [nested()] },
  {
    name: '4.5 MB body of 1.5 million {}',
    bodies: () => [Buffer.from(`{"op":"profiles.importFiles","files":[${'{},'.repeat(1_500_000)}{}]}`)],
  },
  { name: 'four 46 MB nested bodies at once', bodies: () => [nested(), nested(), nested(), nested()] },
]

/** VmRSS (MB) and thread count of a process. */
export function proc(pid: number): { rss: number; threads: number; parts: RssParts } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: field('VmRSS') / 1024, threads: field('Threads'), parts: rssParts(pid) }
}

/** CPU time (ms) the process used so far, all threads. */
function cpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/**
 * A `GET` probe of `url` in a process of its own, so that what it waits is the host's wait and not this process's
 * (sending a 46 MB body stalls the sender's own event loop); the function it gives stops it and answers its waits:
 * the worst, the 99th percentile and the median of every request it sent.
 */
function startProbe(url: string): { ready: Promise<void>; stop: () => Promise<ProbeWaits> } {
  const code = `let running = true
const waits = []
process.stdin.on('data', () => {}).on('end', () => { running = false })
;(async () => {
  // One request first, not counted: this process's own first fetch loads its HTTP client and connects.
  try { await (await fetch(${JSON.stringify(url)})).arrayBuffer() } catch {}
  process.stderr.write('R')
  while (running) {
    const t = performance.now()
    try { await (await fetch(${JSON.stringify(url)})).arrayBuffer() } catch {}
    waits.push(performance.now() - t)
    await new Promise((r) => setTimeout(r, 5))
  }
  waits.sort((a, b) => a - b)
  const at = (q) => waits.length === 0 ? 0 : waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]
  process.stdout.write(JSON.stringify({ worst: waits.at(-1) ?? 0, p99: at(0.99), median: at(0.5), n: waits.length }))
})()`
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d))
  const ready = new Promise<void>((r) => child.stderr.once('data', () => r()))
  const done = new Promise<void>((r) => child.on('close', () => r()))
  const stop = async (): Promise<ProbeWaits> => {
    child.stdin.end()
    await done
    return JSON.parse(out) as ProbeWaits
  }
  return { ready, stop }
}

/** The waits of the probe's requests, in ms. */
interface ProbeWaits {
  worst: number
  p99: number
  median: number
  n: number
}

/** Wait `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`)

/** What the host did over one measured piece of work (see {@link probeHost}). */
interface HostFigures<T> {
  result: T
  ms: number
  worst: number
  /** The probe's 99th-percentile and median wait. */
  p99: number
  median: number
  start: ReturnType<typeof proc>
  after: ReturnType<typeof proc>
  busy: number
}

/**
 * Measure host `w` over `work`: let a host just booted settle (its first requests, its store's first reads), read its
 * memory and threads, start the state probe, run `work`; then the probe's worst wait, the memory and threads 5 s after
 * the end (the import worker ends 2 s after its last job), and the CPU it still used over the next second (a parse
 * that goes on after its answer keeps a core busy).
 */
export async function probeHost<T>(w: Web, work: () => Promise<T>): Promise<HostFigures<T>> {
  await sleep(3000)
  const start = proc(w.pid)
  const probe = startProbe(`${w.url}/__ap/state`)
  await probe.ready
  await sleep(50)
  const t0 = performance.now()
  const result = await work()
  const ms = performance.now() - t0
  const { worst, p99, median } = await probe.stop()
  await sleep(5000)
  const after = proc(w.pid)
  const c0 = cpu(w.pid)
  await sleep(1000)
  return { result, ms, worst, p99, median, start, after, busy: (cpu(w.pid) - c0) / 10 }
}

/** One case on a host just booted: its line of figures. */
async function run(w: Web, c: BodyCase, timeoutMs: number, restart: () => Promise<number>): Promise<string> {
  const bodies = c.bodies()
  const {
    result: statuses,
    ms,
    worst,
    start,
    after,
    busy,
  } = await probeHost(w, () =>
    Promise.all(
      bodies.map((body) =>
        fetch(`${w.url}/__ap/command`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        }).then(
          async (r) => {
            await r.arrayBuffer()
            return String(r.status)
          },
          // A body refused early is answered, then its connection closed while the rest is still being sent.
          () => 'reset',
        ),
      ),
    ),
  )
  const next = c.restart === true ? ` | next start ${fmt(await restart())}` : ''
  return (
    `${[...new Set(statuses)].join('/').padStart(9)} | ${fmt(ms).padStart(8)} | worst wait ${fmt(worst).padStart(8)}` +
    ` | RSS ${start.rss.toFixed(0)} -> ${after.rss.toFixed(0)} MB (${after.rss - start.rss >= 0 ? '+' : ''}${(after.rss - start.rss).toFixed(0)})` +
    ` | threads ${start.threads} -> ${after.threads} | CPU after ${busy.toFixed(0)}%${next}`
  )
}

/** Run every body case on its own fresh host (made by `fresh`), printing a line each. */
export async function benchBodies(
  model: ModelServer,
  fresh: () => { home: Home; start: () => Promise<Web> },
  timeoutMs: number,
): Promise<void> {
  console.log(
    '\nissue #40 bodies and large file, one fresh host each (status | time | probe worst wait | RSS start -> 5 s after | threads | CPU in the next second)',
  )
  for (const c of BODY_CASES) {
    const { home, start } = fresh()
    const booted = performance.now()
    let w = await start()
    const boot = performance.now() - booted
    const restart = async (): Promise<number> => {
      await w.stop()
      const t = performance.now()
      w = await startWeb(home, model, { env: { NODE_OPTIONS: '--max-old-space-size=2048' }, timeoutMs: 300_000 })
      return performance.now() - t
    }
    try {
      const line = await run(w, c, timeoutMs, restart)
      console.log(`  ${c.name.padEnd(44)} ${line}${c.restart === true ? ` (first start ${fmt(boot)})` : ''}`)
    } catch (e) {
      console.log(`  ${c.name.padEnd(44)} failed: ${String(e)}`)
    }
    await w.stop()
    home.cleanup()
  }
}
