/**
 * The first start on a data directory written by the layout before the database (test/fixtures/legacy-e121011: files
 * the code at e121011 wrote): everything is imported in one transaction, losslessly, the old files are renamed aside
 * and never read again; a damaged snapshot is kept aside as that code did; a failed import changes nothing on disk,
 * shows the old data and says why.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync } from 'node:fs'
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { canonicalJson, tempDir } from '../support/store-fixtures.ts'
import { childReport, snapshot } from '../support/store-helpers.ts'

// A disk that is full when `full` is set: every commit fails the way SQLite reports it.
const disk = vi.hoisted(() => ({ full: false }))
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/store/db/sqlite.ts')>()
  class DatabaseSync extends real.DatabaseSync {
    override exec(sql: string): void {
      if (sql === 'COMMIT' && disk.full)
        throw Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 })
      return super.exec(sql)
    }
  }
  return { ...real, DatabaseSync }
})

const FIXTURES = fileURLToPath(new URL('../support/fixtures/legacy-e121011/', import.meta.url))
const expected = JSON.parse(await readFile(join(FIXTURES, 'full.expected.json'), 'utf8')) as {
  revision: number
  state: unknown
  turns: Record<string, Record<number, string>>
}

const dirs: { dispose(): Promise<void> }[] = []
const stores: ProfileStore[] = []
afterEach(async () => {
  disk.full = false
  for (const s of stores.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

/** A copy of one fixture data directory; `file` is its old data file. */
async function copyOf(name: 'full' | 'torn' | 'corrupt'): Promise<{ dir: string; file: string }> {
  const t = await tempDir(`ap-migrate-${name}`)
  dirs.push({
    dispose: async () => {
      await chmod(t.dir, 0o755).catch(() => {})
      await t.dispose()
    },
  })
  cpSync(join(FIXTURES, name), t.dir, { recursive: true })
  return t
}

async function open(file: string): Promise<ProfileStore> {
  const s = await openStore({ file })
  stores.push(s)
  return s
}

/** The state as the generator recorded it: avatars as the SHA-256 of their data URL. */
const digest = (store: ProfileStore) =>
  canonicalJson({
    ...store.state,
    profiles: store.state.profiles.map((p) => ({
      ...p,
      avatar: p.avatar === '' ? '' : createHash('sha256').update(p.avatar).digest('hex'),
    })),
  })

describe('importing the files of the layout before the database', () => {
  it.each(['full', 'torn'] as const)(
    '%s: every profile, avatar, memory, conversation setting, undo copy and turn comes across; the old files are renamed aside',
    async (name) => {
      const t = await copyOf(name)
      const store = await open(t.file)
      expect(store.lastError).toBeNull()
      expect(store.revision).toBe(expected.revision)
      expect(digest(store)).toBe(canonicalJson(expected.state))
      expect(store.state.memoryUndo?.coder?.memory.items).toHaveLength(30)
      for (const [sessionId, turns] of Object.entries(expected.turns)) expect(store.turnsOf(sessionId)).toEqual(turns)
      const names = await readdir(t.dir)
      expect(names).toContain('profiles.sqlite')
      for (const old of ['profiles.json', 'profiles.wal', 'profiles.turns.jsonl']) {
        expect(names).not.toContain(old)
        expect(names.some((n) => n.startsWith(`${old}.migrated-`))).toBe(true)
      }
      expect(names.some((n) => n.includes('.migrating'))).toBe(false)
      // A restart reads the database only, and the next change goes on from the imported revision.
      await store.close()
      const again = await open(t.file)
      expect(digest(again)).toBe(canonicalJson(expected.state))
      await again.command({ op: 'profile.update', id: 'general', patch: { rules: '迁移之后' } })
      expect(again.revision).toBe(expected.revision + 1)
      const db = new DatabaseSync(again.file, { readOnly: true })
      expect(db.prepare('PRAGMA quick_check').all()).toEqual([{ quick_check: 'ok' }])
      db.close()
    },
  )

  it('a damaged snapshot is kept aside as that code did; the factory profiles start; the turns still come across', async () => {
    const t = await copyOf('corrupt')
    const damaged = await readFile(t.file, 'utf8')
    const store = await open(t.file)
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(store.lastError?.message).toMatch(
      /profiles\.json is not valid JSON.*started on the factory profiles.*kept as profiles\.json\.bad-/,
    )
    expect(store.lastError?.why).toEqual({
      key: 'old-file-damaged',
      params: { file: 'profiles.json' },
      detail: expect.stringMatching(/JSON/),
      outcome: 'factory-kept',
    })
    expect(await readFile(store.lastError!.keptAs!, 'utf8')).toBe(damaged)
    const names = await readdir(t.dir)
    expect(names.some((n) => n.startsWith('profiles.wal.bad-'))).toBe(true)
    expect(store.turnsOf('session-1')).toEqual(expected.turns['session-1'])
    // Saving works, and the kept file stays as it was.
    await store.command({ op: 'profile.create', profile: { name: '重新开始' } })
    expect(await readFile(store.lastError!.keptAs!, 'utf8')).toBe(damaged)
  })

  it('an old log line whose field is of another kind (its checksum right) is damage, as a torn line before the last is', async () => {
    const t = await copyOf('full')
    const wal = join(t.dir, 'profiles.wal')
    const lines = (await readFile(wal, 'utf8')).split('\n')
    // The first batch names the profiles' order as one id, not a list of them.
    const payload = JSON.stringify({ ...JSON.parse(lines[0]!.slice(17)), o: 'coder' })
    lines[0] = `${createHash('sha256').update(payload).digest('hex').slice(0, 16)} ${payload}`
    await writeFile(wal, lines.join('\n'))
    const store = await open(t.file)
    expect(store.lastError?.message).toMatch(/profiles\.wal is damaged \(line 1 of \d+ is damaged\)/)
    expect(store.lastError?.why).toMatchObject({ key: 'old-file-damaged', params: { file: 'profiles.wal' } })
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
  })

  it('a failed import (the disk is full) changes nothing on disk, shows the old data, saves nothing and says why; the next start imports', async () => {
    const t = await copyOf('full')
    const before = await snapshot(t.dir)
    disk.full = true
    const store = await open(t.file)
    expect(store.lastError?.message).toMatch(
      /could not be moved into the database \(.*disk is full\)\); nothing on disk was changed/,
    )
    expect(store.lastError?.why).toEqual({ key: 'import-failed', detail: expect.stringMatching(/disk is full/) })
    expect(digest(store)).toBe(canonicalJson(expected.state))
    await expect(store.command({ op: 'profile.activate', id: 'general' })).rejects.toMatchObject({ code: 'io' })
    await expect(
      store.command({ op: 'turn.record', sessionId: 's', turn: 1, profileId: 'general' }),
    ).rejects.toMatchObject({ code: 'io' })
    expect(await snapshot(t.dir)).toEqual(before)
    await store.close()
    disk.full = false
    const again = await open(t.file)
    expect(again.lastError).toBeNull()
    expect(digest(again)).toBe(canonicalJson(expected.state))
  })

  it('a failed import in a read-only directory changes nothing on disk (as an unprivileged user)', async () => {
    const t = await copyOf('full')
    for (const f of Object.keys(await snapshot(t.dir))) await chmod(f, 0o644)
    await chmod(join(t.dir, 'profiles.avatars'), 0o755)
    const before = await snapshot(t.dir)
    await chmod(t.dir, 0o555)
    const out = await childReport(t.file)
    expect(out.opened?.message).toMatch(/could not be moved into the database.*nothing on disk was changed/)
    expect(out.before.revision).toBe(expected.revision)
    expect(out.error?.code).toBe('io')
    expect(await snapshot(t.dir)).toEqual(before)
  })

  it('a crash after the import but before the old files were renamed: the next start uses the database and renames them', async () => {
    const t = await copyOf('full')
    const store = await open(t.file)
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '只在数据库里' } })
    await store.close()
    // The old files back in place, as a crash right after the import would leave them.
    cpSync(join(FIXTURES, 'full'), t.dir, { recursive: true })
    const again = await open(t.file)
    expect(again.state.profiles.find((p) => p.id === 'general')!.rules).toBe('只在数据库里')
    expect(existsSync(t.file)).toBe(false)
  })

  it('an older version of the plugin still saving (its writer lock held by a live process): nothing is imported yet, nothing saved', async () => {
    const t = await copyOf('full')
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    try {
      await writeFile(
        join(t.dir, 'profiles.lock'),
        JSON.stringify({ pid: holder.pid, host: hostname(), since: Date.now() }),
      )
      const before = await snapshot(t.dir)
      const store = await open(t.file)
      expect(store.lastError?.message).toMatch(new RegExp(`older version of this plugin \\(process ${holder.pid}\\)`))
      expect(store.lastError?.why).toEqual({ key: 'old-process', params: { pid: holder.pid } })
      expect(digest(store)).toBe(canonicalJson(expected.state))
      await expect(store.command({ op: 'profile.activate', id: 'general' })).rejects.toMatchObject({ code: 'io' })
      expect(await snapshot(t.dir)).toEqual(before)
    } finally {
      holder.kill('SIGKILL')
    }
  })
})
