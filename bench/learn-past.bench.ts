/**
 * Learning from past conversations, at scale (`npm run bench -- learn-past`): BENCH_PAST_SESSIONS (default 3,000)
 * past dsh conversations kept on disk in a throwaway home (copies of two the real `dsh web` ran against the offline
 * model, bench/learn-past-home.ts), read by `POST /__ap/learn/past` on the real `dsh web`: how long the request takes,
 * and the worst wait of a `GET /__ap/state` probe sent one after another meanwhile (what every open page waits while
 * the host reads). Beside AP_BASELINE (default /work/wt/base; skipped when absent) at BENCH_PAST_BASE_SESSIONS (default
 * 300; 0 skips it), both checkouts' runs alternating: the code before reads through the host's session query, which
 * lists every kept session again for each one read, and takes hours at 3,000. Medians of BENCH_RUNS runs (default 3).
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootHost } from '../test/support/host-api.ts'
import { makeHome, startWeb, type Web } from '../test/support/dsh.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import { copyLogs, keptLogs } from './learn-past-home.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const SESSIONS = Number(process.env.BENCH_PAST_SESSIONS ?? 3000)
const BASE_SESSIONS = Number(process.env.BENCH_PAST_BASE_SESSIONS ?? 300)
const BASELINE = process.env.AP_BASELINE ?? '/work/wt/base'
const here = dirname(fileURLToPath(import.meta.url))
/** A read that takes longer than this is stopped and reported as such. */
const READ_TIMEOUT_MS = Number(process.env.BENCH_PAST_TIMEOUT_MS ?? 900_000)

const model = await startModelServer()

// Two conversations the real host ran and kept: one of two messages of the user's, one of one.
const seed = await bootHost(model)
const a = await seed.conversation()
await seed.say(a, 'I live in Qingdao and run by the sea every morning')
await seed.say(a, 'My dog is called Bao')
const b = await seed.conversation()
await seed.say(b, 'I work on a compiler in Rust')
await seed.web.stop()
const logs = keptLogs(seed.home.dir)

/** One read beside its probe: the request's time, the probe's worst wait, what it found, or how it failed. */
interface PastRun {
  ms: number
  worst: number
  found: number
  failed?: string
}

async function readOnce(w: Web): Promise<PastRun> {
  let running = true
  let worst = 0
  const probe = (async () => {
    while (running) {
      const started = performance.now()
      await fetch(`${w.url}/__ap/state`)
        .then((res) => res.arrayBuffer())
        .catch(() => undefined)
      worst = Math.max(worst, performance.now() - started)
      await new Promise((r) => setTimeout(r, 5))
    }
  })()
  await new Promise((r) => setTimeout(r, 50))
  const started = performance.now()
  try {
    const res = await fetch(`${w.url}/__ap/learn/past`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    })
    const reply = (await res.json()) as { found?: { conversations: number } }
    return { ms: performance.now() - started, worst, found: reply.found?.conversations ?? -1 }
  } catch (error) {
    return { ms: performance.now() - started, worst, found: -1, failed: String(error) }
  } finally {
    running = false
    await probe
  }
}

/** One run of checkout `root` over `count` kept conversations in a fresh home. */
async function runIn(root: string, count: number): Promise<PastRun> {
  const home = makeHome(['web'], { target: root })
  try {
    copyLogs(logs, home.dir, count)
    const web = await startWeb(home, model, { timeoutMs: 300_000 })
    try {
      // Let the host settle after its start (its own look at the kept sessions) before the probe counts.
      await new Promise((r) => setTimeout(r, 3000))
      return await readOnce(web)
    } finally {
      await web.stop()
    }
  } finally {
    home.cleanup()
  }
}

const mine = join(here, '..')
const roots = [{ name: 'this', root: mine, count: SESSIONS }]
if (existsSync(join(BASELINE, 'lib', 'learn', 'past-sessions.ts')) && BASE_SESSIONS > 0)
  roots.push({ name: 'this', root: mine, count: BASE_SESSIONS }, { name: 'base', root: BASELINE, count: BASE_SESSIONS })
const runs = roots.map((): PastRun[] => [])
for (let run = 0; run < RUNS; run++) for (const [i, r] of roots.entries()) runs[i]!.push(await runIn(r.root, r.count))
seed.home.cleanup()
await model.close()

console.log(`POST /__ap/learn/past on the real dsh web, runs alternating, medians of ${RUNS}:`)
for (const [i, r] of roots.entries()) {
  const rs = runs[i]!
  const failed = rs.filter((x) => x.failed !== undefined)
  console.log(
    `  ${r.name.padEnd(4)} ${r.count} kept conversations, found ${rs.map((x) => x.found).join(', ')}; ` +
      `request ${(median(rs.map((x) => x.ms)) / 1000).toFixed(2)} s (runs: ${rs.map((x) => (x.ms / 1000).toFixed(2)).join(', ')}); ` +
      `probe worst wait ${median(rs.map((x) => x.worst)).toFixed(0)} ms (runs: ${rs.map((x) => x.worst.toFixed(0)).join(', ')})` +
      (failed.length > 0 ? `; failed: ${failed[0]!.failed}` : ''),
  )
}
if (roots.length === 3) {
  const at = (i: number, k: 'ms' | 'worst') => median(runs[i]!.map((x) => x[k]))
  console.log(
    `  this / base at ${BASE_SESSIONS} (${BASELINE}): request ${(at(1, 'ms') / at(2, 'ms')).toFixed(3)}×, ` +
      `worst wait ${(at(1, 'worst') / at(2, 'worst')).toFixed(2)}×`,
  )
}
