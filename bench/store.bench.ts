/**
 * Store benchmark: what a save costs with 10 and 100 profiles, with and without a 60 KB avatar on every profile, in
 * our layout (avatars in content-addressed files beside the JSON) and in the naive one (one JSON with every avatar
 * inline, rewritten on each save). The naive layout pays an atomic replace with fsync of the file and of its
 * directory per save; ours appends one line to its log with fdatasync (lib/wal.ts), and pays that replace only for a
 * snapshot. Two I/O floors, with no store work: the replace of a 10 KB file and the append of one 2 KB line.
 * Run: `node --experimental-strip-types bench/store.bench.ts` (Node 22).
 */
import { open, mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import writeFileAtomic from 'write-file-atomic'
import type { Envelope, State } from '../lib/model.ts'
import { applyCommand, type Command } from '../lib/ops.ts'
import { openStore } from '../lib/store.ts'
import { sessionsOf } from '../lib/sessions.ts'
import { tempDir, webpAvatar } from '../test/store-fixtures.ts'

const EDITS = 200
const WARMUP = 20
const IMPORTS = 5

interface Saver {
  command(cmd: Command): Promise<unknown>
  state: State
  close(): Promise<void>
}

/** The durable replace every layout pays per save: write-file-atomic with fsync, then fsync of the directory. */
async function durableWrite(file: string, data: string | Buffer): Promise<void> {
  await writeFileAtomic(file, data, { fsync: true, mode: 0o600 })
  const h = await open(join(file, '..'), 'r')
  await h.sync()
  await h.close()
}

/** The naive layout: the whole state, avatars inline, serialized and rewritten on every change. */
async function naiveStore(file: string, initial: State): Promise<Saver> {
  let state = initial
  let revision = 0
  let seq = 0
  return {
    get state() { return state },
    async command(cmd) {
      const r = applyCommand(state, cmd, { now: Date.now(), newId: (p) => `${p}-${++seq}` })
      if (!r.changed) return
      await durableWrite(file, JSON.stringify({ ...r.state, revision: ++revision }, null, 1))
      state = r.state
    },
    async close() {},
  }
}

/** The floor: the same durable replace of a fixed 10 KB file, with no store work at all. */
function floorStore(file: string): Saver {
  const data = Buffer.alloc(10_240, 'x')
  return { state: undefined as unknown as State, command: () => durableWrite(file, data), close: async () => {} }
}

/** The floor of a logged save: append one 2 KB line (about one profile's JSON) to an open file and fdatasync it. */
async function appendFloorStore(file: string): Promise<Saver> {
  const line = Buffer.from(`${'x'.repeat(2_047)}\n`)
  const h = await open(file, 'a')
  return {
    state: undefined as unknown as State,
    async command() {
      await h.write(line)
      await h.datasync()
    },
    close: () => h.close(),
  }
}

async function ourStore(file: string): Promise<Saver> {
  const s = await openStore({ file })
  return { get state() { return s.state }, command: (c) => s.command(c), close: () => s.close() }
}

function envelope(n: number, withAvatars: boolean): Envelope {
  const now = Date.now()
  return {
    format: 'dsh-agent-profiles', version: 1, exportedAt: new Date(now).toISOString(), activeId: 'p0',
    profiles: Array.from({ length: n }, (_, i) => ({
      id: `p${i}`, name: `配置 ${i}`, emoji: '🙂', avatar: withAvatars ? webpAvatar(60_000) : '',
      role: '你是一名经验丰富的助手，'.repeat(10), personality: '耐心、细致。'.repeat(5), speakingStyle: '简洁。'.repeat(10),
      rules: '实事求是；不猜想臆想；做没做好都如实说。'.repeat(8), memoryEnabled: true,
      memory: { summary: '用户是一名工程师。'.repeat(5), items: Array.from({ length: 10 }, (_, k) => ({ id: `m${k}`, text: `记忆条目 ${k}：用户偏好简洁的回答。`, source: 'user' as const, at: now })) },
      createdAt: now, updatedAt: now,
    })),
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!

async function dirBytes(dir: string): Promise<number> {
  let total = 0
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size
  return total
}

type Layout = 'naive' | 'ours' | 'floor' | 'append'

async function make(layout: Layout, file: string, env: Envelope): Promise<Saver> {
  const importCmd: Command = { op: 'state.import', mode: 'replace', payload: env }
  if (layout === 'floor') return floorStore(file)
  if (layout === 'append') return appendFloorStore(file)
  if (layout === 'ours') {
    const s = await ourStore(file)
    await s.command(importCmd)
    return s
  }
  const seed = applyCommand({ version: 1, activeId: 'x', profiles: [], sessions: sessionsOf() }, importCmd, { now: Date.now(), newId: (p) => p })
  const s = await naiveStore(file, seed.state)
  await s.command({ op: 'profile.activate', id: env.profiles[1]!.id })
  return s
}

interface Case {
  layout: Layout
  n: number
  withAvatars: boolean
  store: Saver
  dir: { dir: string; file: string; dispose(): Promise<void> }
  times: number[]
}

/**
 * Median and p90 latency of a one-field text edit (`profile.update` of `rules`), fsync included, for every case.
 * The cases take turns edit by edit (in a shuffled order each round), so load from elsewhere on the machine falls
 * on all of them alike and the ratios stay meaningful.
 */
async function editLatencies(): Promise<Case[]> {
  const cases: Case[] = []
  for (const n of [10, 100]) {
    for (const withAvatars of [false, true]) {
      for (const layout of ['naive', 'ours', ...(n === 100 && withAvatars ? ['floor' as const, 'append' as const] : [])] as const) {
        const dir = await tempDir('ap-bench')
        cases.push({ layout, n, withAvatars, dir, store: await make(layout, dir.file, envelope(n, withAvatars)), times: [] })
      }
    }
  }
  for (let i = 0; i < WARMUP + EDITS; i++) {
    const order = [...cases].sort(() => Math.random() - 0.5)
    for (const c of order) {
      const cmd: Command = { op: 'profile.update', id: `p${i % c.n}`, patch: { rules: `第 ${i} 次修改：实事求是，简洁直白。` } }
      const t0 = performance.now()
      await c.store.command(cmd)
      if (i >= WARMUP) c.times.push(performance.now() - t0)
    }
  }
  return cases
}

/** Median time to import (replace) an envelope of 100 profiles with 60 KB avatars into a fresh store. */
async function importLatency(layout: Layout) {
  const env = envelope(100, true)
  const times: number[] = []
  for (let i = 0; i < IMPORTS; i++) {
    const t = await tempDir('ap-bench-import')
    const cmd: Command = { op: 'state.import', mode: 'replace', payload: env }
    let s: Saver
    const t0 = performance.now()
    if (layout === 'ours') {
      s = await ourStore(t.file)
      await s.command(cmd)
    } else {
      s = await naiveStore(t.file, { version: 1, activeId: 'x', profiles: [], sessions: sessionsOf() })
      await s.command(cmd)
    }
    times.push(performance.now() - t0)
    await s.close()
    await t.dispose()
  }
  return { median: median(times) }
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`
const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`

const results: Record<string, unknown> = { node: process.version, edits: EDITS, imports: IMPORTS }
console.log(`store bench — Node ${process.version}, ${EDITS} edits per case (median / p90), fsync on\n`)
console.log('profile.update (one text field)     naive (one JSON)                      ours (avatars apart)')
const cases = await editLatencies()
const figure = async (c: Case) => ({ median: median(c.times), p90: p90(c.times), json: (await stat(c.dir.file)).size, total: await dirBytes(c.dir.dir) })
for (const n of [10, 100]) {
  for (const withAvatars of [false, true]) {
    const find = (layout: Layout) => cases.find((c) => c.layout === layout && c.n === n && c.withAvatars === withAvatars)!
    const naive = await figure(find('naive'))
    const ours = await figure(find('ours'))
    const label = `${n} profiles, ${withAvatars ? '60 KB avatars' : 'no avatars   '}`
    console.log(`  ${label}   ${fmt(naive.median)} / ${fmt(naive.p90)}  json ${kb(naive.json)}   ${fmt(ours.median)} / ${fmt(ours.p90)}  json ${kb(ours.json)}, all files ${kb(ours.total)}`)
    results[`update.${n}.${withAvatars ? 'avatars' : 'plain'}`] = { naive, ours }
  }
}
const floor = await figure(cases.find((c) => c.layout === 'floor')!)
results.floor10k = floor
console.log(`  I/O floor: durable replace of a 10 KB file, no store work   ${fmt(floor.median)} / ${fmt(floor.p90)}`)
const appendFloor = await figure(cases.find((c) => c.layout === 'append')!)
results.floorAppend2k = appendFloor
console.log(`  I/O floor: append + fdatasync of one 2 KB line             ${fmt(appendFloor.median)} / ${fmt(appendFloor.p90)}`)
for (const c of cases) {
  await c.store.close()
  await c.dir.dispose()
}
const r100 = results['update.100.avatars'] as { ours: { median: number }; naive: { median: number } }
const r100plain = results['update.100.plain'] as { ours: { median: number } }
console.log(`\n  100 profiles: ours with avatars / ours without = ${(r100.ours.median / r100plain.ours.median).toFixed(2)}×  (targets: ≤ 1.5×, median ≤ 2 ms)`)
console.log(`  100 profiles with avatars: naive / ours = ${(r100.naive.median / r100.ours.median).toFixed(1)}×; ours / replace floor = ${(r100.ours.median / floor.median).toFixed(2)}×; ours / append floor = ${(r100.ours.median / appendFloor.median).toFixed(2)}×`)

const naiveImport = await importLatency('naive')
const oursImport = await importLatency('ours')
console.log(`\nstate.import of 100 profiles with 60 KB avatars (median of ${IMPORTS}): naive ${fmt(naiveImport.median)}, ours ${fmt(oursImport.median)}  (target < 1000 ms)`)
results.import100 = { naive: naiveImport, ours: oursImport }

await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/store.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`)
