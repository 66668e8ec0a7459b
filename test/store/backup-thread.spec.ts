/**
 * The daily backup's copy (`VACUUM INTO`, hundreds of milliseconds on a large database) is written by a worker thread
 * with a connection of its own, never on the store's connection, so that the event loop keeps answering while it
 * runs; and what the thread writes is a sound copy of what was committed.
 */
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { dayOf } from '../../lib/store/db/backups.ts'
import { backedUp, freshStore } from '../support/store-helpers.ts'

// Every statement this thread prepares, so the spec can see which ones ran here (a worker thread loads its own,
// unmocked node:sqlite: what it runs is not seen here).
const seen = vi.hoisted(() => ({ sql: [] as string[] }))
vi.mock('node:sqlite', async (importOriginal) => {
  const { recordingSqlite } = await import('../support/seen-sql.ts')
  return recordingSqlite(await importOriginal(), seen.sql)
})

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  await ctx?.dispose()
  ctx = undefined
})

it('the daily backup is copied on a worker thread, not on the store connection, and holds the write whole', async () => {
  ctx = await freshStore()
  const { store, dir } = ctx
  const items = Array.from({ length: 50 }, (_, i) => ({ text: `用户的第 ${i} 条记忆` }))
  await store.command({ op: 'memory.add', target: { profileId: 'general' }, items })
  await backedUp(store)
  await store.close()
  expect(seen.sql.filter((s) => /VACUUM/i.test(s))).toEqual([])
  // The copy is a sound database that holds every committed item (read with the real SQLite, outside the store).
  const { DatabaseSync } = await vi.importActual<typeof import('node:sqlite')>('node:sqlite')
  const copy = new DatabaseSync(join(dir, 'profiles.backups', dayOf(Date.now()), 'profiles.sqlite'), { readOnly: true })
  try {
    expect(copy.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    const n = copy.prepare("SELECT count(*) AS n FROM memory_items WHERE profile_id = 'general'").get() as { n: number }
    expect(n.n).toBe(50)
  } finally {
    copy.close()
  }
})
