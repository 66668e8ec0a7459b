import { DatabaseSync as RealDatabase } from 'node:sqlite'
import { afterEach, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

// A database commit fails the way SQLite reports a full disk (SQLITE_FULL) while `full.on` is set.
const full = vi.hoisted(() => ({ on: false }))
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/store/db/sqlite.ts')>()
  class DatabaseSync extends real.DatabaseSync {
    override exec(sql: string): void {
      if (sql === 'COMMIT' && full.on && String(this.location()).endsWith('profiles.sqlite')) {
        throw Object.assign(new Error('database or disk is full'), {
          code: 'ERR_SQLITE_ERROR',
          errcode: 13,
          errstr: 'database or disk is full',
        })
      }
      return super.exec(sql)
    }
  }
  return { ...real, DatabaseSync }
})

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  full.on = false
  await ctx?.dispose()
  ctx = undefined
})

it('on a full disk an item and its index row fail together; once there is room both are written', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const owner = store.state.activeId
  await store.command({ op: 'memory.add', target: { profileId: owner }, items: [{ text: '磁盘满之前存的' }] })
  full.on = true
  await expectRefused(
    store,
    { op: 'memory.add', target: { profileId: owner }, items: [{ text: '磁盘满时想存的杭州' }] },
    { code: 'io' },
  )
  expect(store.searchIndex((i) => i.containing(owner, '杭州'))).toEqual([])
  const db = new RealDatabase(store.file, { readOnly: true })
  const rows = (sql: string) => (db.prepare(sql).get() as { n: number }).n
  expect(rows("SELECT count(*) AS n FROM memory_fts WHERE text LIKE '%杭州%'")).toBe(0)
  expect(rows("SELECT count(*) AS n FROM memory_items WHERE data LIKE '%杭州%'")).toBe(0)
  full.on = false
  await store.command({ op: 'memory.add', target: { profileId: owner }, items: [{ text: '磁盘满时想存的杭州' }] })
  expect(store.searchIndex((i) => i.containing(owner, '杭州'))).toHaveLength(1)
  expect(rows("SELECT count(*) AS n FROM memory_fts WHERE text LIKE '%杭州%'")).toBe(1)
  db.close()
  const again = await openStore({ file: store.file })
  expect(again.searchIndex((i) => i.containing(owner, '杭州'))).toHaveLength(1)
  await again.close()
})
