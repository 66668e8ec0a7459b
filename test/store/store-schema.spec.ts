/**
 * The schema across versions: a database of schema 1 written by the code at 1bd9717 (test/support/fixtures/
 * schema1-1bd9717) migrates to this version's schema keeping everything, and one of 100,000 items does so reading a
 * bounded part of the file at the start (no copy first: no migration changes a row); SIGKILL during a migration leaves the old database or the new one, never half; a database of a
 * newer schema is opened read-only with its file byte-identical afterwards (or, when this version cannot read it, not
 * opened, and no fresh database is made beside it); and a process of this version beside one that moves the database
 * to a newer schema stops writing and keeps reading.
 */
import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { chmod, cp, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../../lib/store/db/schema.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { childReport, expectRefused, perTest, snapshot } from '../support/store-helpers.ts'
import { longItem } from '../support/memory-items.ts'
import { childArgs } from '../support/children.ts'

const FIXTURE = fileURLToPath(new URL('../support/fixtures/schema1-1bd9717/', import.meta.url))

const { start, dir, closed } = perTest()

/** The fixture, copied into a fresh directory; its database's path. */
async function fixture(): Promise<string> {
  const d = await dir('ap-schema')
  await cp(FIXTURE, d, { recursive: true })
  return join(d, 'profiles.sqlite')
}

/** The schema numbers of a database, read without writing. */
function numbers(file: string): { schema: unknown; readableFrom: unknown } {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const schema = (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: unknown } | undefined)
      ?.value
    return {
      schema: schema ?? null,
      readableFrom: (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    }
  } finally {
    db.close()
  }
}

function sql(file: string, statement: string): void {
  const db = new DatabaseSync(file)
  db.exec(statement)
  db.close()
}

interface Expected {
  revision: number
  activeId: string
  profiles: { id: string; name: string; items: string[]; summary: string; avatar: boolean }[]
  sessions: [string, unknown][]
  user: unknown
  undo: string[]
  history: Record<string, number>
  turns: Record<string, string>
  retired: string
  retiredId: string
}

describe('migrations', () => {
  it('a schema-1 database written by the code at 1bd9717 migrates to the current schema keeping everything', async () => {
    const file = await fixture()
    const expected = JSON.parse(await readFile(join(FIXTURE, 'expected.json'), 'utf8')) as Expected
    expect(numbers(file)).toEqual({ schema: null, readableFrom: 1 })
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.readOnly).toBeUndefined()
    expect(numbers(file)).toEqual({ schema: SCHEMA_VERSION, readableFrom: 1 })
    const { state } = store
    expect(store.revision).toBe(expected.revision)
    expect(state.activeId).toBe(expected.activeId)
    expect(
      state.profiles.map((p) => ({
        id: p.id,
        name: p.name,
        items: p.memory.items.map((it) => it.text),
        summary: p.memory.summary,
        avatar: p.avatar !== '',
      })),
    ).toEqual(expected.profiles)
    expect(JSON.parse(JSON.stringify([...state.sessions.keys()].map((k) => [k, state.sessions.get(k)])))).toEqual(
      expected.sessions,
    )
    expect(state.user).toEqual(expected.user)
    expect(Object.keys(state.memoryUndo ?? {})).toEqual(expected.undo)
    expect(Object.fromEntries(Object.entries(state.history ?? {}).map(([k, v]) => [k, v.length]))).toEqual(
      expected.history,
    )
    expect(store.turnsOf('session-1')).toEqual(expected.turns)
    expect(store.retired(expected.retiredId)?.name).toBe(expected.retired)
    expect(store.health.setAside).toEqual([])
    // No migration from schema 1 changes a row, so no copy of the file was taken first.
    expect((await readdir(join(file, '..'))).filter((n) => n.startsWith('profiles.sqlite.v'))).toEqual([])
    // And it goes on working: a write, read back after a restart.
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '迁移之后' } })
    await store.close()
    const again = await start(file)
    expect(again.state.profiles[0]!.rules).toBe('迁移之后')
  })

  it('a schema-1 database of 100,000 memory items migrates at the start reading a bounded part of the file, copying none of it', async () => {
    const file = await fixture()
    // Years of facts in a profile the start does not show: the rows are the background fill's, not the start's.
    const bulk = new DatabaseSync(file)
    const insert = bulk.prepare('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?)')
    bulk.exec('BEGIN')
    for (let i = 0; i < 100_000; i++) insert.run('coder', `m1-${i}`, i, JSON.stringify(longItem(1, i)))
    bulk.exec('COMMIT')
    bulk.close()
    // A start of this version makes the search index of them (a user's file has had one since long before), then the
    // file goes back to schema 1: no item columns, no turns.model, no schema number.
    await (await openStore({ file })).close()
    sql(
      file,
      `DROP TRIGGER memory_items_kind_insert; DROP TRIGGER memory_items_kind_update; DROP INDEX IF EXISTS memory_items_newest;
      DROP TRIGGER memory_counts_insert; DROP TRIGGER memory_counts_delete; DROP TRIGGER memory_counts_update;
      DROP TABLE memory_counts; ALTER TABLE memory_items DROP COLUMN kind; ALTER TABLE memory_items DROP COLUMN item_at;
      ALTER TABLE turns DROP COLUMN model; DELETE FROM meta WHERE key IN ('schema', 'kinds', 'kindsAfter', 'counts')`,
    )
    expect(numbers(file)).toEqual({ schema: null, readableFrom: 1 })
    const size = statSync(file).size
    // What this thread read and wrote of files (the store's SQLite runs on it; the integrity check's thread is not
    // counted): bytes, so a count of what the start touched, not a time.
    const io = () => {
      const counters = Object.fromEntries(
        readFileSync('/proc/thread-self/io', 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(': ') as [string, string]),
      )
      return { read: Number(counters.rchar), written: Number(counters.wchar) }
    }
    const before = io()
    const store = await start(file)
    const after = io()
    expect(numbers(file).schema).toBe(SCHEMA_VERSION)
    expect(store.lastError).toBeNull()
    // The file is more than ten megabytes; a copy first read all of it and wrote it again (main:
    // 64.5 MB read and 62.8 MB written of 65 MB; now about 0.1 MB read).
    expect(size).toBeGreaterThan(10_000_000)
    expect(after.read - before.read).toBeLessThan(size / 20)
    expect(after.written - before.written).toBeLessThan(size / 20)
    expect((await readdir(join(file, '..'))).filter((n) => n.startsWith('profiles.sqlite.v'))).toEqual([])
  }, 120_000)

  it('SIGKILL during a migration leaves the old database or the new one, never half; the next start finishes it', async () => {
    const file = await fixture()
    // Enough rows that the start takes a while, and a table for migration 2 to create.
    sql(
      file,
      [
        'DROP TABLE memory_history',
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO sessions (id, rev, data) SELECT 'bulk-' || i, 1, json_object('profileId', NULL, 'note', printf('%.200c', 'x'), 'memories', json_array()) FROM n",
      ].join(';'),
    )
    const before = new DatabaseSync(file, { readOnly: true })
    const sessions = (before.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n
    before.close()
    const seen = new Set<string>()
    for (let round = 0; round < 12; round++) {
      const delay = 40 + round * 25
      const child = spawn(process.execPath, childArgs('store-child', 'open', file), {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), delay)
        child.on('exit', () => {
          clearTimeout(timer)
          resolve()
        })
      })
      const db = new DatabaseSync(file, { readOnly: true })
      try {
        expect((db.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check).toBe('ok')
        const schema =
          (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: number } | undefined)?.value ?? 1
        const history = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_history'").get() !== undefined
        const model = (db.prepare('PRAGMA table_info(turns)').all() as { name: string }[]).some(
          (c) => c.name === 'model',
        )
        // At the last migration that committed (schema 2 adds its table, schema 3 its column): nothing between.
        expect([history, model]).toEqual([schema >= 2, schema >= 3])
        expect((db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(sessions)
        seen.add(String(schema))
      } finally {
        db.close()
      }
      if (seen.has(String(SCHEMA_VERSION))) break
    }
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(numbers(file).schema).toBe(SCHEMA_VERSION)
    expect(store.state.sessions.size).toBe(sessions)
  })
})

/**
 * The files of a data directory, except the -wal and -shm a reader of a database in WAL mode opens beside it (empty,
 * and an index of nothing): the database itself and everything else byte for byte.
 */
async function untouched(d: string): Promise<Record<string, string>> {
  const files = await snapshot(d)
  for (const f of Object.keys(files)) {
    if (f.endsWith('-shm') || (f.endsWith('-wal') && files[f] === '')) delete files[f]
  }
  return files
}

describe('a database of a newer schema', () => {
  /** A database this version wrote, then moved by "a newer version" to `schema`, readable from `readableFrom`. */
  async function newer(schema: number, readableFrom: number): Promise<string> {
    const d = await dir('ap-newer')
    const file = join(d, 'profiles.sqlite')
    const seed = await openStore({ file })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '新版本写的' } })
    await seed.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户喜欢猫' }] })
    await seed.command({ op: 'session.set', sessionId: 's1', patch: { profileId: 'coder' } })
    await seed.close()
    sql(file, `UPDATE meta SET value = ${schema} WHERE key = 'schema'; PRAGMA user_version = ${readableFrom}`)
    return file
  }

  it('one this version can read opens read-only: the data is there, every change is refused with the reason, and the files are byte-identical afterwards', async () => {
    const file = await newer(SCHEMA_VERSION + 1, 1)
    const before = await untouched(join(file, '..'))
    const store = await start(file)
    expect(store.readOnly).toEqual({
      kind: 'newer',
      message: expect.stringMatching(/made by a newer version of this plugin.*update to edit/),
    })
    expect(store.lastError?.message).toMatch(/newer version/)
    expect(store.lastError?.why).toEqual({ key: 'newer' })
    expect(store.state.profiles[0]).toMatchObject({
      rules: '新版本写的',
      memory: { items: [expect.objectContaining({ text: '用户喜欢猫' })] },
    })
    expect(store.effective('s1').profile.id).toBe('coder')
    const refused = await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { rules: '改' } },
      { code: 'read-only' },
    )
    expect(refused.message).toMatch(/update to edit/)
    await expectRefused(
      store,
      { op: 'memory.add', target: { user: true }, items: [{ text: '新事实' }] },
      { code: 'read-only' },
    )
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's1', turn: 1, profileId: 'coder' },
      { code: 'read-only' },
    )
    await expectRefused(store, { op: 'sessions.forget', sessionIds: ['s1'] }, { code: 'read-only' })
    await store.close()
    closed(store)
    expect(await untouched(join(file, '..'))).toEqual(before)
  })

  it('one this version cannot read is not opened: the store runs without data, says why, and makes no fresh database beside it', async () => {
    const file = await newer(SCHEMA_VERSION + 5, SCHEMA_VERSION + 5)
    const before = await untouched(join(file, '..'))
    const store = await start(file)
    expect(store.readOnly).toEqual({ kind: 'newer', message: expect.stringMatching(/cannot read/), unreadable: true })
    expect(store.lastError?.message).toMatch(/newer version of this plugin.*cannot read.*running without it/)
    expect(store.lastError?.why).toEqual({ key: 'newer-unreadable' })
    expect(store.state.profiles.some((p) => p.rules === '新版本写的')).toBe(false)
    await expectRefused(store, { op: 'profile.create', profile: { name: '新建' } }, { code: 'read-only' })
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's1', turn: 1, profileId: 'general' },
      { code: 'read-only' },
    )
    await store.close()
    closed(store)
    expect(await untouched(join(file, '..'))).toEqual(before)
  })

  it("one in a directory this process cannot write (as an unprivileged user) is still a newer version's: read, refused as read-only", async () => {
    const file = await newer(SCHEMA_VERSION + 1, 1)
    const d = join(file, '..')
    for (const f of Object.keys(await snapshot(d))) await chmod(f, 0o644)
    await chmod(d, 0o555)
    try {
      const out = await childReport(file)
      expect(out.opened?.message).toMatch(/newer version of this plugin/)
      expect(out.error?.code).toBe('read-only')
      expect(out.after).toEqual(out.before)
    } finally {
      await chmod(d, 0o755)
    }
  })

  it('a process of this version beside one that moves the database to a newer schema: it stops writing, keeps reading, and never forks the data', async () => {
    const d = await dir('ap-beside')
    const file = join(d, 'profiles.sqlite')
    const store = await start(file)
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: '旧版本写的' } })
    expect(store.readOnly).toBeUndefined()
    // The newer version: migrates (one transaction, as this version's migrations do) and writes a row in the new schema.
    const newerVersion = new DatabaseSync(file, { timeout: 5_000 })
    newerVersion.exec(`BEGIN IMMEDIATE; UPDATE meta SET value = ${SCHEMA_VERSION + 1} WHERE key = 'schema';
      UPDATE profiles SET rev = rev + 1, data = json_set(data, '$.rules', '新版本改的') WHERE id = 'coder';
      UPDATE meta SET value = value + 1 WHERE key = 'revision'; COMMIT`)
    expect(store.readOnly?.kind).toBe('newer')
    expect(store.state.profiles.find((p) => p.id === 'coder')!.rules).toBe('新版本改的')
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { rules: '不该写进去' } },
      { code: 'read-only' },
    )
    // Then one it cannot read at all: it keeps what it read, and still writes nothing.
    newerVersion.exec(`BEGIN IMMEDIATE; PRAGMA user_version = ${SCHEMA_VERSION + 2}; UPDATE meta SET value = ${SCHEMA_VERSION + 2} WHERE key = 'schema';
      UPDATE profiles SET data = '{"moved":"elsewhere"}', rev = rev + 1 WHERE id = 'general'; UPDATE meta SET value = value + 1 WHERE key = 'revision'; COMMIT`)
    expect(store.readOnly?.message).toMatch(/cannot read/)
    expect(store.state.profiles[0]!.rules).toBe('旧版本写的')
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's9', patch: { note: '不该写进去' } },
      { code: 'read-only' },
    )
    const data = (newerVersion.prepare("SELECT data FROM profiles WHERE id = 'general'").get() as { data: string }).data
    expect(data).toBe('{"moved":"elsewhere"}')
    expect((newerVersion.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(0)
    newerVersion.close()
    expect((await readdir(d)).filter((n) => n.includes('.bad-'))).toEqual([])
  })
})
