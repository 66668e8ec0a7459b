/**
 * A long memory history against a short one, this checkout beside another (`AP_BEFORE=<dir>`, default /work/wt/base):
 *  - opening the store (until its state is readable) with 10 and with 100,000 memory items in ten profiles, and the
 *    heap and resident memory the open store holds: each open in a fresh child process (median of 5 per checkout and
 *    size, taking turns), so one store's heap never counts in another's; and in the same child the first render of
 *    the active profile's prompt (core memory through the rows, as a fresh `dsh` process's first turn assembles it);
 *  - `memory.add` of 250 items, one command each as the tool saves facts, into a store of 100 and of 100,000 items
 *    (p50 of a command), in one process, the checkouts taking turns batch by batch;
 *  - `memory.update` and `memory.remove` of 50 seeded items each, at 100 and at 100,000 items (p50 of a command);
 *  - recall at 100,000 items: the scope search recall runs, and the index's ranked look alone (long-history-recall.ts);
 *    and the saves by kind (the first into a profile, one that checkpointed the WAL, the others: long-history-adds.ts);
 *  - the real `dsh web` with each checkout's built plugin on the same data (long-history-web.ts): every day's start
 *    until `/__ap/state` answers and the host's resident memory then, a headless turn from its start until the model
 *    server gets its request, and the first start after the seed's bulk write (median of BENCH_RUNS, default 3).
 * Ratios: 100,000 / small within a checkout, and this / before at 100,000. The store's database is seeded once per
 * size by the `before` checkout and copied; each checkout first opens its copy once and waits until what it migrates
 * in the background is done (printed: that first start and the background work), so the figures are those of every
 * later start; each run then opens a fresh copy of that.
 * Run: `npm run bench -- long-history`.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { median } from '../test/support/stats.ts'
import { importProfiles } from './seed-profiles.ts'
import { recallFigures } from './long-history-recall.ts'
import { webFigures, workLeft } from './long-history-web.ts'
import { AddKinds } from './long-history-adds.ts'

interface BenchStore {
  state: { activeId: string; profiles: { id: string; memory: { items: unknown[] } }[] }
  command(c: unknown): Promise<unknown>
  searchIndex<T>(
    query: (index: { ranked(o: string[], t: string[], n: number): unknown[]; retermDone?(): number | undefined }) => T,
  ): T | undefined
  close(): Promise<void>
}
type Open = (o: { file: string }) => Promise<BenchStore>

const here = fileURLToPath(new URL('..', import.meta.url))
const before = process.env.AP_BEFORE ?? '/work/wt/base'
const PROFILES = 10
const OPENS = 5
const ADDS = 250
/** Edits, then as many deletes, spread over the profiles (five of each per profile): p50 per command and checkout. */
const CHANGES = 50
const changed = new Map<string, number>()

// ---- the child: open once and wait for the background migration (a checkout that has one) -------------------------

if (process.argv[2] === '--settle') {
  const [, , , root, file] = process.argv
  const { openStore } = (await import(join(root!, 'lib/store/open-store.ts'))) as { openStore: Open }
  const started = performance.now()
  const store = await openStore({ file: file! })
  const opened = performance.now() - started
  // Until what the checkout does in the background after a start (item columns, counts, the index's merge) is done.
  while (workLeft(file!).length > 0) await new Promise((r) => setTimeout(r, 50))
  const settled = performance.now() - started
  await store.close()
  console.log(JSON.stringify({ opened, settled }))
  process.exit(0)
}

// ---- the child: open once, report ---------------------------------------------------------------------------------

if (process.argv[2] === '--open') {
  const [, , , root, file] = process.argv
  const { openStore } = (await import(join(root!, 'lib/store/open-store.ts'))) as { openStore: Open }
  globalThis.gc?.()
  const heap0 = process.memoryUsage().heapUsed
  const rss0 = process.memoryUsage().rss
  const started = performance.now()
  const store = await openStore({ file: file! })
  // Items the state holds in memory: a list still on disk (lazy-list.ts, where the checkout has it) counts none.
  const lazy = (await import(join(root!, 'lib/state/lazy-list.ts')).catch(() => undefined)) as
    { isInMemory(l: readonly unknown[]): boolean } | undefined
  const items = store.state.profiles.reduce(
    (n, p) => n + (lazy === undefined || lazy.isInMemory(p.memory.items) ? p.memory.items.length : 0),
    0,
  )
  const ms = performance.now() - started
  globalThis.gc?.()
  const m = process.memoryUsage()
  const render = await firstRender(root!, store)
  console.log(JSON.stringify({ ms, heap: m.heapUsed - heap0, rss: m.rss - rss0, items, ...render }))
  await store.close()
  process.exit(0)
}

/**
 * The first turn's render of the active profile as the prompt assembles it (persona, core memory within the default
 * budget, the user layer), right after the open as a fresh `dsh` process meets it: wall and CPU time. The headless
 * turn's wall time below swings by more than the target on a shared machine; this is the part that reads the history.
 */
async function firstRender(root: string, store: BenchStore): Promise<{ renderMs: number; renderCpu: number }> {
  const { renderParts } = (await import(join(root, 'lib/prompt/render.ts'))) as {
    renderParts(
      p: unknown,
      s: undefined,
      o: { memoryBudget: number; user: readonly unknown[]; recall: boolean },
    ): unknown
  }
  const { userItemsOf } = (await import(join(root, 'lib/state/model.ts'))) as {
    userItemsOf(s: unknown): readonly unknown[]
  }
  const { DEFAULT_CONFIG } = (await import(join(root, 'lib/config/config.ts'))) as {
    DEFAULT_CONFIG: { memoryBudget: number }
  }
  const active = store.state.profiles.find((p) => p.id === store.state.activeId)
  const used = process.cpuUsage()
  const started = performance.now()
  renderParts(active, undefined, {
    memoryBudget: DEFAULT_CONFIG.memoryBudget,
    user: userItemsOf(store.state),
    recall: true,
  })
  const renderMs = performance.now() - started
  const { user, system } = process.cpuUsage(used)
  return { renderMs, renderCpu: (user + system) / 1000 }
}

if (!existsSync(join(before, 'lib'))) {
  console.log(`long history: no checkout to compare with at ${before} (set AP_BEFORE)`)
  process.exit(0)
}

const checkouts: { name: string; root: string }[] = [
  { name: 'this', root: here },
  { name: 'before', root: before },
]

async function openerOf(root: string): Promise<Open> {
  return ((await import(join(root, 'lib/store/open-store.ts'))) as { openStore: Open }).openStore
}

const TOPICS = ['项目', '旅行', '咖啡', '读书', '跑步', 'TypeScript', '猫', '搬家', '会议', '音乐']

/** The i-th item of a profile: varied text, so the index holds real terms. */
function itemOf(p: number, i: number) {
  const t = TOPICS[(i * 7 + p) % TOPICS.length]
  return {
    id: `m${p}-${i}`,
    text: `第${i}条：用户在${t}方面提到的长期事实，编号 ${p}-${i}，关键词 k${i % 997}`,
    source: 'auto',
    at: 1_700_000_000_000 + i * 60_000,
    ...(i % 500 === 0 ? { pinned: true } : {}),
    ...(i % 3 === 0 && i > 50 ? { archived: true } : {}),
  }
}

/** A data directory holding `PROFILES` profiles of `perProfile` items each, made by `open`. */
async function seed(open: Open, dir: string, perProfile: number): Promise<string> {
  const file = join(dir, 'profiles.sqlite')
  const store = await open({ file })
  // The other checkout's store answers its own command types: seeded through the same command all the same.
  await importProfiles(store as unknown as Parameters<typeof importProfiles>[0], PROFILES, (p) => ({ id: `p${p}` }))
  for (let p = 0; p < PROFILES; p++) {
    const items = Array.from({ length: perProfile }, (_, i) => itemOf(p, i))
    await store.command({ op: 'profile.update', id: `p${p}`, patch: { memory: { summary: '', items } } })
  }
  await store.close()
  return file
}

/** What a child's open reports: its time, heap and RSS growth, items in the live state, the first render's times. */
type Opened = Record<'ms' | 'heap' | 'rss' | 'items' | 'renderMs' | 'renderCpu', number>

function openInChild(root: string, file: string): Opened {
  const run = spawnSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--no-warnings',
      '--expose-gc',
      fileURLToPath(import.meta.url),
      '--open',
      root,
      file,
    ],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`open failed: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!)
}

const MB = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`
const ms = (x: number) => `${x.toFixed(2)} ms`
const baseOpen = await openerOf(before)
/** Per profile at the long end: 250 more spread over ten profiles reaches the limit of 10,000 each, not past it. */
const LONG = 9_975
const sizes = [1, 10, LONG]
const work = mkdtempSync(join(tmpdir(), 'ap-long-'))
for (const n of sizes) await seed(baseOpen, join(work, `seed-${n}`), n)
/**
 * Each checkout's own copy of the seed, opened once by it and left until what it migrates in the background is done
 * (the start that migrates, and the background work after it, are figures of their own): what every later start meets.
 */
for (const n of sizes)
  for (const c of checkouts) {
    const dir = join(work, `seed-${n}-${c.name}`)
    cpSync(join(work, `seed-${n}`), dir, { recursive: true })
    const run = spawnSync(
      process.execPath,
      [
        '--experimental-strip-types',
        '--no-warnings',
        fileURLToPath(import.meta.url),
        '--settle',
        c.root,
        join(dir, 'profiles.sqlite'),
      ],
      { encoding: 'utf8' },
    )
    if (run.status !== 0) throw new Error(`settle failed: ${run.stderr}`)
    const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { opened: number; settled: number }
    if (n === LONG)
      console.log(
        `first start ${c.name.padEnd(6)} on the seed of ${PROFILES * n} items: open ${ms(r.opened)}, background migration (and index merge) done ${ms(r.settled)} after it began`,
      )
  }
/** A fresh copy of a checkout's seeded directory. */
function copyOf(n: number, who: string): string {
  const dir = join(work, `${who}-${n}-${Math.random().toString(36).slice(2)}`)
  cpSync(join(work, `seed-${n}-${who}`), dir, { recursive: true })
  return join(dir, 'profiles.sqlite')
}

// ---- 1. open, heap, RSS ---------------------------------------------------------------------------------------------
const opened = new Map<
  string,
  { ms: number[]; heap: number[]; rss: number[]; items: number; renderMs: number[]; renderCpu: number[] }
>()
for (const n of [1, LONG]) {
  const files = checkouts.map((c) => copyOf(n, c.name))
  // A first open of each: what a checkout builds at a start after the settle (nothing, as a rule) is not timed.
  checkouts.forEach((c, i) => openInChild(c.root, files[i]!))
  for (let round = 0; round < OPENS; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const c = checkouts[i]!
      const r = openInChild(c.root, files[i]!)
      const key = `${c.name}/${n}`
      const o = opened.get(key) ?? { ms: [], heap: [], rss: [], items: r.items, renderMs: [], renderCpu: [] }
      o.ms.push(r.ms)
      o.renderMs.push(r.renderMs)
      o.renderCpu.push(r.renderCpu)
      o.heap.push(r.heap)
      o.rss.push(r.rss)
      opened.set(key, o)
    }
  }
}
for (const c of checkouts) {
  const small = opened.get(`${c.name}/1`)!
  const big = opened.get(`${c.name}/${LONG}`)!
  console.log(
    `open ${c.name.padEnd(6)}: ${PROFILES * 1} items ${ms(median(small.ms))}, heap ${MB(median(small.heap))}, rss ${MB(median(small.rss))} | ` +
      `${PROFILES * LONG} items ${ms(median(big.ms))} (${(median(big.ms) / median(small.ms)).toFixed(2)}×), heap ${MB(median(big.heap))} (+${MB(median(big.heap) - median(small.heap))}), rss ${MB(median(big.rss))} (+${MB(median(big.rss) - median(small.rss))}); items in the live state ${big.items}`,
  )
  const ratio = (k: 'renderMs' | 'renderCpu') => (median(big[k]) / median(small[k])).toFixed(2)
  console.log(
    `first render ${c.name.padEnd(6)}: the active profile's prompt after a fresh open, ${PROFILES} items ${ms(median(small.renderMs))} (CPU ${ms(median(small.renderCpu))}), ` +
      `${PROFILES * LONG} items ${ms(median(big.renderMs))} (${ratio('renderMs')}×; CPU ${ms(median(big.renderCpu))}, ${ratio('renderCpu')}×)`,
  )
}

// ---- 2. memory.add of 250 items, 3. recall ---------------------------------------------------------------------------
const openers = await Promise.all(checkouts.map((c) => openerOf(c.root)))
const addP50 = new Map<string, number>()
const addCpu = new Map<string, number>()
/**
 * Mean and slowest of the same commands: the p50 leaves out the saves that pay for FTS5's merges of the index's
 * segments (a save at 100,000 items that merges the segments a bulk load left rewrites thousands of pages), which the
 * user meets as a slow save all the same.
 */
const tail = new Map<string, number[]>()
const mean = (t: number[]) => t.reduce((a, b) => a + b, 0) / t.length
const tails = (key: string, [a, b] = [tail.get(`${key}/10`)!, tail.get(`${key}/${LONG}`)!]) =>
  `; mean ${ms(mean(a))} → ${ms(mean(b))} (${(mean(b) / mean(a)).toFixed(2)}×), slowest ${ms(Math.max(...a))} → ${ms(Math.max(...b))}`
for (const n of [10, LONG]) {
  const files = checkouts.map((c) => copyOf(n, c.name))
  const stores = await Promise.all(checkouts.map((_, i) => openers[i]!({ file: files[i]! })))
  const kinds = files.map((f) => new AddKinds(f))
  // The seed's index was made by the `before` checkout: a checkout whose terms are newer re-terms it in the background
  // after the start (once). The saves are measured after it, as every later start meets them; its time is a figure.
  for (const [i, c] of checkouts.entries()) {
    const started = performance.now()
    const left = () => stores[i]!.searchIndex((index) => index.retermDone?.()) !== undefined
    if (!left()) continue
    while (left()) await new Promise((r) => setTimeout(r, 20))
    console.log(
      `re-term ${c.name.padEnd(6)}: ${PROFILES * n} items in the background, ${ms(performance.now() - started)}`,
    )
  }
  const times: number[][] = checkouts.map(() => [])
  const cpu: number[][] = checkouts.map(() => [])
  for (let batch = 0; batch < 10; batch++) {
    for (const i of batch % 2 === 0 ? [0, 1] : [1, 0]) {
      for (let k = 0; k < ADDS / 10; k++) {
        const used = process.cpuUsage()
        const profileId = `p${(batch * (ADDS / 10) + k) % PROFILES}`
        const took = await kinds[i]!.time(profileId, () =>
          stores[i]!.command({
            op: 'memory.add',
            target: { profileId },
            items: [{ text: `第${batch}-${k}次保存的新事实：用户提到了项目${k % 17}的新进展`, source: 'tool' }],
          }),
        )
        times[i]!.push(took)
        const { user, system } = process.cpuUsage(used)
        cpu[i]!.push((user + system) / 1000)
      }
    }
  }
  checkouts.forEach((c, i) => addP50.set(`${c.name}/${n}`, median(times[i]!)))
  // CPU time per save as well: on a shared machine the wall time of a save is mostly waiting for the disk and a core.
  checkouts.forEach((c, i) => addCpu.set(`${c.name}/${n}`, median(cpu[i]!)))
  checkouts.forEach((c, i) => tail.set(`${c.name}/add/${n}`, times[i]!))
  checkouts.forEach((c, i) =>
    console.log(`memory.add ${c.name.padEnd(6)}: at ${PROFILES * n} items, by kind: ${kinds[i]!.summary()}`),
  )
  await editAndDelete(stores, n)
  if (n === LONG) await recallFigures(stores, checkouts, TOPICS, PROFILES * n)
  await Promise.all(stores.map((s) => s.close()))
}
for (const c of checkouts) {
  const a = addP50.get(`${c.name}/10`)!
  const b = addP50.get(`${c.name}/${LONG}`)!
  console.log(
    `memory.add ${c.name.padEnd(6)}: p50 of ${ADDS} at ${PROFILES * 10} items ${ms(a)}, at ${PROFILES * LONG} ${ms(b)} (${(b / a).toFixed(2)}×); ` +
      `CPU p50 ${ms(addCpu.get(`${c.name}/10`)!)} → ${ms(addCpu.get(`${c.name}/${LONG}`)!)} (${(addCpu.get(`${c.name}/${LONG}`)! / addCpu.get(`${c.name}/10`)!).toFixed(2)}×)${tails(`${c.name}/add`)}`,
  )
}
for (const c of checkouts)
  for (const op of ['update', 'remove'] as const) {
    const a = changed.get(`${c.name}/${op}/10`)!
    const b = changed.get(`${c.name}/${op}/${LONG}`)!
    const ca = changed.get(`${c.name}/${op}/10/cpu`)!
    const cb = changed.get(`${c.name}/${op}/${LONG}/cpu`)!
    console.log(
      `memory.${op} ${c.name.padEnd(6)}: p50 of ${CHANGES} at ${PROFILES * 10} items ${ms(a)}, at ${PROFILES * LONG} ${ms(b)} (${(b / a).toFixed(2)}×); ` +
        `CPU p50 ${ms(ca)} → ${ms(cb)} (${(cb / ca).toFixed(2)}×)${tails(`${c.name}/${op}`)}`,
    )
  }
console.log(
  `this / before at ${PROFILES * LONG} items: open ${(median(opened.get(`this/${LONG}`)!.ms) / median(opened.get(`before/${LONG}`)!.ms)).toFixed(2)}×, memory.add ${(addP50.get(`this/${LONG}`)! / addP50.get(`before/${LONG}`)!).toFixed(2)}×`,
)
await webFigures({ work, checkouts, sizes: [1, LONG], profiles: PROFILES })
rmSync(work, { recursive: true, force: true })

// ---- 2b. editing and deleting an item ------------------------------------------------------------------------------

/**
 * `memory.update` then `memory.remove` of seeded items (never one an edit or the adds made), `CHANGES` each, the
 * checkouts taking turns batch by batch as the adds do; the items sit at spread positions of their lists, so an edit
 * in the middle of years of items counts as much as one at the end.
 */
async function editAndDelete(stores: BenchStore[], n: number): Promise<void> {
  const itemId = (k: number) => {
    const p = k % PROFILES
    const slot = Math.floor(k / PROFILES)
    return { p, id: `m${p}-${Math.floor((slot * n) / (CHANGES / PROFILES))}` }
  }
  for (const op of ['update', 'remove'] as const) {
    const times: number[][] = checkouts.map(() => [])
    const cpu: number[][] = checkouts.map(() => [])
    for (let batch = 0; batch < CHANGES / PROFILES; batch++) {
      for (const i of batch % 2 === 0 ? [0, 1] : [1, 0]) {
        for (let k = batch * PROFILES; k < (batch + 1) * PROFILES; k++) {
          const { p, id } = itemId(k)
          const target = { profileId: `p${p}` }
          const used = process.cpuUsage()
          const started = performance.now()
          await stores[i]!.command(
            op === 'update'
              ? { op: 'memory.update', target, itemId: id, text: `改过的事实 ${k}：用户换了新的咖啡店` }
              : { op: 'memory.remove', target, itemId: id },
          )
          times[i]!.push(performance.now() - started)
          const { user, system } = process.cpuUsage(used)
          cpu[i]!.push((user + system) / 1000)
        }
      }
    }
    checkouts.forEach((c, i) => changed.set(`${c.name}/${op}/${n}`, median(times[i]!)))
    // CPU time as for the adds: the wall time of one command on a shared machine is mostly waiting.
    checkouts.forEach((c, i) => changed.set(`${c.name}/${op}/${n}/cpu`, median(cpu[i]!)))
    checkouts.forEach((c, i) => tail.set(`${c.name}/${op}/${n}`, times[i]!))
  }
}
