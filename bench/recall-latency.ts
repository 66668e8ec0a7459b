/**
 * The recall bench's part 2, latency: one recall (the index lookups, the scoring and the pick) per question or
 * dialogue with 10,000 items, ours and main's side by side, as wall and CPU time (on a machine shared by many the wall
 * clock mostly measures waiting); and the recall right after a write.
 */
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { Said } from '../lib/memory/recall.ts'
import { buildEvalSet, type EvalFact } from './recall-data.ts'
import { buildDialogueSet } from './recall-dialogues.ts'
import { baseRecall, coreOf, ours, saveOne, storeWith } from './recall-methods.ts'

/** The thread's CPU time so far, ms: on a machine shared by many, the wall clock mostly measures waiting. */
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** The `x` quantile of `times`. */
const p = (times: readonly number[], x: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(x * times.length))]!

/** What one recall took, ours or main's. */
interface Timed {
  wall: number[]
  cpu: number[]
}

/** Time `run` into `into`. */
function time(run: () => unknown, into: Timed): void {
  const started = performance.now()
  const used = cpu()
  run()
  into.wall.push(performance.now() - started)
  into.cpu.push(cpu() - used)
}

/**
 * A store (and main's beside it) holding `count` items — the question set's facts, then copies of them — and every
 * question and dialogue as what was said.
 */
async function setUp(dir: string, name: string, count: number) {
  const { facts, questions } = buildEvalSet()
  const dialogues = buildDialogueSet(facts)
  const many: EvalFact[] = []
  for (let i = 0; many.length < count; i++) {
    const f = facts[i % facts.length]!
    many.push(i < facts.length ? f : { id: `x${i}`, text: `${f.text}（又记 ${i}）`, at: f.at + i })
  }
  const store = await storeWith(dir, name, many)
  const base = await baseRecall(dir, many)
  const cases: Said[][] = [
    ...questions.map((q): Said[] => [{ role: 'user', text: q.text }]),
    ...dialogues.map((d) => d.said),
  ]
  return { store, base, cases }
}

/** Recall latency with 10,000 items: every question and dialogue, ours and main's in turn, five rounds. */
export async function latency(dir: string): Promise<void> {
  const { store, base, cases } = await setUp(dir, 'latency', 10_000)
  const mine: Timed = { wall: [], cpu: [] }
  const theirs: Timed = { wall: [], cpu: [] }
  // The system prompt's memory half is rendered for the turn before recall runs (and kept while the list stands): not
  // recall's time. Left to the first recall, its render of 10,000 items was one sample of 12 ms CPU on each side.
  coreOf(store, true)
  base?.core()
  // Every question and dialogue, ours and main's one after the other, so that both meet the same load.
  for (let round = 0; round < 5; round++) {
    for (const said of cases) {
      time(() => ours(store, said), mine)
      if (base !== undefined) time(() => base.recall(said), theirs)
    }
  }
  const main = base !== undefined
  console.log(
    `recall with 10000 items, ${mine.wall.length} recalls (questions and dialogues): p50 ${p(mine.wall, 0.5).toFixed(2)} ms, p99 ${p(mine.wall, 0.99).toFixed(2)} ms` +
      (main
        ? `; main side by side: p50 ${p(theirs.wall, 0.5).toFixed(2)} ms, p99 ${p(theirs.wall, 0.99).toFixed(2)} ms`
        : ''),
  )
  console.log(
    `  CPU time of the same recalls: p50 ${p(mine.cpu, 0.5).toFixed(2)} ms, p99 ${p(mine.cpu, 0.99).toFixed(2)} ms` +
      (main
        ? `; main p50 ${p(theirs.cpu, 0.5).toFixed(2)} ms, p99 ${p(theirs.cpu, 0.99).toFixed(2)} ms; load average ${loadavg()[0]!.toFixed(1)}`
        : ''),
  )
  console.log(
    `  targets: p50 ≤ 2 ms → ${p(mine.wall, 0.5) <= 2 ? 'met' : 'MISSED'}; p99 ≤ 10 ms → ${p(mine.wall, 0.99) <= 10 ? 'met' : 'MISSED'}`,
  )
  await store.close()
  await base?.store.close()
}

/**
 * Recall in the turn after a write, as a conversation meets it: the background job saves a fact after most turns, so
 * the next recall reads a new version of the list. One `memory.add` into each store, then ours and main's recall, in
 * turn (who goes first alternates); 9,800 items to start, 9,950 at the end.
 */
export async function latencyAfterWrite(dir: string): Promise<void> {
  const { store, base, cases } = await setUp(dir, 'after-write', 9_800)
  const mine: Timed = { wall: [], cpu: [] }
  const theirs: Timed = { wall: [], cpu: [] }
  for (let i = 0; i < 150; i++) {
    const said = cases[i % cases.length]!
    for (const s of [store, base?.store]) if (s !== undefined) await saveOne(s, i)
    // The system prompt's memory half is rendered for the turn before recall runs: it is not recall's time.
    coreOf(store, true)
    base?.core()
    const runs: [() => unknown, Timed][] = [[() => ours(store, said), mine]]
    if (base !== undefined) runs.push([() => base.recall(said), theirs])
    if (i % 2 === 1) runs.reverse()
    for (const [run, into] of runs) time(run, into)
  }
  const fig = (t: Timed) =>
    `wall p50 ${p(t.wall, 0.5).toFixed(2)} ms, p99 ${p(t.wall, 0.99).toFixed(2)} ms; CPU p50 ${p(t.cpu, 0.5).toFixed(2)} ms, p99 ${p(t.cpu, 0.99).toFixed(2)} ms`
  console.log(
    `recall right after a write (one memory.add before each, 9800–9950 items, 150 recalls): ${fig(mine)}` +
      (base === undefined
        ? ''
        : `; main ${fig(theirs)}; CPU p50 ratio ${(p(mine.cpu, 0.5) / p(theirs.cpu, 0.5)).toFixed(2)}×`),
  )
  await store.close()
  await base?.store.close()
}
