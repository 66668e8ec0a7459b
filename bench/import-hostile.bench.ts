/**
 * Hostile-import benchmark: for each crafted file of the "files from the internet must not freeze or crash dsh"
 * report, how long `profiles.importFiles` takes on the real `dsh web` and the worst wait of a `GET /__ap/state` probe
 * running beside it (how long every open page and conversation waited). Medians of BENCH_RUNS runs (default 3; a case
 * that takes over 5 s runs once). The host runs with a 2 GiB heap so a case that would eat the machine's memory is
 * killed by V8 instead (reported as "killed", and the host is booted again for the next case). Then the largest file
 * each reader accepts (`--no-largest` leaves them out, `--largest-only` runs only them), and last the command alone
 * in this process (the fastest run, least moved by other load). Run the same file in a checkout of an older commit
 * (with its dist built) for the "before" column. */
import { performance } from 'node:perf_hooks'
import { HOSTILE_CASES, binaryFile, textFile } from '../test/support/hostile-files.ts'
import { chunk, png } from '../test/support/png.ts'
import { makeHome, startWeb, type Home, type Web } from '../test/support/dsh.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import { applyCommand } from '../lib/commands/dispatch.ts'
import { factoryState } from '../lib/state/defaults.ts'
import { benchBodies } from './hostile-bodies.ts'
import { benchOwnImport } from './own-import.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
/** Longest one import may take before it counts as frozen and the host is restarted. */
const CASE_TIMEOUT_MS = Number(process.env.BENCH_CASE_TIMEOUT_MS ?? 60_000)

const model = await startModelServer()
let home: Home | undefined
let web: Web | undefined

async function boot(): Promise<Web> {
  home?.cleanup()
  home = makeHome(['web'])
  web = await startWeb(home, model, { env: { NODE_OPTIONS: '--max-old-space-size=2048' } })
  return web
}

/** One import of `files` with a probe beside it: its time, the probe's worst wait, or how it failed. */
async function once(
  w: Web,
  files: unknown[],
): Promise<{ ms: number; worst: number; status: number } | { failed: string }> {
  // Serialised before the probe starts: this process's own stall over a 27 MB JSON.stringify would count as the host's.
  const body = Buffer.from(JSON.stringify({ op: 'profiles.importFiles', files }))
  let running = true
  let worst = 0
  const probe = (async () => {
    while (running) {
      const started = performance.now()
      // A probe that fails (the host closed the connection, or died) waited as long as it took to fail.
      const answered = await fetch(`${w.url}/__ap/state`, { signal: AbortSignal.timeout(CASE_TIMEOUT_MS) })
        .then((res) => res.arrayBuffer())
        .then(
          () => true,
          () => false,
        )
      worst = Math.max(worst, performance.now() - started)
      if (!answered) return
      await new Promise((r) => setTimeout(r, 5))
    }
  })()
  await new Promise((r) => setTimeout(r, 20))
  const started = performance.now()
  try {
    const res = await fetch(`${w.url}/__ap/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(CASE_TIMEOUT_MS),
    })
    await res.arrayBuffer()
    const ms = performance.now() - started
    running = false
    await probe
    return { ms, worst: Math.max(worst, 0), status: res.status }
  } catch {
    running = false
    await probe
    const alive = await fetch(`${w.url}/__ap/state`).then(
      () => true,
      () => false,
    )
    return { failed: alive ? `no answer in ${CASE_TIMEOUT_MS / 1000} s` : 'killed (the host died)' }
  }
}

/**
 * The largest files each reader accepts, for what an accepted file costs at most: card JSON just under its count of
 * values, one of 4 M characters of text, Markdown just under its line count, front matter just under its size (a
 * flow list, YAML's slowest shape), and a 20 MB PNG card. Present only in checkouts that have these limits.
 */
const LARGEST: { name: string; file: () => unknown }[] = [
  {
    name: 'largest accepted: card of 99,000 JSON values',
    file: () =>
      textFile(
        'values.json',
        JSON.stringify({
          spec: 'chara_card_v2',
          spec_version: '2.0',
          data: {
            name: 'Values',
            description: 'x',
            character_book: {
              entries: Array.from({ length: 19_750 }, (_, i) => ({
                content: `entry ${i}`,
                keys: ['k'],
                enabled: true,
              })),
            },
          },
        }),
        'card',
      ),
  },
  {
    name: 'largest accepted: card of 4 M characters of text',
    file: () =>
      textFile(
        'text.json',
        JSON.stringify({
          spec: 'chara_card_v2',
          spec_version: '2.0',
          data: { name: 'Text', description: 'y'.repeat(4_100_000) },
        }),
        'card',
      ),
  },
  {
    name: 'largest accepted: Markdown of 19,990 lines',
    file: () => textFile('lines.md', `## Memory\n${'- a fact\n'.repeat(19_990)}`),
  },
  {
    name: 'largest accepted: front matter of 16 KiB (a flow list)',
    file: () =>
      textFile('front.md', `---\ntools: [${Array.from({ length: 2_300 }, (_, i) => `t${i}`).join(', ')}]\n---\nbody\n`),
  },
  { name: 'largest accepted: 20 MB PNG card', file: () => binaryFile('big.png', bigPngCard()) },
]

/** A PNG card of about 20 MB: 19 MB of image data in 1 MB chunks, the card after them. */
function bigPngCard(): Buffer {
  const pic = png(64, 64, 3)
  const noise = Array.from({ length: 19 }, (_, i) => chunk('IDAT', Buffer.alloc(1024 * 1024 - 12, i)))
  return Buffer.concat([
    pic.subarray(0, 33),
    ...noise,
    pic.subarray(33, -12),
    chunk(
      'tEXt',
      Buffer.from(
        `chara\0${Buffer.from(JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Big', description: 'a big picture' } })).toString('base64')}`,
        'latin1',
      ),
    ),
    pic.subarray(-12),
  ])
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`)

/** A new home and how to start `dsh web` on it, for a case that needs a host of its own. */
function freshHost(): { home: Home; start: () => Promise<Web> } {
  const h = makeHome(['web'])
  return {
    home: h,
    start: () => startWeb(h, model, { env: { NODE_OPTIONS: '--max-old-space-size=2048' }, timeoutMs: 300_000 }),
  }
}

// `--own-only` (or BENCH_OWN_ONLY=1): only the confirmed import of a large own file, this checkout beside AP_BASELINE.
if (process.argv.includes('--own-only') || process.env.BENCH_OWN_ONLY === '1') {
  await benchOwnImport(model, RUNS)
  await model.close()
  process.exit(0)
}

// `--bodies-only` (or BENCH_BODIES_ONLY=1 through npm run bench): only the cases of issue #40 (hostile-bodies.ts), each on a fresh host.
if (process.argv.includes('--bodies-only') || process.env.BENCH_BODIES_ONLY === '1') {
  await benchBodies(model, freshHost, Math.max(CASE_TIMEOUT_MS, 180_000))
  await model.close()
  process.exit(0)
}

console.log(
  `hostile imports on the real dsh web, medians of ${RUNS} runs (import time | probe worst wait | HTTP status)`,
)
/** Cases that killed, froze or took seconds on the host: not run again in this process. */
const slow = new Set<string>()
let w = await boot()
const cases = [
  ...(process.argv.includes('--largest-only') ? [] : HOSTILE_CASES),
  ...(process.argv.includes('--no-largest') ? [] : LARGEST),
]
for (const c of cases) {
  const files = [c.file()]
  const times: number[] = []
  const waits: number[] = []
  let status = 0
  let failure: string | undefined
  for (let i = 0; i < RUNS; i++) {
    const r = await once(w, files)
    if ('failed' in r) {
      failure = r.failed
      await web!.stop()
      w = await boot()
      break
    }
    times.push(r.ms)
    waits.push(r.worst)
    status = r.status
    if (r.ms > 5_000) break
  }
  if (failure !== undefined || times.some((ms) => ms > 5_000)) slow.add(c.name)
  const line =
    failure !== undefined
      ? failure
      : `${fmt(median(times)).padStart(9)} | ${fmt(median(waits)).padStart(9)} | ${status}`
  console.log(`  ${c.name.padEnd(52)} ${line}`)
}
await web!.stop()
home?.cleanup()
if (!process.argv.includes('--largest-only')) {
  await benchBodies(model, freshHost, Math.max(CASE_TIMEOUT_MS, 180_000))
  await benchOwnImport(model, RUNS)
}
await model.close()

// The command alone, in this process (no HTTP, no disk): the fastest of BENCH_RUNS + 4 runs, the figure least moved
// by other load on the machine, for what the import code itself costs the event loop.
console.log(`\nthe command alone in-process, fastest of ${RUNS + 4} runs`)
let ids = 0
const ctx = { now: 1_700_000_000_000, newId: (prefix: string) => `${prefix}${++ids}` }
for (const c of cases) {
  if (slow.has(c.name)) {
    console.log(`  ${c.name.padEnd(52)} (not run: see above)`)
    continue
  }
  const cmd = { op: 'profiles.importFiles', files: [c.file()] }
  const times: number[] = []
  for (let i = 0; i < RUNS + 4; i++) {
    const started = performance.now()
    try {
      applyCommand(factoryState(ctx.now), cmd, ctx)
    } catch {
      // A refusal is an outcome like any other here.
    }
    times.push(performance.now() - started)
  }
  console.log(`  ${c.name.padEnd(52)} ${fmt(Math.min(...times)).padStart(9)}`)
}
