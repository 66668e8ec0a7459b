/**
 * Helpers for the store specs: open a store in a throwaway directory, and assert that a refused command names the
 * field and limit and changed nothing — not the state, not the revision, not a byte on disk.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { expect } from 'vitest'
import { StoreError, openStore, type Command, type ProfileStore, type StoreOptions } from '../lib/store.ts'
import { memoryLog, tempDir } from './store-fixtures.ts'

/**
 * A store on a fresh directory (with `seed` written first as the JSON data file of the layout before the database,
 * which the store then imports, when given), with its log, `open()` for
 * another store on the same (or another) file — as a restart would — and a disposer that closes every store it opened
 * and removes the directory.
 */
export async function freshStore(seed?: string, options: Omit<StoreOptions, 'file' | 'log'> = {}): Promise<{
  store: ProfileStore; dir: string; file: string; log: ReturnType<typeof memoryLog>
  open(file?: string, options?: Omit<StoreOptions, 'file'>): Promise<ProfileStore>; dispose(): Promise<void>
}> {
  const t = await tempDir()
  if (seed !== undefined) await writeFile(t.file, seed)
  const log = memoryLog()
  const store = await openStore({ ...options, file: t.file, log })
  const others: ProfileStore[] = []
  return {
    store, dir: t.dir, file: t.file, log,
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
  const part = (f: string) => readFile(f).then((b) => b.toString('base64'), () => '-')
  return `${await part(file)} ${await part(`${file}-wal`)}`
}

/** Expect `cmd` to be refused with this code (and field / limit when given), leaving memory and disk as they were. */
export async function expectRefused(
  store: ProfileStore,
  cmd: unknown,
  want: { code: StoreError['code']; field?: string; limit?: number },
): Promise<StoreError> {
  const before = { state: store.state, revision: store.revision, disk: await bytesOf(store.file) }
  const error = await store.command(cmd as Command).then(
    () => { throw new Error(`expected ${JSON.stringify(cmd).slice(0, 200)} to be refused`) },
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
