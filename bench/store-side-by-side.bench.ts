/**
 * This checkout's store and another checkout's (`AP_BEFORE=<dir>`) in ONE process, taking turns batch by batch: the
 * p50 of a command (bench/store-commands.ts) with 0 and 100,000
 * conversation settings, on the checkout's disk (fsync as a user pays it) and on /dev/shm (no disk: the code's own
 * cost), and how long loading 100,000 settings from the database takes (median of 5 loads each, taking turns).
 * Why one process: two processes on this shared 2-core machine differ by more (heap, CPU caches, which one the disk
 * favoured) than the code does; here both meet the same machine, batch after batch. Ratios are this / before.
 * Run: `AP_BEFORE=<checkout> npm run bench -- store-side-by-side`.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { median } from '../test/support/stats.ts'
import { userEdits } from './store-commands.ts'

interface BenchStore {
  command(c: unknown): Promise<unknown>
  close(): Promise<void>
}
interface Checkout {
  name: string
  open(file: string): Promise<BenchStore>
  /** The factory profile of that checkout, as its data file holds one. */
  profile: Record<string, unknown>
}

const BATCHES = 20
const PER_BATCH = 300
const LOADS = 5

const before = process.env.AP_BEFORE
if (before === undefined || !existsSync(join(before, 'lib'))) {
  console.log('store side by side: set AP_BEFORE=<checkout of the code before> to measure')
  process.exit(0)
}

/** A checkout's store and factory profile, found where that checkout keeps them. */
async function checkout(name: string, root: string): Promise<Checkout> {
  const module = (...paths: string[]) => join(root, paths.find((p) => existsSync(join(root, p))) ?? paths.at(-1)!)
  const { openStore } = (await import(module('lib/store/open-store.ts', 'lib/store/store.ts'))) as {
    openStore(o: { file: string }): Promise<BenchStore>
  }
  const { factoryState } = (await import(module('lib/state/defaults.ts', 'lib/store/defaults.ts'))) as {
    factoryState(now: number): { profiles: Record<string, unknown>[] }
  }
  return { name, open: (file) => openStore({ file }), profile: factoryState(1).profiles[0]! }
}

const checkouts = [
  await checkout('this checkout', fileURLToPath(new URL('..', import.meta.url))),
  await checkout('before', before),
]

/** A data file both read (one JSON): 100 profiles and `sessions` conversation settings. */
async function seed(dir: string, profile: Record<string, unknown>, sessions: number): Promise<string> {
  const file = join(dir, 'profiles.json')
  const profiles = Array.from({ length: 100 }, (_, i) => ({ ...profile, id: `p${i}`, name: `配置 ${i}` }))
  const settings = Object.fromEntries(
    Array.from({ length: sessions }, (_, i) => [
      `s${i}`,
      { profileId: i % 3 === 0 ? `p${i % 100}` : null, note: `第 ${i} 个对话的备注`, memories: [] },
    ]),
  )
  await writeFile(file, JSON.stringify({ version: 1, revision: 0, activeId: 'p0', profiles, sessions: settings }))
  return file
}

const ms = (x: number) => `${x.toFixed(3)} ms`
const rows: string[] = []
for (const where of [join(fileURLToPath(new URL('.', import.meta.url)), 'results'), '/dev/shm']) {
  for (const sessions of [0, 100_000]) {
    const dirs = await Promise.all(checkouts.map(() => mkdtemp(join(where, 'ap-side-'))))
    const files = await Promise.all(checkouts.map((c, i) => seed(dirs[i]!, c.profile, sessions)))
    const stores = await Promise.all(checkouts.map((c, i) => c.open(files[i]!)))
    const nextCommand = userEdits(sessions)
    const p50s: number[][] = checkouts.map(() => [])
    // The first batches warm both up (JIT, the database's pages); the order flips each batch.
    for (let batch = 0; batch < BATCHES + 4; batch++) {
      for (const i of batch % 2 === 0 ? [0, 1] : [1, 0]) {
        const times: number[] = []
        for (let k = 0; k < PER_BATCH; k++) {
          const started = performance.now()
          await stores[i]!.command(nextCommand())
          times.push(performance.now() - started)
        }
        if (batch >= 4) p50s[i]!.push(median(times))
      }
    }
    const loads: number[][] = checkouts.map(() => [])
    for (let round = 0; round < (sessions > 0 ? LOADS : 0); round++) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
        await stores[i]!.close()
        const started = performance.now()
        stores[i] = await checkouts[i]!.open(files[i]!)
        loads[i]!.push(performance.now() - started)
      }
    }
    await Promise.all(stores.map((s) => s.close()))
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    const [here, then] = p50s.map(median) as [number, number]
    const load =
      sessions > 0
        ? ` | load ${ms(median(loads[0]!))} vs ${ms(median(loads[1]!))} (${(median(loads[0]!) / median(loads[1]!)).toFixed(2)}×)`
        : ''
    rows.push(
      `  ${where === '/dev/shm' ? 'tmpfs' : 'disk '}  ${String(sessions).padStart(6)} settings | command p50 ${ms(here)} vs ${ms(then)} (${(here / then).toFixed(2)}×)${load}`,
    )
    console.log(rows.at(-1))
  }
}
