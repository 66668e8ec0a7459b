/**
 * Sync turn benchmark (issue #41): a turn's latency on the real `dsh web` (this plugin installed, the offline model
 * server) with the sync running in the background against without, as a user has them: the host one process, its git
 * calls in their own, this bench (the page's requests and the model server) a third. A bare repository on disk is the
 * remote. Each round measures both conditions, in alternating order (ABBA), so that the machine's drift falls on both:
 * - alone: no sync under way (the last run finished);
 * - sync: "Sync now" runs back to back from 0–150 ms before the turn (drawn per round) until it ends, so the turn
 *   lands in any step of a run.
 * The active profile holds SYNC_TURN_ITEMS memory items (default 2,000), so a run writes, hashes and pushes a real
 * memory file.
 * With SYNC_TURN_SAVES (default on) a fact is saved before each turn both ways, so the first run commits and pushes:
 * the bench's own writes are outside the measured turn (the fact is saved and its reply awaited first, the same lead
 * before the turn), the same in both conditions, and the run that save schedules after the engine's debounce is waited out
 * after the turn, before any later one.
 * Per turn: wall time from sending the message to the model server receiving its request (the plugin's prompt
 * assembly included), and the host process's CPU time over the same span (every thread, from /proc, in ns). Reported:
 * medians and the spread (25th–75th percentile) of each, the ratio of medians, and the median of each round's own
 * ratio, each with its 90 % bootstrap interval over the rounds. Target: with ≤ 1.05× without. A turn's time varies
 * by ±15 % turn to turn (the host's collector, its own timers): two hosts of the same code read 1.02× and 1.13× at
 * 30 rounds, so a reading is only as good as its interval, and the interval narrows with the rounds.
 * Both checkouts run side by side in one bench: this one and AP_BEFORE's (default /work/wt/base, built), each its own
 * host, taking turns within every round; SYNC_TURN_SIDES=this runs this checkout alone (twice the rounds in the time).
 * Run: `npm run bench -- sync-turn` (Node 22, git on PATH, Linux /proc). BENCH_ROUNDS sets the rounds (default 40).
 * SYNC_TURN_OUT=<file> writes every measured turn (side, round, condition, wall, CPU by thread) as JSON.
 * SYNC_TURN_PROF=<dir>: each host runs with `--cpu-prof` into <dir>/<label>/ (the git helper too, its own file), and
 * <dir>/<label>-turns.json lists every measured turn's span on the monotonic clock the profiles use (µs), with its
 * condition, so that a profile's samples can be split into the turns alone, the turns beside a sync and the rest.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { bootHost, postJson, type Host } from '../test/support/host-api.ts'
import { startModelServer, type ModelServer } from '../test/support/model-server.ts'
import { makeHome } from '../test/support/dsh.ts'
import { bootstrap, median, percentile } from '../test/support/stats.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
const SIDES = (process.env.SYNC_TURN_SIDES ?? 'this,base').split(',')
const CHECKOUTS = [
  { label: 'this', target: fileURLToPath(new URL('..', import.meta.url)) },
  { label: 'base', target: process.env.AP_BEFORE ?? '/work/wt/base' },
].filter((c) => SIDES.includes(c.label))
/** Where every measured turn is written (unset: nowhere). */
const OUT = process.env.SYNC_TURN_OUT
const SAVES = process.env.SYNC_TURN_SAVES !== '0'
/** Where the hosts' CPU profiles and the turns' spans go (unset: no profile). */
const PROF = process.env.SYNC_TURN_PROF
/** The longest pause between starting the sync and sending the turn (each round draws one, used for every turn). */
const LEAD_MS = 150
/** Memory items in the active profile, so that a run has a real memory file to write, hash and push. */
const ITEMS = Number(process.env.SYNC_TURN_ITEMS ?? 2_000)
/** The engine's debounce after a change (lib/sync/engine.ts), and a margin for the run it starts. */
const DEBOUNCE_MS = 5_000

/** One measured turn. */
interface Turn {
  wall: number
  cpu: number
  /** `cpu` by thread name. */
  threads: Map<string, number>
  /** The span on the monotonic clock, in µs (what a V8 CPU profile's timestamps count). */
  span: [number, number]
  /** The turn's place in its conversation (the history the host assembles grows with it). */
  index: number
}

/** The monotonic clock in µs, as V8 stamps a CPU profile's samples on Linux. */
const monoUs = () => Number(process.hrtime.bigint() / 1000n)

/**
 * CPU time of every thread of process `pid` so far, in ms, by thread name (the first field of each thread's schedstat,
 * in ns; the main thread is `main`, V8's helper threads and libuv's pool by their own names): which threads a turn's
 * extra CPU beside a sync falls on tells the host's own work (main) from the collector's and the disk's.
 */
function cpuOf(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${task}`
      const name = task === String(pid) ? 'main' : readFileSync(`${dir}/comm`, 'utf8').trim()
      const ns = Number(readFileSync(`${dir}/schedstat`, 'utf8').split(' ')[0])
      out.set(name, (out.get(name) ?? 0) + ns / 1e6)
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return out
}

/** The CPU of each thread name from `a` to `b`, in ms (a thread that ended between them counts none). */
function cpuSince(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  return new Map([...b].map(([k, v]) => [k, Math.max(0, v - (a.get(k) ?? 0))]))
}

const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Until the host's sync is not running. */
async function syncIdle(host: Host): Promise<void> {
  for (;;) {
    const s = (await (await fetch(`${host.web.url}/__ap/sync`)).json()) as { status?: { running?: boolean } }
    if (s.status?.running !== true) return
    await sleep(50)
  }
}

/** One checkout's host syncing with a bare repository of its own, and its turns measured both ways. */
async function side(model: ModelServer, target: string, root: string, label: string) {
  const prof = PROF === undefined ? undefined : join(PROF, label)
  if (prof !== undefined) mkdirSync(prof, { recursive: true })
  const host = await bootHost(model, {
    home: makeHome(['web'], { target }),
    ...(prof === undefined ? {} : { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${prof}` } }),
  })
  const remote = join(root, `remote-${host.web.port}.git`)
  execFileSync('git', ['init', '--bare', '--quiet', remote])
  await fetch(`${host.web.url}/__ap/sync/settings`, postJson({ remote, branch: 'main' }))
  await fetch(`${host.web.url}/__ap/sync/now`, postJson({}))
  const profileId = (await host.read()).state.activeId
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: `m${i}`,
    text: `第 ${i} 条：用户在一个长期项目里反复用到的约定 ${i % 97}`,
    source: 'user',
    at: 1_700_000_000_000 + i * 60_000,
  }))
  await host.command({ op: 'profile.update', id: profileId, patch: { memory: { summary: '', items } } })
  await fetch(`${host.web.url}/__ap/sync/now`, postJson({}))
  const sessionId = await host.conversation()
  const pid = host.web.pid
  let asked = 0
  const turn = async (tag: string): Promise<Turn> => {
    const c0 = cpuOf(pid)
    const m0 = monoUs()
    const t0 = performance.now()
    const index = asked++
    await host.say(sessionId, `${host.web.port} 第 ${index} 轮（${tag}）：今天写点什么？`)
    const wall = performance.now() - t0
    const threads = cpuSince(c0, cpuOf(pid))
    return { wall, cpu: total(threads), threads, span: [m0, monoUs()], index }
  }
  for (let i = 0; i < 3; i++) await turn('warm')
  await syncIdle(host)
  const out = { runs: 0, alone: [] as Turn[], busy: [] as Turn[] }
  /** One turn, `syncing` or not; both ways the same fact saved first and the run it schedules waited out after. */
  const measured = async (syncing: boolean, lead: number): Promise<Turn> => {
    await syncIdle(host)
    let savedAt = Date.now()
    if (SAVES) {
      await host.command({ op: 'memory.add', target: { profileId }, items: [{ text: `后台同步的事实 ${asked}` }] })
      savedAt = Date.now()
    }
    const loop = (async () => {
      while (syncing) {
        await fetch(`${host.web.url}/__ap/sync/now`, postJson({}))
        out.runs++
      }
    })()
    // The turn lands anywhere in the first run (fetch, commit, push): the same lead both ways.
    await sleep(lead)
    const t = await turn(syncing ? 'sync' : 'alone')
    syncing = false
    await loop
    // The run the save scheduled, waited out before any other turn.
    if (SAVES) await sleep(Math.max(0, savedAt + DEBOUNCE_MS + 200 - Date.now()))
    await syncIdle(host)
    return t
  }
  const measure = {
    alone: async (lead: number) => void out.alone.push(await measured(false, lead)),
    sync: async (lead: number) => void out.busy.push(await measured(true, lead)),
  }
  return { host, measure, out }
}

/** The figures of one checkout. */
function report(label: string, alone: Turn[], busy: Turn[], runs: number): void {
  const spread = (xs: Turn[], k: 'wall' | 'cpu') => {
    const v = xs.map((t) => t[k])
    return `${median(v).toFixed(1)} ms (${percentile(v, 25).toFixed(1)}–${percentile(v, 75).toFixed(1)})`
  }
  // Each figure over the rounds `at` (every round, or one bootstrap resample of them).
  const ofMedians = (k: 'wall' | 'cpu') => (at: number[]) =>
    median(at.map((i) => busy[i]![k])) / median(at.map((i) => alone[i]![k]))
  const perRound = (k: 'wall' | 'cpu') => (at: number[]) =>
    median(at.map((i) => busy[i]![k] / Math.max(alone[i]![k], 0.001)))
  const all = alone.map((_, i) => i)
  const figure = (stat: (at: number[]) => number) => {
    const [lo, hi] = bootstrap(all.length, stat)
    return `${stat(all).toFixed(3)}× (90 % ${lo.toFixed(3)}–${hi.toFixed(3)})`
  }
  console.log(`${label}: ${alone.length} rounds (ABBA), ${runs} background runs, saves ${SAVES ? 'on' : 'off'}`)
  for (const k of ['wall', 'cpu'] as const) {
    console.log(`  ${k}: alone ${spread(alone, k)}, with sync ${spread(busy, k)}`)
    console.log(`  ${k} ratio with / without: medians ${figure(ofMedians(k))}, per round ${figure(perRound(k))}`)
  }
  const names = [...new Set([...alone, ...busy].flatMap((t) => [...t.threads.keys()]))]
  const mean = (xs: Turn[], n: string) => xs.reduce((sum, t) => sum + (t.threads.get(n) ?? 0), 0) / xs.length
  const rows = names
    .map((n) => ({ n, a: mean(alone, n), b: mean(busy, n) }))
    .filter((r) => r.a + r.b >= 0.05)
    .sort((x, y) => y.b - y.a - (x.b - x.a))
  console.log(
    `  cpu by thread, mean ms per turn alone → with sync: ${rows.map((r) => `${r.n} ${r.a.toFixed(2)} → ${r.b.toFixed(2)}`).join(', ')}`,
  )
}

const model = await startModelServer()
const root = mkdtempSync(join(tmpdir(), 'ap-bench-sync-turn-'))
const sides: Awaited<ReturnType<typeof side>>[] = []
try {
  for (const c of CHECKOUTS) sides.push(await side(model, c.target, root, c.label))
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? (['alone', 'sync'] as const) : (['sync', 'alone'] as const)
    const who = i % 4 < 2 ? sides : [...sides].reverse()
    const lead = Math.floor(Math.random() * LEAD_MS)
    for (const s of who) for (const k of order) await s.measure[k](lead)
  }
  for (const [i, s] of sides.entries()) report(CHECKOUTS[i]!.label, s.out.alone, s.out.busy, s.out.runs)
  if (OUT !== undefined) {
    const rows = (label: string, sync: boolean, turns: Turn[]) =>
      turns.map((t, round) => ({
        side: label,
        round,
        sync,
        wall: t.wall,
        cpu: t.cpu,
        threads: Object.fromEntries(t.threads),
      }))
    const turns = sides.flatMap((s, i) => [
      ...rows(CHECKOUTS[i]!.label, false, s.out.alone),
      ...rows(CHECKOUTS[i]!.label, true, s.out.busy),
    ])
    writeFileSync(OUT, JSON.stringify(turns))
  }
  if (PROF !== undefined)
    for (const [i, s] of sides.entries()) {
      const spans = [
        ...s.out.alone.map((t) => ({ sync: false, span: t.span })),
        ...s.out.busy.map((t) => ({ sync: true, span: t.span })),
      ]
      writeFileSync(join(PROF, `${CHECKOUTS[i]!.label}-turns.json`), JSON.stringify(spans))
    }
} finally {
  for (const s of sides) await s.host.stop()
  await model.close()
  rmSync(root, { recursive: true, force: true })
}
