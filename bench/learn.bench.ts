/**
 * Learning benchmark (`npm run bench -- learn`): a ChatGPT export of about 200 MB (the fixtures of
 * test/support/learn-exports.ts, zipped as the service mails it) read in the real import worker under its memory
 * limits, each read in a fresh process (bench/learn-read.ts), this checkout's runs alternating with those of
 * AP_BASELINE (checkouts of the code before, separated by `:`, default /work/wt/base; each skipped when absent, named
 * by its folder) — how long it takes, the
 * process's peak resident memory, whether it stays within the worker's 384 MB heap (a read past it ends the thread and
 * is reported as too big), and the worst wait of a timer on the host's event loop until the answer has arrived (what
 * every page's state probe would wait; beside it, the same probe in a process that reads nothing, for as long: what
 * the load alone makes it wait), what the host's heap holds while it keeps the read (used and objects, after a
 * full collection), and the plan of learning from every conversation and a pick by a word none names (both on the host's
 * event loop: their time and the probe's worst wait meanwhile) — then the plan of learning from it: calls, the largest material of a call against the
 * extraction's bound, and the estimate of tokens against the tokens of the requests as the run builds them.
 * Medians of BENCH_RUNS runs (default 3).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WORKER_LIMITS } from '../lib/http/import-pool.ts'
import { readExport } from '../lib/learn/export-read.ts'
import { planLearning } from '../lib/learn/run/plan.ts'
import { EXTRACTION_SYSTEM, extractionRequest } from '../lib/memory/job.ts'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { approxTokens } from '../lib/prompt/tokens.ts'
import { chatGptExport, streamedZip } from '../test/support/learn-exports.ts'
import { median } from '../test/support/stats.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const BASELINE = process.env.AP_BASELINE ?? '/work/wt/base'
const here = dirname(fileURLToPath(import.meta.url))
const TARGET_BYTES = Number(process.env.BENCH_LEARN_BYTES ?? 200 * 1024 * 1024)

/** The export's conversations.json in pieces of 1,000 conversations, until TARGET_BYTES. */
function* pieces(): Generator<string> {
  let bytes = 1
  let seed = 1
  yield '['
  let first = true
  while (bytes < TARGET_BYTES) {
    const batch = chatGptExport(1_000, seed++).conversations.map((c) => JSON.stringify(c))
    const text = (first ? '' : ',') + batch.join(',')
    first = false
    bytes += Buffer.byteLength(text)
    yield text
  }
  yield ']'
}

let jsonBytes = 0
const zip = await streamedZip(
  'conversations.json',
  (function* () {
    for (const p of pieces()) {
      jsonBytes += Buffer.byteLength(p)
      yield p
    }
  })(),
)
console.log(
  `export: conversations.json ${(jsonBytes / 1048576).toFixed(0)} MB, zip ${(zip.length / 1048576).toFixed(1)} MB`,
)

/** One read in a fresh process of `root`'s import worker (bench/learn-read.ts). */
interface ReadRun {
  ms: number
  wait: number
  peakMb: number
  beforeMb: number
  heldMb: number
  heldObjects: number
  conversations: number
  messages: number
  plan: { ms: number; wait: number }
  pick: { ms: number; wait: number }
  error?: unknown
}

function readIn(root: string): ReadRun {
  const run = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', join(here, 'learn-read.ts'), root, zipFile],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  )
  const line = run.stdout.trim().split('\n').pop() ?? ''
  if (run.status !== 0 || !line.startsWith('{')) throw new Error(`read in ${root} failed: ${run.stderr.slice(-2000)}`)
  const r = JSON.parse(line) as ReadRun
  if (r.error !== undefined) throw new Error(`${root} refused the export: ${JSON.stringify(r.error)}`)
  return r
}

/** The probe alone for `ms` in a fresh process (bench/learn-idle.ts): what the load alone makes it wait. */
function idleWait(ms: number): number {
  const run = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', join(here, 'learn-idle.ts'), String(Math.round(ms))],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`the idle probe failed: ${run.stderr.slice(-2000)}`)
  return (JSON.parse(run.stdout.trim().split('\n').pop()!) as { wait: number }).wait
}

const zipFile = join(mkdtempSync(join(tmpdir(), 'ap-learn-bench-')), 'export.zip')
writeFileSync(zipFile, zip)
const roots = [{ name: 'this', root: join(here, '..') }]
for (const root of BASELINE.split(':'))
  if (existsSync(join(root, 'lib', 'learn', 'export-read.ts'))) roots.push({ name: basename(root), root })
const runs = new Map<string, ReadRun[]>(roots.map((r) => [r.name, []]))
/** The probe's worst wait in a process that reads nothing, as long as each round's read of this checkout took. */
const idle: number[] = []
for (let run = 0; run < RUNS; run++) {
  for (const r of roots) runs.get(r.name)!.push(readIn(r.root))
  idle.push(idleWait(runs.get('this')!.at(-1)!.ms))
}
rmSync(dirname(zipFile), { recursive: true, force: true })

console.log(
  `read in the worker (heap ${WORKER_LIMITS.maxOldGenerationSizeMb} MB), a fresh process a run, runs alternating, medians of ${RUNS}:`,
)
const fig = (rs: ReadRun[], k: 'ms' | 'wait' | 'peakMb' | 'beforeMb' | 'heldMb' | 'heldObjects') =>
  median(rs.map((r) => r[k]))
for (const [name, rs] of runs) {
  console.log(
    `  ${name.padEnd(4)} ${rs[0]!.conversations} conversations, ${rs[0]!.messages} messages; ` +
      `time ${(fig(rs, 'ms') / 1000).toFixed(2)} s (runs: ${rs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}); ` +
      `peak RSS ${fig(rs, 'peakMb').toFixed(0)} MB (${fig(rs, 'beforeMb').toFixed(0)} MB before the read); ` +
      `probe worst wait ${fig(rs, 'wait').toFixed(0)} ms (runs: ${rs.map((r) => r.wait.toFixed(0)).join(', ')}); ` +
      `host heap holding the read ${fig(rs, 'heldMb').toFixed(0)} MB, ${fig(rs, 'heldObjects')} objects`,
  )
  for (const k of ['plan', 'pick'] as const) {
    const what = k === 'plan' ? 'plan of every conversation' : 'pick by a word none names'
    console.log(
      `       ${what} on the host: time ${(median(rs.map((r) => r[k].ms)) / 1000).toFixed(2)} s, ` +
        `probe worst wait ${median(rs.map((r) => r[k].wait)).toFixed(0)} ms (runs: ${rs.map((r) => r[k].wait.toFixed(0)).join(', ')})`,
    )
  }
}
console.log(
  `  idle (no read, as long as this checkout's read) probe worst wait ${median(idle).toFixed(0)} ms ` +
    `(runs: ${idle.map((w) => w.toFixed(0)).join(', ')})`,
)
const mine = runs.get('this')!
for (const { name } of roots.slice(1)) {
  const base = runs.get(name)!
  const ratio = (k: 'ms' | 'wait' | 'peakMb') => (fig(mine, k) / fig(base, k)).toFixed(2)
  const step = (k: 'plan' | 'pick') =>
    `${k} time ${(median(mine.map((r) => r[k].ms)) / median(base.map((r) => r[k].ms))).toFixed(2)}×`
  console.log(
    `  this / ${name}: read time ${ratio('ms')}×, peak RSS ${ratio('peakMb')}×, worst wait ${ratio('wait')}×; ` +
      `${step('plan')}, ${step('pick')}`,
  )
}

const read = readExport(zip)
if (read.ok) {
  const limit = DEFAULT_CONFIG.memory.excerptChars
  const picked = read.export.conversations.slice(0, 50)
  const plan = await planLearning(picked, limit)
  const largest = Math.max(...plan.calls.map((c) => c.material.length))
  const built = plan.calls.reduce(
    (n, c) => n + approxTokens(EXTRACTION_SYSTEM) + approxTokens(extractionRequest(c.material, []).prompt),
    0,
  )
  console.log(
    `plan of 50 conversations: ${plan.calls.length} calls, largest material ${largest} characters (bound ${limit}); ` +
      `estimate ${plan.inputTokens} input tokens vs ${built} in the requests as built (${((plan.inputTokens / built - 1) * 100).toFixed(1)} %), at most ${plan.outputTokens} output`,
  )
}
