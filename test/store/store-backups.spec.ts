/**
 * Backups the user can restore: a copy a day after the day's first write (avatars included, the newest seven kept),
 * what each holds, a restore that makes the current data a backup first and reaches every process, and SIGKILL
 * during a backup leaving no half backup.
 */
import { spawn } from 'node:child_process'
import { existsSync, openSync, readSync, statSync, writeSync, closeSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BACKUPS_KEPT, BEFORE_RESTORE_KEPT, dayOf } from '../../lib/store/db/backups.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { SCHEMA_VERSION } from '../../lib/store/db/schema.ts'
import { pngAvatar } from '../support/store-fixtures.ts'
import { backedUp, perTest, snapshot } from '../support/store-helpers.ts'
import { childArgs } from '../support/children.ts'

const { start, dir: tempFolder, closed } = perTest()
afterEach(() => {
  vi.useRealTimers()
})

async function fresh(): Promise<{ dir: string; file: string; store: ProfileStore }> {
  const dir = await tempFolder('ap-backup')
  const store = await start(join(dir, 'profiles.sqlite'))
  return { dir, file: store.file, store }
}

describe('daily backups', () => {
  it('after the first write of a day, one copy with its avatars; no second one that day', async () => {
    const { dir, store } = await fresh()
    expect(store.backups()).toEqual([])
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第一次', avatar: pngAvatar(500) } })
    await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户喜欢猫' }] })
    await backedUp(store)
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第二次' } })
    await backedUp(store)
    const [backup, ...more] = store.backups()
    expect(more).toEqual([])
    expect(backup).toMatchObject({ name: dayOf(Date.now()), kind: 'daily', sessions: 0 })
    // Taken right after the day's first write: it holds that write.
    expect(backup!.profiles.map((p) => p.name)).toEqual(['通用助手', '编程搭档', '写作顾问'])
    const folder = join(dir, 'profiles.backups', backup!.name)
    const avatars = await readdir(join(folder, 'avatars'))
    expect(avatars).toEqual(await readdir(join(dir, 'profiles.avatars')))
    const db = new DatabaseSync(join(folder, 'profiles.sqlite'), { readOnly: true })
    expect(
      (
        db.prepare("SELECT json_extract(data, '$.rules') AS r FROM profiles WHERE id = 'general'").get() as {
          r: string
        }
      ).r,
    ).toBe('第一次')
    db.close()
    expect(backup!.bytes).toBeGreaterThan(0)
  })

  it(`keeps the newest ${BACKUPS_KEPT}`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { store } = await fresh()
    for (let day = 1; day <= BACKUPS_KEPT + 3; day++) {
      vi.setSystemTime(new Date(2026, 0, day, 12))
      await store.command({ op: 'profile.update', id: 'general', patch: { rules: `第 ${day} 天` } })
      await backedUp(store)
    }
    const names = store.backups().map((b) => b.name)
    expect(names).toHaveLength(BACKUPS_KEPT)
    expect(names[0]).toBe('2026-01-10')
    expect(names.at(-1)).toBe('2026-01-04')
  })
})

describe('restoring a backup', () => {
  it('brings the day back whole (profiles, memory, conversations, avatars); the data it replaced becomes a backup; another process sees it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date(2026, 2, 1, 9))
    const { file, store } = await fresh()
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '三月一日', avatar: pngAvatar(400) } })
    await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户住在杭州' }] })
    await store.command({ op: 'session.set', sessionId: 's1', patch: { note: '那天的备注' } })
    await backedUp(store)
    const day1 = JSON.stringify(
      store.state.profiles.map((p) => [p.id, p.rules, p.avatar, p.memory.items.map((it) => it.text)]),
    )
    vi.setSystemTime(new Date(2026, 2, 2, 9))
    await store.command({ op: 'memory.clear', target: { profileId: 'general' } })
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '三月二日', avatar: '' } })
    await store.command({ op: 'profile.create', profile: { name: '后来加的' } })
    await store.command({ op: 'sessions.clearAll' })
    await backedUp(store)
    const other = await start(file)
    expect(other.state.profiles).toHaveLength(4)

    const first = store.backups().find((b) => b.name === '2026-03-01')!
    expect(first.profiles.find((p) => p.id === 'general')).toMatchObject({ id: 'general', name: '通用助手' })
    vi.setSystemTime(new Date(2026, 2, 2, 10))
    await store.restoreBackup('2026-03-01')
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(store.state.profiles[0]!.rules).toBe('三月一日')
    expect(store.state.profiles[0]!.avatar).toMatch(/^data:image\/png;base64,/)
    const before = store.backups().find((b) => b.kind === 'before-restore')!
    expect(before.profiles.map((p) => p.name)).toEqual(['通用助手', '编程搭档', '写作顾问', '后来加的'])
    // Another process reads the restored data without a restart.
    expect(other.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(other.state.profiles[0]!.rules).toBe('三月一日')
    // A command sent while a restore runs waits for it and applies to the restored data.
    const restoring = store.restoreBackup('2026-03-01')
    const during = store.command({ op: 'profile.update', id: 'general', patch: { rules: '恢复之后改的' } })
    await restoring
    await during
    expect(store.state.profiles[0]!.rules).toBe('恢复之后改的')
    expect(store.state.profiles).toHaveLength(3)
    // And restoring the copy taken before brings the replaced data back: nothing was lost by restoring.
    await store.restoreBackup(before.name)
    expect(store.state.profiles.map((p) => p.name)).toContain('后来加的')
    expect(day1).toContain('三月一日')
  })

  it('refuses a name that is no backup, and data a newer version made', async () => {
    const { file, store } = await fresh()
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: 'x' } })
    await backedUp(store)
    await expect(store.restoreBackup('../../etc')).rejects.toMatchObject({ code: 'not-found' })
    await expect(store.restoreBackup('2020-01-01')).rejects.toMatchObject({ code: 'not-found' })
    await store.close()
    closed(store)
    const db = new DatabaseSync(file)
    db.exec(`UPDATE meta SET value = ${SCHEMA_VERSION + 1} WHERE key = 'schema'`)
    db.close()
    const newer = await start(file)
    await expect(newer.restoreBackup(dayOf(Date.now()))).rejects.toMatchObject({ code: 'read-only' })
    expect(newer.backups().filter((b) => b.kind === 'before-restore')).toEqual([])
  })
})

/** A store with a backup on each of `days` days of January 2026 (the clock left at noon of the last one). */
async function week(days = BACKUPS_KEPT): Promise<{ dir: string; file: string; store: ProfileStore }> {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date(2026, 0, 1, 12))
  const made = await fresh()
  for (let day = 1; day <= days; day++) {
    vi.setSystemTime(new Date(2026, 0, day, 12))
    await made.store.command({ op: 'profile.update', id: 'general', patch: { rules: `第 ${day} 天` } })
    await backedUp(made.store)
  }
  return made
}

const dailies = (store: ProfileStore) =>
  store
    .backups()
    .filter((b) => b.kind === 'daily')
    .map((b) => b.name)

/** Change backup `name`'s database with `sql` (as a backup a newer version or a damaged disk left). */
function alter(dir: string, name: string, sql: string): void {
  const db = new DatabaseSync(join(dir, 'profiles.backups', name, 'profiles.sqlite'))
  db.exec(sql)
  db.close()
}

/** Overwrite the middle of backup `name`'s database with garbage, keeping its first page (so it still opens). */
function damage(dir: string, name: string): void {
  const path = join(dir, 'profiles.backups', name, 'profiles.sqlite')
  const size = statSync(path).size
  const page = Buffer.alloc(4096)
  const fd = openSync(path, 'r+')
  readSync(fd, page, 0, 4096, 0)
  const pageSize = page.readUInt16BE(16) || 65536
  writeSync(fd, Buffer.alloc(size - pageSize, 0xa5), 0, size - pageSize, pageSize)
  closeSync(fd)
}

describe('a restore never costs a backup', () => {
  it(`with ${BACKUPS_KEPT} daily backups, restoring the oldest keeps all of them; its "before restore" copy counts apart`, async () => {
    const { store } = await week()
    const days = dailies(store)
    expect(days).toHaveLength(BACKUPS_KEPT)
    const oldest = days.at(-1)!
    expect(oldest).toBe('2026-01-01')
    vi.setSystemTime(new Date(2026, 0, BACKUPS_KEPT, 13))
    await store.restoreBackup(oldest)
    expect(store.state.profiles[0]!.rules).toBe('第 1 天')
    expect(dailies(store)).toEqual(days)
    expect(store.backups().filter((b) => b.kind === 'before-restore')).toHaveLength(1)
    // Restoring again and again (each makes a copy of its own) still removes no daily backup, nor any copy.
    for (let i = 0; i < BEFORE_RESTORE_KEPT + 2; i++) {
      vi.setSystemTime(new Date(2026, 0, BACKUPS_KEPT, 14, i))
      await store.restoreBackup(days[i % days.length]!)
    }
    expect(dailies(store)).toEqual(days)
    expect(store.backups().filter((b) => b.kind === 'before-restore')).toHaveLength(BEFORE_RESTORE_KEPT + 3)
    // The next day's backup prunes each rotation to its own count: the newest days, the newest copies.
    vi.setSystemTime(new Date(2026, 0, BACKUPS_KEPT + 1, 12))
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第二周' } })
    await backedUp(store)
    expect(dailies(store)).toEqual(['2026-01-08', ...days.slice(0, -1)])
    expect(store.backups().filter((b) => b.kind === 'before-restore')).toHaveLength(BEFORE_RESTORE_KEPT)
  })

  it('a backup that is damaged, made by a newer version or holds no profile is refused by rule, and nothing on disk changes', async () => {
    const { dir, store } = await week()
    alter(dir, '2026-01-02', `UPDATE meta SET value = ${SCHEMA_VERSION + 1} WHERE key = 'schema'`)
    alter(dir, '2026-01-03', 'DELETE FROM profiles')
    damage(dir, '2026-01-04')
    const state = store.state
    const disk = await snapshot(dir)
    const refusals = [
      ['2026-01-02', 'backup.newer'],
      ['2026-01-03', 'backup.empty'],
      ['2026-01-04', 'backup.damaged'],
    ] as const
    for (const [name, rule] of refusals) {
      for (let attempt = 0; attempt < 3; attempt++)
        await expect(store.restoreBackup(name)).rejects.toMatchObject({ code: 'conflict', rule, field: 'name' })
    }
    expect(store.state).toBe(state)
    expect(await snapshot(dir)).toEqual(disk)
    expect(dailies(store)).toHaveLength(BACKUPS_KEPT - 1)
    expect(store.lastError).toBeNull()
    // A sound one is restored as ever after them.
    await store.restoreBackup('2026-01-05')
    expect(store.state.profiles[0]!.rules).toBe('第 5 天')
  })
})

it('SIGKILL during a backup leaves no half backup: every backup listed is whole', async () => {
  const folder = await tempFolder('ap-backup-kill')
  const file = join(folder, 'profiles.sqlite')
  const seed = new DatabaseSync(file)
  seed.close()
  const store = await openStore({ file })
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: '大' } })
  await store.close()
  const bulk = new DatabaseSync(file)
  bulk.exec(
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO sessions (id, rev, data) SELECT 'bulk-' || i, 1, json_object('profileId', NULL, 'note', printf('%.300c', 'x'), 'memories', json_array()) FROM n",
  )
  const total = (bulk.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n
  bulk.close()
  const root = join(folder, 'profiles.backups')
  let whole = 0
  // What the last child said (its store's last error included), for the failure's message.
  let said = ''
  // Killed that long after the write that starts the backup; the last run is left to finish.
  for (const delay of [0, 5, 10, 20, 40, 80, 160, undefined]) {
    // A fresh day for each round: remove the finished backup so the next write takes one again.
    for (const n of existsSync(root) ? await readdir(root) : [])
      if (!n.startsWith('.partial-'))
        await import('node:fs/promises').then((fs) => fs.rm(join(root, n), { recursive: true }))
    const child = spawn(process.execPath, childArgs('store-child', 'touch', file), {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    said = ''
    child.stderr.on('data', (d: Buffer) => (said += d.toString()))
    await new Promise<void>((resolve) => {
      let wrote = false
      child.stdout.on('data', (d: Buffer) => {
        said += d.toString()
        if (wrote || !d.toString().includes('wrote')) return
        wrote = true
        if (delay !== undefined) setTimeout(() => child.kill('SIGKILL'), delay)
      })
      child.on('exit', () => resolve())
    })
    const names = existsSync(root) ? await readdir(root) : []
    for (const name of names.filter((n) => !n.startsWith('.partial-'))) {
      const db = new DatabaseSync(join(root, name, 'profiles.sqlite'), { readOnly: true })
      expect((db.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check).toBe('ok')
      expect((db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(total)
      db.close()
      whole++
    }
    // The live database is whole too.
    const live = new DatabaseSync(file, { readOnly: true })
    expect((live.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(total)
    live.close()
  }
  const reopened = await start(file)
  expect(reopened.backups().every((b) => b.sessions === total)).toBe(true)
  expect(whole, said).toBeGreaterThan(0)
}, 120_000)
