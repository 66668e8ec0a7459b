/**
 * One read of an export in the import worker of a checkout, in a process of its own (bench/learn.bench.ts runs it):
 * `node bench/learn-read.ts <checkout> <zip file>` prints one JSON line — the read's time, the process's peak
 * resident memory (the worker thread included), and the worst wait of a 5 ms timer on this event loop from the start
 * of the read until the answer has arrived and been handed over (what a page's state probe would wait), and what
 * this thread's heap holds once the read is kept (used bytes and objects after a full collection); then, on this
 * thread, the plan of learning from every conversation and a pick by a word no conversation names (each one read),
 * each with its time and the probe's worst wait meanwhile — or why the export was refused. A fresh process a run, so
 * one checkout's garbage never weighs on the other's figure.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { queryObjects } from 'node:v8'
import { startWaitProbe } from './wait-probe.ts'
import type { LearnPick } from '../lib/shared/learn.ts'

const [root, file] = process.argv.slice(2)
const { ImportPool } = (await import(`${root}/lib/http/import-pool.ts`)) as typeof import('../lib/http/import-pool.ts')
const { LearnExports } = (await import(
  `${root}/lib/learn/run/exports.ts`
)) as typeof import('../lib/learn/run/exports.ts')
const { factoryState } = (await import(`${root}/lib/state/defaults.ts`)) as typeof import('../lib/state/defaults.ts')
const { DEFAULT_CONFIG } = (await import(`${root}/lib/config/config.ts`)) as typeof import('../lib/config/config.ts')
const zip = new Uint8Array(readFileSync(file!))
const pool = new ImportPool()
const rssBefore = process.memoryUsage.rss()
const stop = startWaitProbe()
const started = performance.now()
const read = await pool.readExport(zip)
const ms = performance.now() - started
// The answer's arrival (its copy onto this loop) ends just before the read resolves: one more timer tick counts it.
await new Promise((resolve) => setTimeout(resolve, 20))
const worst = stop()
await pool.close()
// queryObjects collects in full first: the heap then holds what the read is kept as.
const heldObjects = queryObjects(Object, { format: 'count' })
const heldMb = process.memoryUsage().heapUsed / 1048576
// This checkout holds the conversations as text and counts them; a checkout before that holds them as objects.
const held = read.ok ? (read.export.conversations as unknown) : []
const { conversations, messages } = Array.isArray(held)
  ? {
      conversations: held.length,
      messages: (held as { messages: unknown[] }[]).reduce((n, c) => n + c.messages.length, 0),
    }
  : read.ok
    ? read.export.conversations.found(read.export.service)
    : { conversations: 0, messages: 0 }
// The peak of the read alone: the plan below holds every call's material for a moment.
const peakMb = (process.resourceUsage().maxRSS * 1024) / 1048576

/** The time of `pick`'s plan (a checkout before this one plans in one piece, unawaited), and the probe's worst wait. */
async function planned(
  exports: InstanceType<typeof LearnExports>,
  pick: LearnPick,
): Promise<{ ms: number; wait: number }> {
  const stopPlan = startWaitProbe()
  const t = performance.now()
  await exports.plan(pick, factoryState(0), DEFAULT_CONFIG.memory.excerptChars)
  const planMs = performance.now() - t
  await new Promise((resolve) => setTimeout(resolve, 20))
  return { ms: planMs, wait: stopPlan() }
}
const exports = new LearnExports()
exports.take(read)
const plan = read.ok ? await planned(exports, { into: { user: true } }) : undefined
const pick = read.ok ? await planned(exports, { into: { user: true }, word: 'zanzibar' }) : undefined
console.log(
  JSON.stringify({
    ms,
    wait: worst,
    peakMb,
    beforeMb: rssBefore / 1048576,
    heldMb,
    heldObjects,
    conversations,
    messages,
    plan,
    pick,
    error: read.ok ? undefined : read.error,
  }),
)
