/**
 * The background integrity check of a long history, this checkout beside another (`AP_BEFORE=<dir>`, default
 * /work/wt/base): a store of 100,000 memory items in ten profiles is opened in a fresh child process, and from the
 * open until the check has read every table the event loop is sampled every millisecond. Reported per checkout
 * (median of BENCH_RUNS, default 3, the checkouts taking turns): the longest the loop was held (the longest gap
 * between two samples) and how long the check took from the open. The database is seeded once by the `before`
 * checkout and copied, so both read the same bytes.
 * Run: `npm run bench -- integrity-check`.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { DatabaseSync } from 'node:sqlite'
import { median } from '../test/support/stats.ts'
import { importProfiles } from './seed-profiles.ts'

interface BenchStore {
  command(c: unknown): Promise<unknown>
  health: { check?: { state: string } }
  close(): Promise<void>
}
type Open = (o: { file: string }) => Promise<BenchStore>

const here = fileURLToPath(new URL('..', import.meta.url))
const before = process.env.AP_BEFORE ?? '/work/wt/base'
const PROFILES = 10
const PER_PROFILE = 10_000
/** Longest a check may take before the run is given up as broken. */
const LIMIT_MS = 300_000

// ---- the child: open, sample the loop until the check has ended, report ---------------------------------------------

if (process.argv[2] === '--check') {
  const [, , , root, file] = process.argv
  const { openStore } = (await import(join(root!, 'lib/store/open-store.ts'))) as { openStore: Open }
  // A checkout that checks on this thread prepares one `quick_check` per table: the check has ended once the last
  // table's has run (it runs in the tick that prepares it).
  const tables = new DatabaseSync(file!, { readOnly: true })
  const count = (
    tables
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
      .get() as {
      n: number
    }
  ).n
  tables.close()
  let checkedHere = 0
  const prepare = DatabaseSync.prototype.prepare
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string) {
    if (/quick_check\(/.test(sql)) checkedHere++
    return prepare.call(this, sql)
  }
  const opened = performance.now()
  const store = await openStore({ file: file! })
  let last = performance.now()
  let longest = 0
  const sampler = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 1)
  const ended = () => {
    const state = store.health.check?.state
    return state === undefined ? checkedHere >= count : state !== 'pending'
  }
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (ended()) {
        clearInterval(poll)
        // One more tick: the last table's check ran in the tick that prepared it.
        setTimeout(resolve, 5)
      } else if (performance.now() - opened > LIMIT_MS) reject(new Error('the check did not end'))
    }, 5)
  })
  clearInterval(sampler)
  const checkMs = performance.now() - opened
  console.log(JSON.stringify({ longest, checkMs, state: store.health.check?.state ?? 'on this thread' }))
  await store.close()
  process.exit(0)
}

if (!existsSync(join(before, 'lib'))) {
  console.log(`integrity check: no checkout to compare with at ${before} (set AP_BEFORE)`)
  process.exit(0)
}

const checkouts = [
  { name: 'this', root: here },
  { name: 'before', root: before },
]

/** The data directory's database, holding PROFILES profiles of PER_PROFILE items each, made by `root`'s store. */
async function seed(root: string, dir: string): Promise<string> {
  const { openStore } = (await import(join(root, 'lib/store/open-store.ts'))) as { openStore: Open }
  const file = join(dir, 'profiles.sqlite')
  const store = await openStore({ file })
  await importProfiles(store as unknown as Parameters<typeof importProfiles>[0], PROFILES, (p) => ({ id: `p${p}` }))
  for (let p = 0; p < PROFILES; p++) {
    const items = Array.from({ length: PER_PROFILE }, (_, i) => ({
      id: `m${p}-${i}`,
      text: `第${i}条：用户提到的长期事实，编号 ${p}-${i}，关键词 k${i % 997}`,
      source: 'auto',
      at: 1_700_000_000_000 + i * 60_000,
      ...(i % 3 === 0 && i > 50 ? { archived: true } : {}),
    }))
    await store.command({ op: 'profile.update', id: `p${p}`, patch: { memory: { summary: '', items } } })
  }
  await store.close()
  return file
}

function checkInChild(root: string, file: string): { longest: number; checkMs: number; state: string } {
  const run = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', fileURLToPath(import.meta.url), '--check', root, file],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`check run failed: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!)
}

const work = mkdtempSync(join(tmpdir(), 'ap-check-'))
const seedDir = join(work, 'seed')
await seed(before, seedDir)
const runs = Number(process.env.BENCH_RUNS ?? 3)
const figures = new Map<string, { longest: number[]; checkMs: number[]; state: string }>()
for (let round = 0; round < runs; round++) {
  for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
    const c = checkouts[i]!
    const dir = join(work, `${c.name}-${round}`)
    cpSync(seedDir, dir, { recursive: true })
    const r = checkInChild(c.root, join(dir, 'profiles.sqlite'))
    const f = figures.get(c.name) ?? { longest: [], checkMs: [], state: r.state }
    f.longest.push(r.longest)
    f.checkMs.push(r.checkMs)
    figures.set(c.name, f)
    rmSync(dir, { recursive: true, force: true })
  }
}
const ms = (x: number) => `${x.toFixed(1)} ms`
for (const c of checkouts) {
  const f = figures.get(c.name)!
  console.log(
    `integrity check ${c.name.padEnd(6)} (${PROFILES * PER_PROFILE} items, ${f.state}): longest hold of the event loop ${ms(median(f.longest))} [${f.longest.map(ms).join(', ')}], check ended ${ms(median(f.checkMs))} after the open`,
  )
}
const a = figures.get('this')!
const b = figures.get('before')!
console.log(`this / before: longest hold ${(median(a.longest) / median(b.longest)).toFixed(2)}×`)
rmSync(work, { recursive: true, force: true })
