/**
 * Sync benchmark (issue #41), in one process with real stores, the system git and a bare repository on disk:
 * - the commit one saved fact makes: files touched and lines changed (target: 1 file, ≤ 3 lines);
 * - pulling one changed item into a store of 100,000 items (10 profiles × 10,000) against the same pull into a
 *   store holding only the default profiles: the store's own work (the `sync.apply` command, wall and the main
 *   thread's CPU time, which a loaded machine disturbs less) and the whole run, medians of ROUNDS taken in turn on
 *   the two stores, each once the main thread is quiet (targets: store work ≤ 50 ms and ≤ 1.2× the empty store's);
 * - a first sync of a new machine with a repository of one 10,000-item profile, until the store holds them
 *   (target ≤ 5 s).
 * The turn-latency target (a turn with sync in the background ≤ 1.05× without) is bench/sync-turn.bench.ts's.
 * Run: `npm run bench -- sync` (Node 22, git on PATH).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { MemoryItem } from '../lib/state/model.ts'
import { openStore } from '../lib/store/open-store.ts'
import type { ProfileStore } from '../lib/store/store.ts'
import { SyncEngine } from '../lib/sync/engine.ts'
import { Repo } from '../lib/sync/repo.ts'
import { median } from '../test/support/stats.ts'

const ROUNDS = 7
const PROFILES = Number(process.env.SYNC_PROFILES ?? 10)
const PER_PROFILE = 10_000

interface Machine {
  store: ProfileStore
  engine: SyncEngine
  /** Milliseconds of each `sync.apply` the store ran. */
  applied: number[]
  /** CPU milliseconds of the main thread during each `sync.apply` (steadier than wall time on a loaded machine). */
  cpu: number[]
}

const root = mkdtempSync(join(tmpdir(), 'ap-bench-sync-'))
let made = 0

/** A cell nothing ever wakes: the main thread sleeps on it for a moment before it reads its CPU time. */
const asleep = new Int32Array(new SharedArrayBuffer(4))

/**
 * CPU time of this process's main thread so far, in ms (Linux schedstat, ns): the store's own work, without the
 * worker threads' (a new machine's first backup, the integrity check) that overlap a pull. Linux adds a running
 * thread's time to its count only at a scheduler tick or when the thread stops running, so a thread that reads its own
 * count while it runs reads it up to a tick late: a 1 ms loop measured that way read 0 ms at the median and 0–2.8 ms
 * from the 10th to the 90th percentile (300 loops), and a pull that began right after the host's own work (the full
 * store's line diff) was charged for it. Sleeping 50 µs first has the count taken when the thread stops: the same
 * loops then read 0.91–1.15 ms, median 1.07.
 */
function mainThreadCpu(): number {
  Atomics.wait(asleep, 0, 0, 0.05)
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8' })
}

function remote(): string {
  const dir = join(root, `remote-${made++}.git`)
  execFileSync('git', ['init', '--bare', '--quiet', dir])
  return dir
}

/** A machine syncing with `remoteDir`; its engine runs only when asked (no timers). */
async function machine(remoteDir: string): Promise<Machine> {
  const dir = join(root, `machine-${made++}`)
  const store = await openStore({ file: join(dir, 'profiles.sqlite') })
  const applied: number[] = []
  const cpu: number[] = []
  const command = store.command.bind(store)
  // The store's share of a pull: the one command a sync applies.
  ;(store as { command: ProfileStore['command'] }).command = (async (cmd: Parameters<ProfileStore['command']>[0]) => {
    // The CPU first: its read sleeps a moment, which is no part of the command's time.
    const c0 = mainThreadCpu()
    const t0 = performance.now()
    try {
      return await command(cmd)
    } finally {
      if (cmd.op === 'sync.apply') {
        applied.push(performance.now() - t0)
        cpu.push(mainThreadCpu() - c0)
      }
    }
  }) as ProfileStore['command']
  const engine = new SyncEngine({
    store,
    repo: new Repo(join(dir, 'sync', 'personal'), remoteDir, 'main'),
    log: { warn: (m) => console.error(m) },
    debounceMs: 3_600_000,
    intervalMs: 3_600_000,
  })
  return { store, engine, applied, cpu }
}

/**
 * Until this process's main thread is quiet: a store filled with 100,000 items re-terms and merges its memory index in
 * the background afterwards (lib/store/index-job.ts, steps of ~15 ms on the main thread), and a pull measured
 * meanwhile — the other pair's too, as the pairs share this thread — would count those steps as its own. Quiet: under
 * 5 ms of CPU in 250 ms (waited for 60 s at most). Answers the CPU milliseconds of the first 250 ms looked at.
 */
async function quiet(): Promise<{ first: number }> {
  let first = -1
  for (let i = 0; i < 240; i++) {
    const c0 = mainThreadCpu()
    await new Promise((r) => setTimeout(r, 250))
    const used = mainThreadCpu() - c0
    if (first < 0) first = used
    if (used < 5) break
  }
  return { first }
}

/** One store's figures: its items, and the medians of its pulls. */
interface Figures {
  items: number
  apply: number
  cpu: number
  whole: number
  busy: number[]
}

async function sync(m: Machine): Promise<number> {
  const t0 = performance.now()
  const s = await m.engine.now()
  if (s.error !== undefined) throw new Error(`sync failed: ${s.error.key}: ${s.error.detail}`)
  return performance.now() - t0
}

/** Give `store` `count` profiles of `per` items each (the defaults' memories replaced, more profiles made). */
async function fill(store: ProfileStore, count: number, per: number): Promise<void> {
  while (store.state.profiles.length < count)
    await store.command({ op: 'profile.create', profile: { name: `配置 ${store.state.profiles.length}` } })
  for (const [p, profile] of store.state.profiles.slice(0, count).entries()) {
    // The default profile leaves room for the facts the rounds save.
    const items: MemoryItem[] = Array.from(
      { length: profile.id === store.state.activeId ? per - 2 * ROUNDS : per },
      (_, i) => ({
        id: `m${p}x${i}`,
        text: `第 ${p}-${i} 条：用户在一个长期项目里反复用到的约定，一句话说清楚 ${i % 97}`,
        source: 'user',
        at: 1_700_000_000_000 + i * 60_000,
      }),
    )
    await store.command({ op: 'profile.update', id: profile.id, patch: { memory: { summary: '', items } } })
  }
}

async function save(m: Machine, text: string): Promise<void> {
  await m.store.command({
    op: 'memory.add',
    target: { profileId: m.store.state.activeId },
    items: [{ text, source: 'tool' }],
  })
}

/**
 * Two machines on one remote, A's store as `prepare` made it and B synced with it; each `round` pulls one fact A saved
 * into B and notes B's cost.
 */
async function pair(label: string, prepare: (store: ProfileStore) => Promise<void>) {
  const r = remote()
  const a = await machine(r)
  await prepare(a.store)
  await sync(a)
  const b = await machine(r)
  console.error(
    `  (${label}: A pushed ${(await sync(a)).toFixed(0)} ms; B's first sync ${(await sync(b)).toFixed(0)} ms)`,
  )
  // A warm round: B's file cache holds what it took in, as it would after its first sync.
  await sync(b)
  const out = {
    items: b.store.state.profiles.reduce((n, p) => n + p.memory.items.length, 0),
    apply: [] as number[],
    cpu: [] as number[],
    whole: [] as number[],
    /** The main thread's CPU in the 250 ms before each pull (what `quiet` saw first). */
    busy: [] as number[],
  }
  let saved = 0
  return {
    out,
    async round(): Promise<void> {
      await save(a, `${label} 第 ${saved++} 条新事实`)
      await sync(a)
      b.applied.length = 0
      b.cpu.length = 0
      out.busy.push((await quiet()).first)
      out.whole.push(await sync(b))
      out.apply.push(...b.applied)
      out.cpu.push(...b.cpu)
      await sync(b)
    },
    async close(): Promise<void> {
      await a.store.close()
      await b.store.close()
    },
  }
}

try {
  // 1. One saved fact's commit.
  {
    const r = remote()
    const a = await machine(r)
    await sync(a)
    await save(a, '用户喜欢 Rust')
    await sync(a)
    const stat = git(r, 'show', '--numstat', '--format=', 'main')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
    const lines = stat.reduce((n, [add, del]) => n + Number(add) + Number(del), 0)
    console.log(
      `one saved fact: commit "${git(r, 'log', '-1', '--format=%s', 'main').trim()}" touches ${stat.length} file(s), ${lines} line(s): ${stat.map((s) => s[2]).join(', ')}`,
    )
    await a.store.close()
  }

  // 2. Pull one item into 100,000 vs an empty store.
  // Both pairs first, then their rounds in turn (ABBA): the machine's load drifts over the minutes a 100,000-item store
  // takes to fill and take in, and measured one after the other the two stores met different loads.
  const pairs = [await pair('empty', async () => undefined), await pair('full', (s) => fill(s, PROFILES, PER_PROFILE))]
  for (let i = 0; i < ROUNDS; i++) for (const p of i % 2 === 0 ? pairs : [...pairs].reverse()) await p.round()
  for (const p of pairs) await p.close()
  const figures = (out: (typeof pairs)[number]['out']): Figures => ({
    ...out,
    apply: median(out.apply),
    cpu: median(out.cpu),
    whole: median(out.whole),
  })
  const empty = figures(pairs[0]!.out)
  const full = figures(pairs[1]!.out)
  console.log(`pull one changed item, median of ${ROUNDS}, rounds alternating:`)
  for (const f of [empty, full])
    console.log(
      `  store of ${f.items} items: sync.apply ${f.apply.toFixed(2)} ms (CPU ${f.cpu.toFixed(2)} ms), whole run ${f.whole.toFixed(1)} ms; main thread before each pull ${f.busy.map((x) => x.toFixed(0)).join(', ')} ms CPU in 250 ms`,
    )
  console.log(
    `  ratio full / empty: sync.apply ${(full.apply / empty.apply).toFixed(2)}× (CPU ${(full.cpu / empty.cpu).toFixed(2)}×), whole run ${(full.whole / empty.whole).toFixed(2)}×`,
  )

  // 3. First sync of a new machine against a 10,000-item repository.
  {
    const times: number[] = []
    const r = remote()
    const a = await machine(r)
    await fill(a.store, 1, PER_PROFILE)
    await sync(a)
    for (let i = 0; i < 3; i++) {
      const c = await machine(r)
      times.push(await sync(c))
      const got = c.store.state.profiles.reduce((n, p) => n + p.memory.items.length, 0)
      if (got < PER_PROFILE - 2 * ROUNDS) throw new Error(`the new machine holds ${got} items`)
      await c.store.close()
    }
    console.log(
      `first sync of a new machine, ${PER_PROFILE} items in the repository: median ${median(times).toFixed(0)} ms of 3 (${times.map((t) => t.toFixed(0)).join(', ')})`,
    )
    await a.store.close()
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
