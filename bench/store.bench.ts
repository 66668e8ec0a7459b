/**
 * Store benchmark, this checkout (SQLite) beside the code before it (snapshot + write-ahead log + writer lock, the
 * commit the issue names) in one run: command latency (p50/p99) at 1 and 16 concurrent clients with 100 profiles
 * with 60 KB avatars and 0, 10,000 and 100,000 conversation settings; how long the store takes to open them (the first
 * open moves the data file into the database; then the median of 5 loads of the database); the size of the state
 * reply; the commit floor of each (a one-row SQLite transaction in WAL mode with synchronous=FULL; the old log's
 * append + fdatasync); the time from a commit in one process to its visibility in another process's next read; and,
 * through the routes, the size of the state reply and of each command's reply with those 100 profiles and with 200
 * profiles at the field limits, beside the same state with every profile whole.
 *
 * What the state reply carries, in this checkout: each profile as its head (id, name, emoji, avatar URL, updatedAt,
 * how many memory items await approval; never its texts, tool settings or memory), the default, the undo times, pins
 * per profile and how many conversations have settings, never the conversations' settings. The code before carried every profile whole (avatars inline in its own layout) and every
 * conversation's settings.
 *
 * The code before is read from a checkout of it: `AP_BASELINE=<dir>` (default /work/wt/sqlite-baseline); without one,
 * only this checkout is measured. It refuses more than 10,000 conversation settings, so it has no 100,000 row.
 * `AP_WHOLE=<dir>` adds a checkout of the SQLite store from before its state carried profile heads.
 * Run: `npm run bench store` (Node 22).
 */
import { fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, open, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import { fileURLToPath } from 'node:url'
import { factoryState } from '../lib/state/defaults.ts'
import { tempDir, webpAvatar } from '../test/support/store-fixtures.ts'
import { importAll } from './seed-profiles.ts'

const BASELINE = process.env.AP_BASELINE ?? '/work/wt/sqlite-baseline'
const ONE_CLIENT = 300
const PER_CLIENT = 40
const CLIENTS = 16
const VISIBILITY_ROUNDS = 100
/** Turns the implementations take at each figure. */
const ROUNDS = 10
/** Times each implementation loads its database again, taking turns (the median is reported). */
const LOADS = 5

/** The checkouts measured: this one and, when there is one, the code before. */
const here = fileURLToPath(new URL('..', import.meta.url))
const impls = [{ name: 'sqlite (this checkout)', root: here }]
if (existsSync(join(BASELINE, 'lib/store.ts'))) impls.push({ name: 'before (snapshot + log)', root: BASELINE })
// Optionally a checkout of the SQLite store whose state carried every profile whole: `AP_WHOLE=<dir>`.
const WHOLE = process.env.AP_WHOLE
if (WHOLE !== undefined && existsSync(join(WHOLE, 'lib/store/store.ts')))
  impls.push({ name: 'sqlite, whole profiles', root: WHOLE })

/** A data file of the layout both read (one JSON, avatars inline): 100 profiles with avatars, `sessions` settings. */
async function seed(file: string, sessions: number): Promise<void> {
  const base = factoryState(1).profiles[0]!
  const profiles = Array.from({ length: 100 }, (_, i) => ({
    ...base,
    id: `p${i}`,
    name: `配置 ${i}`,
    avatar: webpAvatar(60_000),
  }))
  const settings = Object.fromEntries(
    Array.from({ length: sessions }, (_, i) => [
      `s${i}`,
      { profileId: i % 3 === 0 ? `p${i % 100}` : null, note: `第 ${i} 个对话的备注`, memories: [] },
    ]),
  )
  await writeFile(file, JSON.stringify({ version: 1, revision: 0, activeId: 'p0', profiles, sessions: settings }))
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const fmt = (ms: number) => `${ms.toFixed(2)} ms`

/** A store of one checkout in a process of its own (bench/store-worker.ts), asked for rounds of commands. */
async function worker(root: string, file: string, sessions: number) {
  const child = fork(fileURLToPath(new URL('./store-worker.ts', import.meta.url)), [root, file, String(sessions)], {
    execArgv: ['--experimental-strip-types', '--no-warnings'],
  })
  const ask = <T>(m: object) =>
    new Promise<T>((resolve) => {
      child.once('message', (r) => resolve(r as T))
      if (Object.keys(m).length > 0) child.send(m)
    })
  const { migrated } = await ask<{ migrated: number }>({})
  return {
    migrated,
    reopen: async () => (await ask<{ ms?: number }>({ reopen: true })).ms,
    round: async (clients: number, each: number) => (await ask<{ times: number[] }>({ clients, each })).times,
    replyBytes: async () => (await ask<{ bytes: number }>({ reply: true })).bytes,
    stop: () => child.kill(),
  }
}

const results: Record<string, unknown> = { node: process.version, loadavg: (await import('node:os')).loadavg() }
console.log(
  `store bench — Node ${process.version}; load average ${(results.loadavg as number[]).map((x) => x.toFixed(1)).join(' ')} (the machine is shared)\n`,
)
console.log(
  '100 profiles with 60 KB avatars          1 client p50 / p99         16 clients p50 / p99        state reply  first open  load (p50)',
)
for (const sessions of (process.env.AP_SESSIONS ?? '0,10000,100000').split(',').map(Number)) {
  // One at a time, so that no open's time includes another's, in a shuffled order (the first may find a colder disk).
  const open = []
  const opening = impls.filter((impl) => !(impl.name.startsWith('before') && sessions > 10_000))
  for (const impl of opening.sort(() => Math.random() - 0.5)) {
    const t = await tempDir('ap-bench-store')
    await seed(t.file, sessions)
    open.push({
      impl,
      t,
      w: await worker(impl.root, t.file, sessions),
      one: [] as number[],
      many: [] as number[],
      loads: [] as number[],
    })
  }
  open.sort((a, b) => impls.indexOf(a.impl) - impls.indexOf(b.impl))
  for (let round = 0; round < LOADS; round++)
    for (const c of [...open].sort(() => Math.random() - 0.5)) {
      const ms = await c.w.reopen()
      if (ms !== undefined) c.loads.push(ms)
    }
  // The implementations take turns round by round (in a shuffled order), so load from elsewhere on the shared machine
  // falls on all of them alike and the ratios stay meaningful.
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of [...open].sort(() => Math.random() - 0.5)) c.one.push(...(await c.w.round(1, ONE_CLIENT / ROUNDS)))
    for (const c of [...open].sort(() => Math.random() - 0.5))
      c.many.push(...(await c.w.round(CLIENTS, PER_CLIENT / ROUNDS)))
  }
  for (const { impl, t, w, one, many, loads } of open) {
    const reply = await w.replyBytes()
    const { migrated } = w
    const loaded = loads.length === 0 ? undefined : quantile(loads, 0.5)
    console.log(
      `  ${String(sessions).padStart(6)} settings  ${impl.name.padEnd(24)} ${fmt(quantile(one, 0.5))} / ${fmt(quantile(one, 0.99)).padEnd(10)}  ${fmt(quantile(many, 0.5))} / ${fmt(quantile(many, 0.99)).padEnd(10)}  ${(reply / 1024).toFixed(0)} KB  ${fmt(migrated).padStart(11)}  ${loaded === undefined ? '' : fmt(loaded).padStart(11)}`,
    )
    results[`${impl.name}.${sessions}`] = {
      one: { p50: quantile(one, 0.5), p99: quantile(one, 0.99) },
      sixteen: { p50: quantile(many, 0.5), p99: quantile(many, 0.99) },
      replyBytes: reply,
      open: { migrated, loaded },
    }
    w.stop()
    await t.dispose()
  }
}

// Commit floors: the least a durable save can cost in each layout, with no store work.
{
  const t = await tempDir('ap-bench-floor')
  const db = new DatabaseSync(join(t.dir, 'floor.sqlite'))
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)')
  const put = db.prepare('INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v')
  const sqlite: number[] = []
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now()
    db.exec('BEGIN IMMEDIATE')
    put.run(`k${i % 10}`, 'x'.repeat(2_000))
    db.exec('COMMIT')
    sqlite.push(performance.now() - t0)
  }
  db.close()
  const h = await open(join(t.dir, 'floor.log'), 'a')
  const append: number[] = []
  const line = Buffer.alloc(2_000, 'x')
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now()
    await h.write(line)
    await h.datasync()
    append.push(performance.now() - t0)
  }
  await h.close()
  await t.dispose()
  console.log(
    `\ncommit floor: SQLite one-row transaction (WAL, synchronous=FULL) ${fmt(quantile(sqlite, 0.5))}; append + fdatasync of 2 KB ${fmt(quantile(append, 0.5))}`,
  )
  results.floor = { sqlite: quantile(sqlite, 0.5), append: quantile(append, 0.5) }
}

// Commit to visibility: this process commits, another process (a store of its own on the same data) reads at once.
{
  const t = await tempDir('ap-bench-visible')
  const { openStore } = await import('../lib/store/open-store.ts')
  const store = await openStore({ file: t.file })
  await store.command({ op: 'profile.activate', id: 'coder' })
  const child = fork(fileURLToPath(new URL('./store-reader.ts', import.meta.url)), [t.file], {
    execArgv: ['--experimental-strip-types', '--no-warnings'],
  })
  await new Promise((r) => child.once('message', r))
  const seen: number[] = []
  for (let i = 0; i < VISIBILITY_ROUNDS; i++) {
    await store.command({ op: 'session.set', sessionId: `v${i}`, patch: { note: `看得见 ${i}` } })
    const committed = performance.timeOrigin + performance.now()
    child.send({ revision: store.revision })
    const at = await new Promise<number>((r) => child.once('message', (m) => r((m as { at: number }).at)))
    seen.push(at - committed)
  }
  child.kill()
  await store.close()
  await t.dispose()
  console.log(
    `commit → visible in another process's next read: p50 ${fmt(quantile(seen, 0.5))}, p99 ${fmt(quantile(seen, 0.99))} (includes the IPC message that asks it to read); the code before: not until that process's own next change`,
  )
  results.visibility = { p50: quantile(seen, 0.5), p99: quantile(seen, 0.99) }
}

// Reply sizes through the routes (this checkout, in-process): GET /__ap/state and the reply of each command a page
// sends, beside what the state reply was before it carried profile heads (every profile whole, avatars as URLs: the
// code before this checkout's wire, rebuilt here from the same state). Meta is index.ts's without the prompt
// diagnostics, as bench/routes-server.ts serves it.
{
  const { createServer } = await import('node:http')
  const { openStore } = await import('../lib/store/open-store.ts')
  const { createHandler } = await import('../lib/http/routes.ts')
  const { toWireProfile, wireStateBytes } = await import('../lib/http/wire.ts')
  const { routeMeta } = await import('../test/support/http.ts')
  const { LIMITS } = await import('../lib/state/model.ts')
  const now = Date.now()
  const hex = (i: number) => i.toString(16).padStart(12, '0')
  const base = factoryState(now).profiles[0]!
  const long = (n: number, i: number) => `${i}`.padEnd(n, '长')
  const sets: Array<[string, () => object[]]> = [
    [
      '100 profiles with 60 KB avatars',
      () =>
        Array.from({ length: 100 }, (_, i) => ({
          ...base,
          id: `p-${hex(i)}`,
          name: `配置 ${i}`,
          avatar: webpAvatar(60_000),
        })),
    ],
    // Every field at its limit but the memory items (499 of 100 characters, so that memory.add has room; at 1,000
    // characters they would only make the reply before larger) and the avatar (60 KB; it travels as a URL either way).
    [
      '200 profiles at the field limits',
      () =>
        Array.from({ length: LIMITS.profiles }, (_, i) => ({
          ...base,
          id: `p-${hex(i)}`,
          name: long(LIMITS.name, i),
          emoji: '🦊'.repeat(LIMITS.emoji / 2),
          avatar: webpAvatar(60_000),
          role: long(LIMITS.role, i),
          personality: long(LIMITS.personality, i),
          speakingStyle: long(LIMITS.speakingStyle, i),
          rules: long(LIMITS.rules, i),
          memoryEnabled: true,
          memoryMode: 'ask',
          tools: { profile: 'custom', add: ['read', 'grep'], remove: ['bash'] },
          memory: {
            summary: long(LIMITS.summary, i),
            items: Array.from({ length: LIMITS.memoryItems - 1 }, (_, k) => ({
              id: `m-${hex(k)}`,
              text: long(100, k),
              source: 'tool',
              at: now,
              ...(k < 3 ? { pending: true } : {}),
            })),
          },
        })),
    ],
  ]
  console.log(
    '\nreply sizes (KB; target ≤ 64)     state before    state  profile.update  memory.add  session.set  profile.activate  profile.delete  profile.create  profile.duplicate',
  )
  for (const [label, make] of sets) {
    const t = await tempDir('ap-bench-replies')
    const store = await openStore({ file: t.file })
    const profiles = make()
    await importAll(store, profiles, 'p-000000000000')
    const server = createServer(
      createHandler({
        store,
        preview: () => ({ text: '', chars: 0, tokens: 0 }),
        meta: () => routeMeta(store),
        trustedHosts: () => [],
        log: { warn: () => {}, error: console.error },
      }),
    )
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/__ap`
    const size = async (res: Promise<Response>) => {
      const r = await res
      if (!r.ok) throw new Error(`${r.status} ${await r.text()}`)
      return (await r.arrayBuffer()).byteLength
    }
    const command = (body: object) =>
      size(
        fetch(`${url}/command`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      )
    const first = 'p-000000000000'
    const { sessions: _s, memoryUndo: _u, history: _h, ...rest } = store.state
    const before = Buffer.byteLength(
      JSON.stringify({
        state: {
          ...rest,
          profiles: store.state.profiles.map((p) => toWireProfile(store, p)),
          undo: {},
          pins: {},
          conversations: 0,
        },
        meta: routeMeta(store),
      }),
    )
    const row = {
      before,
      state: await size(fetch(`${url}/state`)),
      'profile.update': await command({ op: 'profile.update', id: first, patch: { rules: '实事求是。' } }),
      'memory.add': await command({
        op: 'memory.add',
        target: { profileId: first },
        items: [{ text: '用户喜欢乌龙茶' }],
      }),
      'session.set': await command({
        op: 'session.set',
        sessionId: 'bench-1',
        patch: { profileId: first, note: '只聊诗' },
      }),
      'profile.activate': await command({ op: 'profile.activate', id: first }),
      // At the profile limit a new profile needs room first.
      'profile.delete': await command({ op: 'profile.delete', id: store.state.profiles.at(-1)!.id }),
      'profile.create': await command({ op: 'profile.create', profile: { name: '新配置' } }),
      'profile.duplicate': await command({ op: 'profile.delete', id: store.state.profiles.at(-1)!.id }).then(() =>
        command({ op: 'profile.duplicate', id: first }),
      ),
    }
    const kb = (n: number) => `${(n / 1024).toFixed(1)}`.padStart(7)
    console.log(
      `  ${label.padEnd(32)} ${kb(row.before).padStart(12)}  ${Object.entries(row)
        .slice(1)
        .map(([k, v]) => kb(v).padStart(Math.max(7, k.length)))
        .join('  ')}`,
    )
    results[`replies.${label}`] = { ...row, stateBytesOnly: wireStateBytes(store).length }
    server.closeAllConnections()
    await new Promise<void>((r) => server.close(() => r()))
    await store.close()
    await t.dispose()
  }
}

const ours = (s: number) => results[`${impls[0]!.name}.${s}`] as { one: { p50: number }; sixteen: { p50: number } }
// AP_SESSIONS may name fewer rows than the ratios compare.
const measured = (s: number) => results[`${impls[0]!.name}.${s}`] !== undefined
if (measured(0) && measured(100_000))
  console.log(
    `\n1-client p50 with 100,000 settings / with none: ${(ours(100_000).one.p50 / ours(0).one.p50).toFixed(2)}× (target ≤ 1.2×)`,
  )
if (impls.length > 1 && measured(0) && measured(10_000)) {
  const before = (s: number) => results[`${impls[1]!.name}.${s}`] as { one: { p50: number }; sixteen: { p50: number } }
  for (const s of [0, 10_000]) {
    console.log(
      `${s} settings: sqlite / before — 1 client p50 ${(ours(s).one.p50 / before(s).one.p50).toFixed(2)}×, 16 clients p50 ${(ours(s).sixteen.p50 / before(s).sixteen.p50).toFixed(2)}×`,
    )
  }
}
if (WHOLE !== undefined) {
  type Row = { one: { p50: number }; open: { migrated: number; loaded?: number } }
  for (const s of (process.env.AP_SESSIONS ?? '0,10000,100000').split(',').map(Number)) {
    const a = results[`${impls[0]!.name}.${s}`] as Row | undefined
    const b = results[`sqlite, whole profiles.${s}`] as Row | undefined
    if (a === undefined || b === undefined) continue
    const load = a.open.loaded !== undefined && b.open.loaded !== undefined ? a.open.loaded / b.open.loaded : NaN
    console.log(
      `${s} settings: this / AP_WHOLE — 1 client p50 ${(a.one.p50 / b.one.p50).toFixed(2)}×, first open ${(a.open.migrated / b.open.migrated).toFixed(2)}×, load ${load.toFixed(2)}×`,
    )
  }
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/store.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`)
