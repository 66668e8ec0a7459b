/**
 * The real `dsh web` part of bench/long-history.bench.ts, with each checkout's built plugin on the same data:
 *  - every day's start: on a copy of the checkout's settled seed (opened once before and left until what it does in
 *    the background after a start — the item columns, the counts, the index's merge — was done, as a user's second
 *    and every later start meets it; checked before each start, and the run stops if it is not so), until
 *    `/__ap/state` answers, and the host's resident memory then; and a headless turn from its start until the model
 *    server gets its request;
 *  - the first start after a bulk write or an upgrade: on a copy of the seed as the `before` checkout wrote it (the
 *    index's merge still due, and whatever else the checkout does once), until `/__ap/state` answers.
 * Median of BENCH_RUNS (default 3) each, the checkouts taking turns.
 */
import { cpSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import { median } from '../test/support/stats.ts'
import { makeHome, runHeadless, startWeb } from '../test/support/dsh.ts'
import { isTitleRequest, startModelServer, type ModelServer } from '../test/support/model-server.ts'

/** Where the seeds are: `seed-<n>` as written, `seed-<n>-<checkout>` settled by each checkout. */
interface Seeds {
  work: string
  checkouts: readonly { name: string; root: string }[]
  /** Items per profile of the small and the long seed. */
  sizes: readonly [number, number]
  profiles: number
}

const ms = (x: number) => `${x.toFixed(2)} ms`
const MB = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`

/**
 * What the database at `file` still has to do after a start, by the bookkeeping the store keeps in it: the item
 * columns or the counts not filled yet (schema 4 on), the text keys not filled yet (schema 7 on), the index's merge
 * due. Empty when a start finds nothing to do.
 */
export function workLeft(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const has = (name: string) => db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined
    const meta = (key: string) =>
      (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value?: unknown } | undefined)?.value
    const left: string[] = []
    if (Number(meta('schema')) >= 4 && meta('kinds') !== 'done') left.push('item columns')
    if (has('memory_counts') && meta('counts') !== 'done') left.push('counts')
    if (Number(meta('schema')) >= 7 && meta('textKeys') !== 'done') left.push('text keys')
    if (has('memory_index_merge') && db.prepare('SELECT 1 FROM memory_index_merge').get() !== undefined)
      left.push('index merge')
    return left
  } finally {
    db.close()
  }
}

/** `dsh web` on a copy of the seed directory `seed` with `root`'s built plugin: start time and the host's RSS then. */
async function webStart(root: string, seed: string, model: ModelServer): Promise<{ ms: number; rss: number }> {
  const home = makeHome(['web'], { target: root })
  try {
    cpSync(seed, dirname(home.dataFile), { recursive: true })
    const started = performance.now()
    const web = await startWeb(home, model)
    const ms = performance.now() - started
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${web.pid}/status`, 'utf8'))![1]) * 1024
    await web.stop()
    return { ms, rss }
  } finally {
    home.cleanup()
  }
}

/** A headless turn with `root`'s plugin on a copy of `seed`: from its start until the model server has its request. */
async function firstTurn(root: string, seed: string, model: ModelServer): Promise<number> {
  const home = makeHome(['headless'], { target: root })
  try {
    cpSync(seed, dirname(home.dataFile), { recursive: true })
    const before = model.requests.length
    const started = performance.now()
    let arrived = 0
    const watch = setInterval(() => {
      if (arrived === 0 && model.requests.slice(before).some((r) => !isTitleRequest(r))) arrived = performance.now()
    }, 5)
    const run = await runHeadless(home, model, '我最近在读什么书？上次说的咖啡店叫什么？', { timeoutMs: 300_000 })
    clearInterval(watch)
    if (run.code !== 0 || arrived === 0) throw new Error(`headless turn failed: ${run.stderr}`)
    return arrived - started
  } finally {
    home.cleanup()
  }
}

/** Measure and print the figures above. */
export async function webFigures({ work, checkouts, sizes, profiles }: Seeds): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 3)
  const model = await startModelServer()
  const fig = new Map<string, { ms: number[]; rss: number[]; turn: number[] }>()
  const upgraded = new Map<string, number[]>()
  const [, long] = sizes
  for (let round = 0; round < runs; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const { name, root } = checkouts[i]!
      for (const n of sizes) {
        const seed = join(work, `seed-${n}-${name}`)
        const left = workLeft(join(seed, 'profiles.sqlite'))
        if (left.length > 0) throw new Error(`the settled seed of ${name} still has to do: ${left.join(', ')}`)
        const f = fig.get(`${name}/${n}`) ?? { ms: [], rss: [], turn: [] }
        const w = await webStart(root, seed, model)
        f.ms.push(w.ms)
        f.rss.push(w.rss)
        f.turn.push(await firstTurn(root, seed, model))
        fig.set(`${name}/${n}`, f)
      }
      const first = await webStart(root, join(work, `seed-${long}`), model)
      upgraded.set(name, [...(upgraded.get(name) ?? []), first.ms])
    }
  }
  await model.close()
  for (const { name } of checkouts) {
    const [a, b] = sizes.map((n) => fig.get(`${name}/${n}`)!)
    const ratio = (k: 'ms' | 'turn') => (median(b![k]) / median(a![k])).toFixed(2)
    console.log(
      `dsh web ${name.padEnd(6)}: every day's start (seed settled) ${profiles * sizes[0]} items ${ms(median(a!.ms))}, ${profiles * long} items ${ms(median(b!.ms))} (${ratio('ms')}×); ` +
        `rss ${MB(median(a!.rss))} → ${MB(median(b!.rss))} (+${MB(median(b!.rss) - median(a!.rss))}); ` +
        `first turn's request ${ms(median(a!.turn))} → ${ms(median(b!.turn))} (${ratio('turn')}×)`,
    )
    const first = median(upgraded.get(name)!)
    console.log(
      `dsh web ${name.padEnd(6)}: first start after the bulk write (index merge due) at ${profiles * long} items ${ms(first)} (${(first / median(a!.ms)).toFixed(2)}× the settled ${profiles * sizes[0]})`,
    )
  }
}
