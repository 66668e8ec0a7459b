/**
 * The daily backup's copy and the one a restore takes first (`VACUUM INTO`, hundreds of milliseconds on a large
 * database) are written by a worker thread with a connection of its own, never on the store's connection, so that
 * the event loop keeps answering while they run; and what the thread writes is a sound copy of what was committed.
 */
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { dayOf } from '../../lib/store/db/backups.ts'
import { backedUp, freshStore } from '../support/store-helpers.ts'

// Every statement this thread prepares, so the spec can see which ones ran here (a worker thread loads its own,
// unmocked node:sqlite: what it runs is not seen here).
const seen = vi.hoisted(() => ({ sql: [] as string[] }))
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const { recordingSqlite } = await import('../support/seen-sql.ts')
  return recordingSqlite(await importOriginal(), seen.sql)
})

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  await ctx?.dispose()
  ctx = undefined
  seen.sql.length = 0
})

/** The items of `general` in the backup database `file`, after it passed SQLite's integrity check (the real SQLite). */
async function soundCopyItems(file: string): Promise<number> {
  const { DatabaseSync } = await vi.importActual<typeof import('node:sqlite')>('node:sqlite')
  const copy = new DatabaseSync(file, { readOnly: true })
  try {
    expect(copy.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    const n = copy.prepare("SELECT count(*) AS n FROM memory_items WHERE profile_id = 'general'").get() as { n: number }
    return n.n
  } finally {
    copy.close()
  }
}

const add = (n: number, tag: string) =>
  ctx!.store.command({
    op: 'memory.add',
    target: { profileId: 'general' },
    items: Array.from({ length: n }, (_, i) => ({ text: `用户的${tag}第 ${i} 条记忆` })),
  })

it('the daily backup is copied on a worker thread, not on the store connection, and holds the write whole', async () => {
  ctx = await freshStore()
  const { store, dir } = ctx
  await add(50, '')
  await backedUp(store)
  await store.close()
  expect(seen.sql.filter((s) => /VACUUM/i.test(s))).toEqual([])
  // A sound database that holds every committed item.
  expect(await soundCopyItems(join(dir, 'profiles.backups', dayOf(Date.now()), 'profiles.sqlite'))).toBe(50)
})

it('the copy a restore takes first is written on a worker thread too, and holds the data the restore replaced', async () => {
  ctx = await freshStore()
  const { store, dir } = ctx
  await add(50, '')
  await backedUp(store)
  await add(20, '后来')
  await store.restoreBackup(dayOf(Date.now()))
  expect(store.state.profiles.find((p) => p.id === 'general')!.memory.items).toHaveLength(50)
  const before = store.backups().find((b) => b.kind === 'before-restore')!
  await store.close()
  expect(seen.sql.filter((s) => /VACUUM/i.test(s))).toEqual([])
  expect(await soundCopyItems(join(dir, 'profiles.backups', before.name, 'profiles.sqlite'))).toBe(70)
})
