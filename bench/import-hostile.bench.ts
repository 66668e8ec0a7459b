/**
 * Hostile-import benchmark: for each crafted file of the "files from the internet must not freeze or crash dsh"
 * report, how long `profiles.importFiles` takes on the real `dsh web` and the worst wait of a `GET /__ap/state` probe
 * running beside it (how long every open page and conversation waited). Medians of BENCH_RUNS runs (default 3; a case
 * that takes over 5 s runs once). The host runs with a 2 GiB heap so a case that would eat the machine's memory is
 * killed by V8 instead (reported as "killed", and the host is booted again for the next case). Run the same file in a
 * checkout of an older commit (with its dist built) for the "before" column.
 */
import { performance } from 'node:perf_hooks'
import { HOSTILE_CASES } from '../test/support/hostile-files.ts'
import { makeHome, startWeb, type Home, type Web } from '../test/support/dsh.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'

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
async function once(w: Web, files: unknown[]): Promise<{ ms: number; worst: number; status: number } | { failed: string }> {
  let running = true
  let worst = 0
  const probe = (async () => {
    while (running) {
      const started = performance.now()
      // A probe that fails (the host closed the connection, or died) waited as long as it took to fail.
      const answered = await fetch(`${w.url}/__ap/state`, { signal: AbortSignal.timeout(CASE_TIMEOUT_MS) })
        .then((res) => res.arrayBuffer()).then(() => true, () => false)
      worst = Math.max(worst, performance.now() - started)
      if (!answered) return
      await new Promise((r) => setTimeout(r, 5))
    }
  })()
  await new Promise((r) => setTimeout(r, 20))
  const started = performance.now()
  try {
    const res = await fetch(`${w.url}/__ap/command`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'profiles.importFiles', files }), signal: AbortSignal.timeout(CASE_TIMEOUT_MS),
    })
    await res.arrayBuffer()
    const ms = performance.now() - started
    running = false
    await probe
    return { ms, worst: Math.max(worst, 0), status: res.status }
  } catch {
    running = false
    await probe
    const alive = await fetch(`${w.url}/__ap/state`).then(() => true, () => false)
    return { failed: alive ? `no answer in ${CASE_TIMEOUT_MS / 1000} s` : 'killed (the host died)' }
  }
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`)

console.log(`hostile imports on the real dsh web, medians of ${RUNS} runs (import time | probe worst wait | HTTP status)`)
let w = await boot()
for (const c of HOSTILE_CASES) {
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
  const line = failure !== undefined ? failure : `${fmt(median(times)).padStart(9)} | ${fmt(median(waits)).padStart(9)} | ${status}`
  console.log(`  ${c.name.padEnd(52)} ${line}`)
}
await web!.stop()
home?.cleanup()
await model.close()
