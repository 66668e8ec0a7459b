/**
 * First sync of a new machine (issue #41), this checkout beside another (`AP_BEFORE=<dir>`, default /work/wt/base), in
 * one process taking turns: one machine pushes a profile of 10,000 items to a bare repository on disk, then each round
 * a new machine of each checkout (the order flips each round) syncs until its store holds them. Medians of ROUNDS
 * (`SYNC_FIRST_ROUNDS`, default 7) and their ratio. Target: ≤ 5 s. Run: `npm run bench -- sync-first`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import type { openStore as OpenStore } from '../lib/store/open-store.ts'
import type { SyncEngine as Engine } from '../lib/sync/engine.ts'
import type { Repo as RepoClass } from '../lib/sync/repo.ts'
import { median } from '../test/support/stats.ts'

const ROUNDS = Number(process.env.SYNC_FIRST_ROUNDS ?? 7)
const ITEMS = 10_000
const sides = { this: fileURLToPath(new URL('..', import.meta.url)), before: process.env.AP_BEFORE ?? '/work/wt/base' }

/** The parts of a checkout a machine is made of. */
interface Checkout {
  openStore: typeof OpenStore
  SyncEngine: typeof Engine
  Repo: typeof RepoClass
}

async function checkout(root: string): Promise<Checkout> {
  const { openStore } = (await import(join(root, 'lib/store/open-store.ts'))) as Pick<Checkout, 'openStore'>
  const { SyncEngine } = (await import(join(root, 'lib/sync/engine.ts'))) as Pick<Checkout, 'SyncEngine'>
  const { Repo } = (await import(join(root, 'lib/sync/repo.ts'))) as Pick<Checkout, 'Repo'>
  return { openStore, SyncEngine, Repo }
}

const code = { this: await checkout(sides.this), before: await checkout(sides.before) }
const work = mkdtempSync(join(tmpdir(), 'ap-bench-sync-first-'))
let made = 0

/** A machine of checkout `c` syncing with `remote`, its engine run only when asked. */
async function machine(c: Checkout, remote: string) {
  const dir = join(work, `machine-${made++}`)
  const store = await c.openStore({ file: join(dir, 'profiles.sqlite') })
  const engine = new c.SyncEngine({
    store,
    repo: new c.Repo(join(dir, 'sync', 'personal'), remote, 'main'),
    log: { warn: (m) => console.error(m) },
    debounceMs: 3_600_000,
    intervalMs: 3_600_000,
  })
  return { store, engine }
}

try {
  const remote = join(work, 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', remote])
  const a = await machine(code.before, remote)
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: `m0x${i}`,
    text: `第 0-${i} 条：用户在一个长期项目里反复用到的约定，一句话说清楚 ${i % 97}`,
    source: 'user' as const,
    at: 1_700_000_000_000 + i * 60_000,
  }))
  const memory = { summary: '', items }
  await a.store.command({ op: 'profile.update', id: a.store.state.activeId, patch: { memory } })
  await a.engine.now()
  await a.engine.stop()
  await a.store.close()
  const times = { this: [] as number[], before: [] as number[] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? (['this', 'before'] as const) : (['before', 'this'] as const)) {
      const m = await machine(code[side], remote)
      const t0 = performance.now()
      const s = await m.engine.now()
      times[side].push(performance.now() - t0)
      if (s.error !== undefined) throw new Error(`${side}: ${s.error.key}: ${s.error.detail}`)
      const got = m.store.state.profiles.reduce((n, p) => n + p.memory.items.length, 0)
      if (got < ITEMS) throw new Error(`${side}: the new machine holds ${got} items`)
      await m.engine.stop()
      await m.store.close()
    }
  }
  const list = (t: number[]) => t.map((x) => x.toFixed(0)).join(', ')
  console.log(`first sync of a new machine, ${ITEMS} items in the repository, median of ${ROUNDS}:`)
  console.log(`  this checkout ${median(times.this).toFixed(0)} ms (${list(times.this)})`)
  console.log(`  ${sides.before} ${median(times.before).toFixed(0)} ms (${list(times.before)})`)
  console.log(`  ratio this / before: ${(median(times.this) / median(times.before)).toFixed(2)}×`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
