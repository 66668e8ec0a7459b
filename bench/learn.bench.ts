/**
 * Learning benchmark (`npm run bench -- learn`): a ChatGPT export of about 200 MB (the fixtures of
 * test/support/learn-exports.ts, zipped as the service mails it) read in the real import worker under its memory
 * limits — how long it takes, whether it stays within the worker's 384 MB heap (a read past it ends the thread and is
 * reported as too big), and the worst wait of a timer on the host's event loop meanwhile (what every page's state
 * probe would wait) — then the plan of learning from it: calls, the largest material of a call against the
 * extraction's bound, and the estimate of tokens against the tokens of the requests as the run builds them.
 * Medians of BENCH_RUNS runs (default 3).
 */
import { performance } from 'node:perf_hooks'
import { ImportPool, WORKER_LIMITS } from '../lib/http/import-pool.ts'
import { planLearning } from '../lib/learn/run/plan.ts'
import { EXTRACTION_SYSTEM, extractionRequest } from '../lib/memory/job.ts'
import { DEFAULT_CONFIG } from '../lib/config/config.ts'
import { approxTokens } from '../lib/shared/tokens.ts'
import { chatGptExport, streamedZip } from '../test/support/learn-exports.ts'
import { median } from '../test/support/stats.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
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

const times: number[] = []
const waits: number[] = []
let conversations = 0
let messages = 0
let read: Awaited<ReturnType<ImportPool['readExport']>> | undefined
for (let run = 0; run < RUNS; run++) {
  const pool = new ImportPool()
  let worst = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 5)
    last = now
  }, 5)
  const started = performance.now()
  read = await pool.readExport(new Uint8Array(zip))
  times.push(performance.now() - started)
  clearInterval(timer)
  waits.push(worst)
  await pool.close()
  if (!read.ok) {
    console.log(`refused: ${JSON.stringify(read.error)}`)
    process.exit(1)
  }
  conversations = read.export.conversations.length
  messages = read.export.conversations.reduce((n, c) => n + c.messages.length, 0)
}
console.log(
  `read in the worker (heap ${WORKER_LIMITS.maxOldGenerationSizeMb} MB): ${conversations} conversations, ${messages} messages; ` +
    `median ${(median(times) / 1000).toFixed(2)} s (runs: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')}); ` +
    `worst event-loop wait meanwhile: median ${median(waits).toFixed(0)} ms`,
)

if (read?.ok === true) {
  const limit = DEFAULT_CONFIG.memory.excerptChars
  const picked = read.export.conversations.slice(0, 50)
  const plan = planLearning(picked, limit)
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
