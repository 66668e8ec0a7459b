/**
 * The confirmed import of a large file of one's own (issue #40 item 3) on the real `dsh web`, this checkout beside a
 * baseline checkout (AP_BASELINE, default /work/wt/base; its dist built), one fresh host per run, runs alternating:
 * an own envelope of 95 profiles × 5,200 tiny items (988,000 JSON values, the most OWN_FILE_BOUNDS' 1,000,000 let
 * 95 profiles bring; 95 × 10,000 is refused before parsing). Where the host has `/__ap/import-own` the file goes
 * there and the import is timed to the end of its background batches; else (the baseline) it is the one
 * `profiles.importFiles` command with the file marked `own`. For each: the time to the end, the worst, 99th-percentile
 * and median wait of a `GET /__ap/state` probe in a process of its own (and, first, the same probe's over 10 s of the
 * host idle: what the machine's load alone makes it wait), RSS (and its parts: glibc's heaps and the other anonymous
 * memory, rss-parts.ts) and threads at the start and 5 s after the end (the import worker ends 2 s after its last
 * job), and the CPU the host still used over the next second; then the
 * host is stopped and started again on the same home (issue #40 item 3: "every later start took 31.7 s and 958 MB"
 * after the 16 MB envelope), and that start's time and RSS 5 s after it are reported. Used by import-hostile.bench.ts
 * (`--own-only`).
 */
import { loadavg } from 'node:os'
import { itemsEnvelope } from '../test/support/hostile-files.ts'
import { makeHome, startWeb, type Web } from '../test/support/dsh.ts'
import type { ModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import { performance } from 'node:perf_hooks'
import { probeHost, proc, sleep } from './hostile-bodies.ts'

const PROFILES = 95
const ITEMS = Number(process.env.BENCH_OWN_ITEMS ?? 5_200)

/** One run's figures. */
interface Figures {
  ms: number
  worst: number
  p99: number
  medianWait: number
  rssGrowth: number
  /** Of the growth: glibc's heaps (in use or kept after free), the other anonymous memory (V8's heaps above all). */
  mallocGrowth: number
  otherGrowth: number
  threadsAfter: number
  threadsBefore: number
  busy: number
  imported: number
  /** The probe's worst and p99 wait over 10 s of the same host idle, before the import: the machine's own floor. */
  idleWorst: number
  idleP99: number
  /** The first start, on the empty home (ms): what a start costs on the machine as loaded as it is. */
  firstStart: number
  /** The next start on the same home, to ready (ms), and its RSS 5 s after (MB). */
  laterStart: number
  laterRss: number
}

/** Import the own file on `w` and wait for its end; the profiles it brought. */
async function importOwn(w: Web, body: string): Promise<number> {
  const post = (path: string) =>
    fetch(`${w.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const background = (await fetch(`${w.url}/__ap/import-own`)).status === 200
  if (!background) {
    const r = (await (await post('/__ap/command')).json()) as { imported?: number; files?: { error?: unknown }[] }
    if (r.files?.[0]?.error !== undefined)
      console.log(`  the file was not imported: ${JSON.stringify(r.files[0].error)}`)
    return r.imported ?? -1
  }
  const r = await post('/__ap/import-own')
  if (r.status !== 202) throw new Error(`import-own answered ${r.status}: ${await r.text()}`)
  for (;;) {
    await sleep(200)
    const s = (
      (await (await fetch(`${w.url}/__ap/import-own`)).json()) as {
        status: { state: string; result?: { imported: number; files: { error?: unknown }[] }; error?: unknown }
      }
    ).status
    if (s.state === 'failed') console.log(`  the import failed: ${JSON.stringify(s.error)}`)
    const error = s.result?.files[0]?.error
    if (error !== undefined) console.log(`  the file was not imported: ${JSON.stringify(error)}`)
    if (s.state !== 'running') return s.result?.imported ?? -1
  }
}

async function once(model: ModelServer, target: string, body: string): Promise<Figures> {
  const home = makeHome(['web'], { target })
  // BENCH_HOST_NODE_OPTIONS adds flags to the host's Node (`--cpu-prof --cpu-prof-dir=…` to see what holds its loop).
  const options = `--max-old-space-size=2048 ${process.env.BENCH_HOST_NODE_OPTIONS ?? ''}`.trim()
  const first = performance.now()
  let w = await startWeb(home, model, { env: { NODE_OPTIONS: options }, timeoutMs: 300_000 })
  const firstStart = performance.now() - first
  try {
    const idle = await probeHost(w, () => sleep(10_000))
    const f = await probeHost(w, () => importOwn(w, body))
    await w.stop()
    const t = performance.now()
    w = await startWeb(home, model, { env: { NODE_OPTIONS: options }, timeoutMs: 300_000 })
    const laterStart = performance.now() - t
    await sleep(5000)
    return {
      idleWorst: idle.worst,
      idleP99: idle.p99,
      firstStart,
      laterStart,
      laterRss: proc(w.pid).rss,
      ms: f.ms,
      worst: f.worst,
      p99: f.p99,
      medianWait: f.median,
      rssGrowth: f.after.rss - f.start.rss,
      mallocGrowth: f.after.parts.malloc - f.start.parts.malloc,
      otherGrowth: f.after.parts.other - f.start.parts.other,
      threadsBefore: f.start.threads,
      threadsAfter: f.after.threads,
      busy: f.busy,
      imported: f.result,
    }
  } finally {
    await w.stop()
    home.cleanup()
  }
}

/** Run the case `runs` times on each checkout, alternating, and print medians and ratios. */
export async function benchOwnImport(model: ModelServer, runs: number): Promise<void> {
  const baseline = process.env.AP_BASELINE ?? '/work/wt/base'
  const text = itemsEnvelope(PROFILES, ITEMS)
  const body = JSON.stringify({
    op: 'profiles.importFiles',
    files: [{ name: 'mine.json', format: 'envelope', text, own: true }],
  })
  console.log(
    `\nown envelope ${(text.length / 1e6).toFixed(1)} MB, ${PROFILES} x ${ITEMS} items, confirmed; this checkout vs ${baseline}; ` +
      `${runs} runs each, alternating; load average at start ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  )
  const sides = { this: [] as Figures[], base: [] as Figures[] }
  for (let i = 0; i < runs; i++) {
    for (const [name, target] of [
      ['this', undefined],
      ['base', baseline],
    ] as const) {
      const f = await once(model, target ?? process.cwd(), body)
      sides[name].push(f)
      console.log(
        `  run ${i + 1} ${name.padEnd(4)} imported ${f.imported} | ${(f.ms / 1000).toFixed(1)} s | wait worst ${f.worst.toFixed(0)} p99 ${f.p99.toFixed(0)} median ${f.medianWait.toFixed(0)} ms` +
          ` (idle host: worst ${f.idleWorst.toFixed(0)} p99 ${f.idleP99.toFixed(0)})` +
          ` | RSS +${f.rssGrowth.toFixed(0)} MB 5 s after (glibc +${f.mallocGrowth.toFixed(0)}, other anon +${f.otherGrowth.toFixed(0)}) | threads ${f.threadsBefore} -> ${f.threadsAfter} | CPU after ${f.busy.toFixed(0)}%` +
          ` | first start ${(f.firstStart / 1000).toFixed(1)} s, next ${(f.laterStart / 1000).toFixed(1)} s, RSS ${f.laterRss.toFixed(0)} MB 5 s after | load ${loadavg()[0]!.toFixed(1)}`,
      )
    }
  }
  const med = (side: Figures[], k: keyof Figures) => median(side.map((f) => f[k]))
  for (const k of [
    'ms',
    'worst',
    'p99',
    'medianWait',
    'idleWorst',
    'idleP99',
    'rssGrowth',
    'mallocGrowth',
    'otherGrowth',
    'threadsAfter',
    'firstStart',
    'laterStart',
    'laterRss',
  ] as const) {
    const a = med(sides.this, k)
    const b = med(sides.base, k)
    console.log(
      `  median ${k.padEnd(12)} this ${a.toFixed(1)} | base ${b.toFixed(1)} | this/base ${(a / b).toFixed(2)}`,
    )
  }
}
