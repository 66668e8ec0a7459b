import { chmod, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { backedUp, childReport, expectRefused, freshStore, snapshot } from '../support/store-helpers.ts'
import { stateDigest, tempDir, webpAvatar } from '../support/store-fixtures.ts'

// A disk that fills up: write-file-atomic (an avatar) fails with ENOSPC for the files `failWhen` selects, and a
// database commit, or a copy of the database (`VACUUM INTO`, as a backup takes), fails the way SQLite reports a full
// disk (SQLITE_FULL) when `failWhen` selects the database or the copy.
const disk = vi.hoisted(() => ({ failWhen: null as null | ((file: string) => boolean) }))
const full = (file: string) =>
  Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC' })
vi.mock('write-file-atomic', async (importOriginal) => {
  const real = (await importOriginal<{ default: (...args: unknown[]) => Promise<void> }>()).default
  return {
    default: async (file: string, ...rest: unknown[]) => {
      if (disk.failWhen?.(file)) throw full(file)
      return real(file, ...rest)
    },
  }
})
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/store/db/sqlite.ts')>()
  const sqliteFull = () =>
    Object.assign(new Error('database or disk is full'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 13,
      errstr: 'database or disk is full',
    })
  class DatabaseSync extends real.DatabaseSync {
    override exec(sql: string): void {
      if (sql === 'COMMIT' && disk.failWhen?.(String(this.location()))) throw sqliteFull()
      return super.exec(sql)
    }
    override prepare(sql: string): import('node:sqlite').StatementSync {
      const statement = super.prepare(sql)
      if (!sql.startsWith('VACUUM INTO')) return statement
      // The copy fails once half written, as a disk that fills during it leaves it.
      const run = statement.run.bind(statement)
      return Object.assign(statement, {
        run: (target: string) => {
          if (!disk.failWhen?.(target)) return run(target)
          run(target)
          throw sqliteFull()
        },
      })
    }
  }
  return { ...real, DatabaseSync }
})
// The daily backup's copy runs on a worker thread, which loads its own node:sqlite out of the mock's reach: here the
// same job runs on this thread, so that the full disk reaches it.
vi.mock('../../lib/store/db/store-thread.ts', () => ({
  runInThread: async (job: import('../../lib/store/db/store-jobs.ts').StoreJob) =>
    (await import('../../lib/store/db/store-jobs.ts')).runStoreJob(job),
}))
/** The database. */
const dataFile = (f: string) => f.endsWith('profiles.sqlite')

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
const extra: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  disk.failWhen = null
  vi.useRealTimers()
  await ctx?.dispose()
  ctx = undefined
  for (const d of extra.splice(0)) await d.dispose()
})

describe('write failures leave memory and disk as they were and report the error', () => {
  it('a full disk on the database', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '已保存的' } })
    // The day's backup that write asked for is taken before the disk fills (its copy is named profiles.sqlite too).
    await backedUp(store)
    const heard: unknown[] = []
    store.onChange((s) => heard.push(s))
    disk.failWhen = dataFile
    const e = await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { rules: '没存进去' } },
      { code: 'io' },
    )
    expect(e.message).toMatch(/disk is full/)
    expect(store.lastError?.message).toMatch(/disk is full/)
    expect(store.lastError?.why).toEqual({ key: 'not-saved', detail: expect.stringMatching(/disk is full/) })
    expect(heard).toEqual([])
    expect(store.state.profiles[0]!.rules).toBe('已保存的')
    disk.failWhen = null
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '恢复后存进去' } })
    expect(heard).toHaveLength(1)
    const again = await openStore({ file: store.file })
    expect(again.state.profiles[0]!.rules).toBe('恢复后存进去')
    await again.close()
  })

  it('a replacement whose write fails on a full disk loses neither fact: the old one stays, and the new one saves once the disk has room', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户住在北京' }] })
    const old = store.state.user!.items[0]!
    const move = { op: 'memory.add', target: { user: true }, items: [{ text: '用户搬到了上海', replaces: old.id }] }
    disk.failWhen = dataFile
    await expectRefused(store, move, { code: 'io' })
    disk.failWhen = null
    const reopened = await openStore({ file: store.file })
    expect(reopened.state.user!.items.map((it) => it.text)).toEqual(['用户住在北京'])
    await reopened.close()
    await store.command(move as never)
    expect(store.state.user!.items.map((it) => it.text)).toEqual(['用户搬到了上海'])
  })

  it('ENOSPC on an avatar file: the database is not touched and no avatar is referenced that is not there', async () => {
    ctx = await freshStore()
    const { store } = ctx
    disk.failWhen = (f) => f.includes('.avatars')
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { avatar: webpAvatar(10_000) } },
      { code: 'io' },
    )
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '文字照常' } })
    disk.failWhen = null
    const again = await openStore({ file: store.file })
    expect(again.lastError).toBeNull()
    expect(again.state.profiles[0]).toMatchObject({ avatar: '', rules: '文字照常' })
    await again.close()
  })

  it('a full disk on the database after a new avatar was written: that avatar file is collected by the next good write', async () => {
    ctx = await freshStore()
    const { store } = ctx
    const avatars = () => readdir(join(ctx!.dir, 'profiles.avatars')).catch(() => [] as string[])
    disk.failWhen = dataFile
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { avatar: webpAvatar(10_000) } },
      { code: 'io' },
    )
    expect(await avatars()).toHaveLength(1)
    disk.failWhen = null
    await store.command({ op: 'profile.activate', id: 'coder' })
    expect(await avatars()).toEqual([])
  })

  it('a read-only data directory (as an unprivileged user): refused as unwritable, nothing changes', async () => {
    const t = await tempDir('ap-ro')
    extra.push({
      dispose: async () => {
        await chmod(t.dir, 0o755).catch(() => {})
        await t.dispose()
      },
    })
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '原样', avatar: webpAvatar(5_000) } })
    await seed.close()
    // The files stay readable to the user who now runs the store; only writing is impossible.
    for (const f of Object.keys(await snapshot(t.dir))) await chmod(f, 0o644)
    const before = await snapshot(t.dir)
    await chmod(join(t.dir, 'profiles.avatars'), 0o555)
    await chmod(t.dir, 0o555)
    const out = await childReport(t.file)
    expect(out.opened).toBeNull()
    expect(out.error?.code).toBe('unwritable')
    expect(out.after).toEqual(out.before)
    expect(out.lastError?.message).toMatch(/EACCES|EROFS|EPERM/)
    expect(out.lastError?.why).toEqual({ key: 'unwritable', detail: expect.stringMatching(/EACCES|EROFS|EPERM/) })
    expect(await snapshot(t.dir)).toEqual(before)
  })
  it('a read-only data directory whose path holds "#" and "?" is read all the same (the path is never cut at them)', async () => {
    const t = await tempDir('ap-ro-#1?x%20')
    extra.push({
      dispose: async () => {
        await chmod(t.dir, 0o755).catch(() => {})
        await t.dispose()
      },
    })
    const seed = await openStore({ file: t.file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '路径里有井号和问号' } })
    const digest = stateDigest(seed)
    await seed.close()
    for (const f of Object.keys(await snapshot(t.dir))) await chmod(f, 0o644)
    await chmod(t.dir, 0o555)
    const out = await childReport(t.file)
    // Read as it is, not the factory profiles: the load found no problem, only that nothing can be written.
    expect(out.opened).toBeNull()
    expect(out.before.digest).toBe(digest)
    expect(out.error?.code).toBe('unwritable')
    expect(out.error?.message).toMatch(/cannot be written/)
  })
})

// A database of a newer schema is never kept aside (test/store/store-schema.spec.ts), nor is one with rows this
// version's rules refuse (test/store/store-rows.spec.ts): only a file SQLite cannot use, or one that fails quick_check.
describe('a disk that fills during the daily backup', () => {
  it('leaves every earlier backup in place, and Diagnostics and the log say that day has none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    ctx = await freshStore()
    const { store, log } = ctx
    for (let day = 1; day <= 7; day++) {
      vi.setSystemTime(new Date(2026, 0, day, 12))
      await store.command({ op: 'profile.update', id: 'general', patch: { rules: `第 ${day} 天` } })
      await backedUp(store)
    }
    const week = store.backups().map((b) => b.name)
    expect(week).toHaveLength(7)
    disk.failWhen = (f) => f.includes('profiles.backups')
    vi.setSystemTime(new Date(2026, 0, 8, 12))
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第 8 天' } })
    await vi.waitFor(() => expect(store.lastError?.why.key).toBe('backup-failed'), { timeout: 30_000, interval: 10 })
    expect(store.backups().map((b) => b.name)).toEqual(week)
    expect(await readdir(join(ctx.dir, 'profiles.backups'))).toEqual(expect.arrayContaining(week))
    expect((await readdir(join(ctx.dir, 'profiles.backups'))).filter((n) => !week.includes(n))).toEqual([])
    expect(store.lastError?.why).toEqual({
      key: 'backup-failed',
      params: { day: '2026-01-08' },
      detail: expect.stringContaining('disk is full'),
    })
    expect(log.lines.some((l) => /^error agent-profiles: .*daily backup of 2026-01-08 failed/.test(l))).toBe(true)
    // The save itself was kept, and a later write with room again takes the day's backup.
    expect(store.state.profiles[0]!.rules).toBe('第 8 天')
    disk.failWhen = null
    vi.setSystemTime(new Date(2026, 0, 9, 12))
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第 9 天' } })
    await backedUp(store)
    expect(store.backups()[0]!.name).toBe('2026-01-09')
  })
})
