/**
 * Helpers for the store specs: open a store in a throwaway directory, and assert that a refused command names the
 * field and limit and changed nothing — not the state, not the revision, not a byte on disk.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, vi } from 'vitest'
import { dayOf, hasBackup } from '../../lib/store/db/backups.ts'
import { layoutOf } from '../../lib/store/db/layout.ts'
import type { Command, ProfileStore, StoreOptions } from '../../lib/store/store.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { memoryLog, tempDir } from './store-fixtures.ts'
import type { FileError, ImportNoteKey } from '../../lib/shared/import-notes.ts'
import type { FileResult } from '../../lib/shared/import-report.ts'
import type { LoadError } from '../../lib/shared/meta.ts'
import { StoreError } from '../../lib/shared/errors.ts'
import { childArgs } from './children.ts'

/** What {@link perTest} gives a spec. */
export interface PerTest {
  /** Open a store on `file`, closed after the test. */
  start(file: string): Promise<ProfileStore>
  /** A fresh directory, removed after the test. */
  dir(label?: string): Promise<string>
  /** The test closed `store` itself: do not close it again. */
  closed(store: ProfileStore): void
}

/** Stores and directories a spec opens, closed and removed after each test (registers its own afterEach). */
export function perTest(): PerTest {
  const stores: ProfileStore[] = []
  const dirs: { dispose(): Promise<void> }[] = []
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close()
    for (const d of dirs.splice(0)) await d.dispose()
  })
  return {
    async start(file) {
      const store = await openStore({ file })
      stores.push(store)
      return store
    },
    async dir(label) {
      const t = await tempDir(label)
      dirs.push(t)
      return t.dir
    },
    closed(store) {
      const at = stores.indexOf(store)
      if (at >= 0) stores.splice(at, 1)
    },
  }
}

/**
 * A store on a fresh directory (with `seed` written first as the JSON data file of the layout before the database,
 * which the store then imports, when given), with its log, `open()` for
 * another store on the same (or another) file — as a restart would — and a disposer that closes every store it opened
 * and removes the directory.
 */
export async function freshStore(
  seed?: string,
  options: Omit<StoreOptions, 'file' | 'log'> = {},
): Promise<{
  store: ProfileStore
  dir: string
  file: string
  log: ReturnType<typeof memoryLog>
  open(file?: string, options?: Omit<StoreOptions, 'file'>): Promise<ProfileStore>
  dispose(): Promise<void>
}> {
  const t = await tempDir()
  if (seed !== undefined) await writeFile(t.file, seed)
  const log = memoryLog()
  const store = await openStore({ ...options, file: t.file, log })
  const others: ProfileStore[] = []
  return {
    store,
    dir: t.dir,
    file: t.file,
    log,
    async open(file = t.file, more = {}) {
      const s = await openStore({ ...more, file })
      others.push(s)
      return s
    },
    dispose: async () => {
      for (const s of others.splice(0)) await s.close()
      await store.close()
      await t.dispose()
    },
  }
}

/** The database's bytes with its write-ahead log's, where a commit lands first. */
async function bytesOf(file: string): Promise<string | null> {
  const part = (f: string) =>
    readFile(f).then(
      (b) => b.toString('base64'),
      () => '-',
    )
  return `${await part(file)} ${await part(`${file}-wal`)}`
}

/** Expect `cmd` to be refused with this code (and field / limit when given), leaving memory and disk as they were. */
/**
 * A fresh store of `profiles` profiles, each saved whole with `perProfile` items of words shared across them (what
 * an import or a restore writes), and the profiles' ids in order.
 */
export async function bulkLoadedStore(
  profiles: number,
  perProfile: number,
  options: Omit<StoreOptions, 'file' | 'log'> = {},
): Promise<{ t: Awaited<ReturnType<typeof freshStore>>; ids: string[] }> {
  const t = await freshStore(undefined, options)
  for (let p = 1; p < profiles; p++) await t.store.command({ op: 'profile.create', profile: { name: `档案${p}` } })
  const ids = t.store.state.profiles.map((p) => p.id)
  for (const [p, id] of ids.entries()) {
    const items = Array.from({ length: perProfile }, (_, i) => ({
      id: `m${p}-${i}`,
      text: `第${i}条：用户提到项目${i % 37}的进展，关键词 k${i % 997}`,
      source: 'auto' as const,
      at: 1_700_000_000_000 + i * 60_000,
    }))
    await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  }
  return { t, ids }
}

/** Whether `file` marks a merge of its index as due (no database, or one without the mark's table, marks none). */
export function mergeMarked(file: string): boolean {
  if (!existsSync(file)) return false
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_index_merge'").get()
    return table !== undefined && db.prepare('SELECT 1 FROM memory_index_merge').get() !== undefined
  } finally {
    db.close()
  }
}

/** Wait, a bounded while, for the background merge of `file`'s index to end (it rewrites the file meanwhile). */
export async function indexMerged(file: string): Promise<void> {
  for (let tries = 0; tries < 1_500 && mergeMarked(file); tries++) await new Promise((r) => setTimeout(r, 20))
}

export async function expectRefused(
  store: ProfileStore,
  cmd: unknown,
  want: { code: StoreError['code']; field?: string; limit?: number },
): Promise<StoreError> {
  // A bulk write before the refusal (a memory filled to its limit) leaves the index merging in the background, which
  // rewrites the file: the refusal is compared with the file once that is over.
  await indexMerged(store.file)
  const before = { state: store.state, revision: store.revision, disk: await bytesOf(store.file) }
  const error = await store.command(cmd as Command).then(
    () => {
      throw new Error(`expected ${JSON.stringify(cmd).slice(0, 200)} to be refused`)
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(StoreError)
  const e = error as StoreError
  expect(e.code).toBe(want.code)
  if (want.field !== undefined) expect(e.field).toBe(want.field)
  if (want.limit !== undefined) {
    expect(e.limit).toBe(want.limit)
    expect(e.message).toContain(String(want.limit))
  }
  if (e.field !== undefined) expect(e.message).toContain(e.field)
  expect(store.state).toBe(before.state)
  expect(store.revision).toBe(before.revision)
  expect(await bytesOf(store.file)).toBe(before.disk)
  return e
}

/** File names and contents under `dir`, to prove nothing on disk changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out[join(entry.parentPath, entry.name)] = (await readFile(join(entry.parentPath, entry.name))).toString('base64')
  }
  return out
}

export interface ChildOut {
  before: { revision: number; digest: string }
  after: { revision: number; digest: string }
  error: { code?: string; message: string } | null
  opened: Pick<LoadError, 'message' | 'why'> | null
  lastError: Pick<LoadError, 'message' | 'why'> | null
}

/**
 * Run one write attempt in a child process. Root ignores directory permissions, so as root the child runs as
 * `nobody` — the only way to meet a read-only directory the way a user would.
 */
export function childReport(file: string): Promise<ChildOut> {
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, childArgs('store-child', 'readonly', file), {
      ...asNobody,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    p.stdout.on('data', (c: Buffer) => void (out += c.toString()))
    p.stderr.on('data', (c: Buffer) => void (err += c.toString()))
    p.on('error', reject)
    p.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ChildOut) : reject(new Error(`child failed (${code}): ${err}`)),
    )
  })
}

/** What `profiles.importFiles` answers, as the import specs read it. */
export interface ImportReply {
  imported: number
  files: FileResult[]
  userAdded: number
}

/** Import `files` into `store` through the command the settings page sends. */
export async function importFilesInto(store: ProfileStore, ...files: unknown[]): Promise<ImportReply> {
  return (await store.command({ op: 'profiles.importFiles', files } as unknown as Command)) as unknown as ImportReply
}

/**
 * Expect an import of `files` in which none could be imported: each file's outcome is an error (the first's with this
 * key, field and limit when given), and memory and disk are as they were. Returns the first file's error.
 */
export async function expectFileFailed(
  store: ProfileStore,
  files: unknown[],
  want: { key?: ImportNoteKey; field?: string; limit?: number } = {},
): Promise<FileError> {
  // A bulk write before the refusal (a memory filled to its limit) leaves the index merging in the background, which
  // rewrites the file: the refusal is compared with the file once that is over.
  await indexMerged(store.file)
  const before = { state: store.state, revision: store.revision, disk: await bytesOf(store.file) }
  const reply = (await store.command({ op: 'profiles.importFiles', files } as unknown as Command)) as unknown as {
    imported: number
    files: { error?: FileError }[]
  }
  expect(reply.imported).toBe(0)
  for (const f of reply.files) expect(f.error).toBeDefined()
  const e = reply.files[0]!.error!
  if (want.key !== undefined) expect(e.key).toBe(want.key)
  if (want.field !== undefined) expect(e.field).toBe(want.field)
  if (want.limit !== undefined) expect(e.limit).toBe(want.limit)
  expect(store.state).toBe(before.state)
  expect(store.revision).toBe(before.revision)
  expect(await bytesOf(store.file)).toBe(before.disk)
  return e
}

/**
 * Wait until today's backup of `store` is in place (after a write, the daily backup is taken on a worker thread, so
 * it lands some time after the write's answer; pruning follows in the same turn).
 */
export async function backedUp(store: ProfileStore): Promise<void> {
  const day = dayOf(Date.now())
  await vi.waitFor(() => expect(hasBackup(layoutOf(store.file), day)).toBe(true), { timeout: 30_000, interval: 10 })
}

/** Wait until `done()` (asked every 50 ms, for 30 s at most), or fail naming `what` was waited for. */
export async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 50))
  if (!done()) throw new Error(`timed out waiting for ${what}`)
}

/**
 * A store file of `profiles` profiles of `per` items each (`itemOf(profile, index)`), written into the rows directly,
 * as years of saves leave them (the store's own commands take minutes for 100,000): the file, the profiles' ids and
 * the closed store's temp dir (the caller disposes of it).
 */
export async function seededStore(
  profiles: number,
  per: number,
  itemOf: (profile: number, index: number) => MemoryItem,
): Promise<{ t: Awaited<ReturnType<typeof freshStore>>; file: string; ids: string[] }> {
  const t = await freshStore()
  for (let p = 1; p < profiles; p++) await t.store.command({ op: 'profile.create', profile: { name: `档案 ${p}` } })
  const ids = t.store.state.profiles.map((x) => x.id)
  await t.store.close()
  const file = t.file.replace(/\.json$/, '.sqlite')
  const db = new DatabaseSync(file)
  const insert = db.prepare('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?)')
  db.exec('BEGIN')
  for (const [p, id] of ids.entries())
    for (let i = 0; i < per; i++) insert.run(id, `m${p}-${i}`, i, JSON.stringify(itemOf(p, i)))
  db.exec('COMMIT')
  db.close()
  return { t, file, ids }
}
