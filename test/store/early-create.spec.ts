/**
 * The plugin's store creates the database of a fresh home on a worker thread as it opens (creating the schema took
 * 100–400 ms on the event loop, inside the first save's request): the first save runs no schema creation on the
 * store's thread, and writes the whole state into what the worker made, whether it comes before or after the
 * creation is done.
 */
import { existsSync } from 'node:fs'
import { afterEach, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { tempDir } from '../support/store-fixtures.ts'

// Every statement this thread runs (a worker thread loads its own, unmocked node:sqlite: what it runs is not seen).
const seen = vi.hoisted(() => ({ sql: [] as string[] }))
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const { recordingSqlite } = await import('../support/seen-sql.ts')
  return recordingSqlite(await importOriginal(), seen.sql)
})

const stores: ProfileStore[] = []
const dirs: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
  seen.sql.length = 0
})

async function fresh(): Promise<{ file: string; store: ProfileStore }> {
  const t = await tempDir()
  dirs.push(t)
  const store = await openStore({ file: t.file, createEarly: true })
  stores.push(store)
  return { file: store.file, store }
}

/** A statement only the schema's creation runs: it marks the file as this plugin's. */
const creates = (sql: string) => /PRAGMA application_id\s*=/i.test(sql)

/** What another process opening the file reads. */
async function reread(file: string): Promise<{ names: string[]; rules: string }> {
  const other = await openStore({ file })
  stores.push(other)
  const general = other.state.profiles.find((p) => p.id === 'general')!
  return { names: other.state.profiles.map((p) => p.name), rules: general.rules }
}

/** Whether the schema is in place: read with the real SQLite, as another program would. */
async function created(file: string): Promise<boolean> {
  if (!existsSync(file)) return false
  const { DatabaseSync } = await vi.importActual<typeof import('node:sqlite')>('node:sqlite')
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'profiles'").get()!.n === 1
  } catch {
    return false
  } finally {
    db.close()
  }
}

it("a fresh home's first save, sent at once, runs no schema creation on the store's thread and keeps everything", async () => {
  const { file, store } = await fresh()
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: '第一次保存' } })
  expect(seen.sql.filter((s) => creates(s))).toEqual([])
  expect(await reread(file)).toEqual({ names: ['通用助手', '编程搭档', '写作顾问'], rules: '第一次保存' })
})

it('a save after the database was made and read writes the whole state into it, not only what changed', async () => {
  const { file, store } = await fresh()
  await vi.waitFor(async () => expect(await created(file)).toBe(true), { timeout: 30_000, interval: 20 })
  // A read opens what the worker made, empty (its search index is there to query once it is open); then the first save.
  await vi.waitFor(() => expect(store.searchIndex(() => true)).toBe(true), { timeout: 30_000, interval: 20 })
  expect(store.state.profiles).toHaveLength(3)
  await store.command({ op: 'profile.update', id: 'general', patch: { rules: '读过之后保存' } })
  expect(seen.sql.filter((s) => creates(s))).toEqual([])
  expect(await reread(file)).toEqual({ names: ['通用助手', '编程搭档', '写作顾问'], rules: '读过之后保存' })
})
