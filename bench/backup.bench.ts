/**
 * Data-safety benchmark, on a database of 100 profiles (each with a 60 KB avatar file), 10,000 memory items and
 * 100,000 conversation settings: the time of the migrations from schema 1 (their transactions), of a daily backup (`VACUUM INTO` plus linking the avatars) and its size on disk beside the live data,
 * the time of opening the store on it (the full load with every row checked) as the baseline those compare to, and
 * what a salvage saves from the same database with 1 % of its pages damaged. Each backup and migration runs on the
 * event loop, so its time is also how long it holds the loop. Medians of ROUNDS runs. `AP_BASELINE=<dir>` (a checkout
 * of the code before this, e.g. `git archive 1bd9717 lib | tar -x -C <dir>` with node_modules linked) also times
 * opening the same database with that code, side by side. Run: `npm run bench backup`.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import { factoryState } from '../lib/state/defaults.ts'
import { AvatarFiles } from '../lib/store/db/avatars.ts'
import { makeBackup } from '../lib/store/db/backups.ts'
import { openDatabase } from '../lib/store/db/open.ts'
import { layoutOf } from '../lib/store/db/layout.ts'
import { migrateSchema, SCHEMA_VERSION } from '../lib/store/db/schema.ts'
import { openStore } from '../lib/store/open-store.ts'
import { tempDir, webpAvatar } from '../test/support/store-fixtures.ts'

const ROUNDS = 5
const PROFILES = 100
const ITEMS = 10_000
const SESSIONS = 100_000

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

function sizeOf(path: string): number {
  const s = statSync(path)
  if (!s.isDirectory()) return s.size
  return readdirSync(path).reduce((n, f) => n + sizeOf(join(path, f)), 0)
}

/** The data directory: the schema from the store itself, the rows written straight into it. */
async function seed(dir: string): Promise<string> {
  const file = join(dir, 'profiles.sqlite')
  const store = await openStore({ file })
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: 'seed' } })
  await store.close()
  const avatars = join(dir, 'profiles.avatars')
  mkdirSync(avatars, { recursive: true })
  const base = factoryState(1).profiles[0]!
  const db = new DatabaseSync(file)
  db.exec('BEGIN')
  db.exec('DELETE FROM profiles; DELETE FROM memory_items')
  const profile = db.prepare('INSERT INTO profiles (id, pos, rev, data) VALUES (?, ?, 1, ?)')
  const item = db.prepare('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?)')
  const session = db.prepare('INSERT INTO sessions (id, rev, data) VALUES (?, 1, ?)')
  for (let i = 0; i < PROFILES; i++) {
    const url = webpAvatar(60_000)
    const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')
    const name = `${createHash('sha256').update(bytes).digest('hex')}.webp`
    writeFileSync(join(avatars, name), bytes)
    const { avatar: _a, memory: _m, ...fields } = base
    profile.run(
      `p${i}`,
      i,
      JSON.stringify({ ...fields, id: `p${i}`, name: `配置 ${i}`, avatarFile: name, memory: { summary: '' } }),
    )
    for (let j = 0; j < ITEMS / PROFILES; j++) {
      item.run(
        `p${i}`,
        `m${i}-${j}`,
        j,
        JSON.stringify({
          id: `m${i}-${j}`,
          text: `第 ${i} 套配置的第 ${j} 条记忆：用户偏好简洁的回答`,
          source: 'tool',
          at: 1,
        }),
      )
    }
  }
  for (let i = 0; i < SESSIONS; i++)
    session.run(
      `s${i}`,
      JSON.stringify({
        profileId: i % 3 === 0 ? `p${i % PROFILES}` : null,
        note: `第 ${i} 个对话的备注`,
        memories: [],
      }),
    )
  db.exec("UPDATE meta SET value = 'p0' WHERE key = 'activeId'; UPDATE meta SET value = 1 WHERE key = 'revision'")
  db.exec('COMMIT')
  db.close()
  return file
}

const t = await tempDir('ap-bench-backup')
try {
  const file = await seed(t.dir)
  const layout = layoutOf(file)
  console.log(`data: ${PROFILES} profiles with 60 KB avatars, ${ITEMS} memory items, ${SESSIONS} conversation settings`)
  console.log(`  database ${mb(sizeOf(file))}, avatars ${mb(sizeOf(layout.avatarDir))}`)

  const opens: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    const store = await openStore({ file })
    opens.push(performance.now() - start)
    if (store.state.sessions.size !== SESSIONS || store.lastError !== null)
      throw new Error(`bad load: ${store.lastError?.message}`)
    await store.close()
  }
  console.log(`open (full load, every row checked): median ${ms(median(opens))}`)
  const baseline = process.env.AP_BASELINE
  if (baseline !== undefined) {
    // A checkout from before lib/store/open-store.ts opened its store from lib/store/store.ts.
    const opener = ['lib/store/open-store.ts', 'lib/store/store.ts'].find((f) => existsSync(join(baseline, f)))!
    const before = (await import(join(baseline, opener))) as typeof import('../lib/store/open-store.ts')
    const old: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now()
      const store = await before.openStore({ file })
      old.push(performance.now() - start)
      if (store.state.sessions.size !== SESSIONS) throw new Error(`baseline did not load: ${store.lastError?.message}`)
      await store.close()
    }
    console.log(
      `open with the code before (${baseline}): median ${ms(median(old))}; ratio ${(median(opens) / median(old)).toFixed(2)}`,
    )
  }

  const steps: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const db = new DatabaseSync(file)
    db.exec("DELETE FROM meta WHERE key = 'schema'")
    const start = performance.now()
    migrateSchema(db, file)
    steps.push(performance.now() - start)
    db.close()
  }
  console.log(`migrations 1 → ${SCHEMA_VERSION} (no copy first: none changes a row): median ${ms(median(steps))}`)

  const backups: number[] = []
  let size = 0
  const db = openDatabase({ layout, avatars: new AvatarFiles(layout.avatarDir), create: false })
  for (let r = 0; r < ROUNDS; r++) {
    rmSync(join(t.dir, 'profiles.backups'), { recursive: true, force: true })
    const start = performance.now()
    await makeBackup(layout, '2026-01-01', (path) => db.vacuumInto(path))
    backups.push(performance.now() - start)
    size = sizeOf(join(t.dir, 'profiles.backups', '2026-01-01'))
  }
  db.close()
  const dbSize = sizeOf(join(t.dir, 'profiles.backups', '2026-01-01', 'profiles.sqlite'))
  console.log(
    `daily backup (VACUUM INTO + avatars linked): median ${ms(median(backups))}; on disk ${mb(size)} (database ${mb(dbSize)}; the avatars are hard links, so they take no new space on the same disk)`,
  )

  // Salvage: 1 % of the pages damaged (not the first, which SQLite needs to open the file at all).
  const bytes = Buffer.from(readFileSync(file))
  const pages = bytes.length / 4096
  let damaged = 0
  for (let p = 1; p < pages; p += 100) {
    bytes.fill(0x5a, p * 4096, p * 4096 + 16)
    damaged++
  }
  rmSync(`${file}-wal`, { force: true })
  rmSync(`${file}-shm`, { force: true })
  writeFileSync(file, bytes)
  const start = performance.now()
  const store = await openStore({ file })
  const salvageMs = performance.now() - start
  const s = store.health.salvage
  console.log(
    `salvage, ${damaged} of ${pages} pages damaged: ${s?.saved} rows saved, ${s?.lost}${s?.lostUncounted === true ? ' or more' : ''} lost, in ${ms(salvageMs)} (open, read, copy, load); ${store.state.profiles.length} profiles, ${store.state.sessions.size} conversation settings loaded`,
  )
  await store.close()
} finally {
  await t.dispose()
}
