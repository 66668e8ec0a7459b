import { spawn } from 'node:child_process'
import { chmod } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { openStore } from '../../lib/store/open-store.ts'
import { createSchema } from '../../lib/store/db/schema.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { ReadOnlyData } from '../../lib/shared/meta.ts'
import { freshStore, snapshot } from '../support/store-helpers.ts'
import { tempDir } from '../support/store-fixtures.ts'
import { indexAndRows } from '../support/index-rows.ts'
import { fcParams, genRng } from '../support/fuzz.ts'
import { childArgs } from '../support/children.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const d of disposers.splice(0)) await d()
})

const sqliteOf = (file: string) => file.replace(/\.json$/, '.sqlite')

async function withItems(store: ProfileStore, texts: string[]): Promise<string> {
  const id = store.state.activeId
  await store.command({ op: 'memory.add', target: { profileId: id }, items: texts.map((text) => ({ text })) })
  return id
}

const found = (store: ProfileStore, owner: string, q: string) =>
  store.searchIndex((index) => index.containing(owner, q))

/** A temporary directory that `lock` makes read-only (files and directory) and `unlock` writable again. */
async function readOnlyDir(label: string) {
  const t = await tempDir(label)
  const unlock = () => chmod(t.dir, 0o755).catch(() => {})
  disposers.push(async () => {
    await unlock()
    await t.dispose()
  })
  const lock = async () => {
    for (const f of Object.keys(await snapshot(t.dir))) await chmod(f, 0o644)
    await chmod(t.dir, 0o555)
  }
  return { ...t, lock, unlock }
}

/** Open the store in a child process as an unprivileged user (root writes anywhere), search `query`, try one write. */
function searchAsNobody(
  file: string,
  query: string,
): Promise<{
  found: { mode: string; ids: string[] } | null
  refused: string | null
  readOnly: ReadOnlyData | null
}> {
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, childArgs('index-child', file, query), {
      ...asNobody,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let text = ''
    let err = ''
    p.stdout.on('data', (c: Buffer) => void (text += c.toString()))
    p.stderr.on('data', (c: Buffer) => void (err += c.toString()))
    p.on('error', reject)
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(text)) : reject(new Error(err))))
  })
}

describe('the memory search index', () => {
  it('is written with the items: adds, edits, removals, the user layer, conversations and deleted profiles', async () => {
    const t = await freshStore()
    disposers.push(t.dispose)
    const owner = await withItems(t.store, ['我住在杭州', 'I keep two cats', '周末去爬山'])
    const cats = t.store.state.profiles.find((p) => p.id === owner)!.memory.items[1]!
    await t.store.command({
      op: 'memory.update',
      target: { profileId: owner },
      itemId: cats.id,
      text: 'I keep three dogs',
    })
    await t.store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户叫小明' }] })
    await t.store.command({
      op: 'session.set',
      sessionId: 'sess-1',
      patch: { memories: [{ text: '本次讨论杭州旅行' }] },
    })
    expect(found(t.store, owner, 'cats')).toEqual([])
    expect(found(t.store, owner, 'dogs')).toEqual([cats.id])
    expect(found(t.store, ':user', '小明')).toHaveLength(1)
    expect(found(t.store, 's:sess-1', '杭州旅行')).toHaveLength(1)
    const copy = (await t.store.command({ op: 'profile.duplicate', id: owner })).profile as { id: string }
    expect(found(t.store, copy.id, '杭州')).toHaveLength(1)
    await t.store.command({ op: 'profile.delete', id: copy.id })
    await t.store.command({ op: 'session.clear', sessionId: 'sess-1' })
    const after = indexAndRows(sqliteOf(t.file))
    expect(after.index).toEqual(after.rows)
    expect(after.indexRev).toBe(after.revision)
  })

  it('clearing every conversation while one is set aside drops the cleared ones from the index and keeps the one set aside', async () => {
    const t = await freshStore()
    disposers.push(t.dispose)
    const owner = t.store.state.activeId
    await t.store.command({
      op: 'session.set',
      sessionId: 's-cleared',
      patch: { memories: [{ text: '本次讨论杭州旅行' }] },
    })
    await t.store.command({
      op: 'session.set',
      sessionId: 's-kept',
      patch: { profileId: owner, memories: [{ text: '另一场对话的西湖记忆' }] },
    })
    await t.store.close()
    const database = sqliteOf(t.file)
    // The kept conversation's pin names a profile this version does not know: its row is set aside, out of the state.
    const db = new DatabaseSync(database)
    db.exec("UPDATE sessions SET data = json_set(data, '$.profileId', 'nobody') WHERE id = 's-kept'")
    db.close()
    const s = await t.open()
    expect(s.health.setAside).toContainEqual(expect.objectContaining({ table: 'sessions', key: 's-kept' }))
    expect(found(s, 's:s-cleared', '杭州旅行')).toHaveLength(1)
    await s.command({ op: 'sessions.clearAll' })
    expect(s.state.sessions.size).toBe(0)
    expect(found(s, 's:s-cleared', '杭州旅行')).toEqual([])
    // The row set aside keeps its items, in the table and in the index made again from it.
    expect(found(s, 's:s-kept', '西湖记忆')).toHaveLength(1)
    const now = indexAndRows(database)
    expect(now.index).toEqual(now.rows)
    expect(now.indexRev).toBe(now.revision)
  })

  it('after SIGKILL at random moments of random writes, the index holds exactly the item rows of the last commit', async () => {
    const t = await tempDir('ap-index-crash')
    disposers.push(t.dispose)
    let items = 0
    // The kill moments and the writers' choices come from the property's generator: a failure prints the seed.
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const rng = genRng(g)
        for (let cycle = 0; cycle < 8; cycle++) {
          const [ms, seed] = [100 + rng.int(400), rng.int(2 ** 31)]
          let said = ''
          await new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, childArgs('store-child', 'crash', t.file, '4', String(seed)), {
              stdio: ['ignore', 'pipe', 'pipe'],
            })
            child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), ms))
            child.stdout.on('data', (c: Buffer) => void (said += c.toString()))
            child.on('error', reject)
            child.on('exit', () => resolve())
          })
          // Killed before the store's first commit ever (it opened at revision 0 and acknowledged nothing), the
          // database may not be made yet, or be half made under a rollback journal: there is no index to compare.
          if (said.startsWith('ready 0 ') && !/^ack /m.test(said)) continue
          // Read before any store opens it: an open would repair a stale index and hide the fault.
          const now = indexAndRows(sqliteOf(t.file))
          expect(now.index).toEqual(now.rows)
          expect(now.indexRev).toBe(now.revision)
          items = Math.max(items, now.rows.length)
        }
      }),
      fcParams(1, { endOnFailure: true }),
    )
    expect(items).toBeGreaterThan(0)
  }, 60_000)

  it('is rebuilt from the rows when it is missing, damaged, or behind rows an older plugin wrote', async () => {
    const t = await freshStore()
    disposers.push(t.dispose)
    const owner = await withItems(
      t.store,
      Array.from({ length: 300 }, (_, i) => `第${i}条 记忆 about item${i}`),
    )
    await t.store.close()
    const database = sqliteOf(t.file)
    const spoil = (sql: string) => {
      const db = new DatabaseSync(database)
      db.exec(sql)
      db.close()
    }
    const reopened = async () => {
      const s = await openStore({ file: t.file })
      disposers.push(() => s.close())
      return s
    }
    spoil('DROP TABLE memory_fts; DROP TABLE memory_docs')
    let s = await reopened()
    expect(found(s, owner, 'item123')).toHaveLength(1)
    await s.close()
    spoil('UPDATE memory_fts_data SET block = zeroblob(length(block)) WHERE id > 10')
    s = await reopened()
    expect(s.lastError).toBeNull()
    expect(found(s, owner, 'item77')).toHaveLength(1)
    await s.close()
    // An older plugin writes the item rows and the revision, and knows nothing of the index.
    spoil(`INSERT INTO memory_items (profile_id, id, pos, data) VALUES ('${owner}', 'old1', 999, '{"id":"old1","text":"旧版本写的一条","source":"user","at":1}');
      UPDATE meta SET value = value + 1 WHERE key = 'revision'`)
    s = await reopened()
    expect(found(s, owner, '旧版本')).toEqual(['old1'])
    const now = indexAndRows(database)
    expect(now.index).toEqual(now.rows)
  })

  it("an older plugin's index (two columns, no key marks) is rebuilt at open in this layout", async () => {
    const t = await freshStore()
    disposers.push(t.dispose)
    const owner = t.store.state.activeId
    await t.store.command({
      op: 'profile.update',
      id: owner,
      patch: {
        memory: {
          summary: '',
          items: [
            { id: 'a', text: 'The glade lies beyond the forest', keys: 'forest', source: 'import', at: 1 },
            { id: 'b', text: 'The glade is hidden by magic', keys: 'glade', source: 'import', at: 1 },
          ],
        },
      },
    })
    await t.store.close()
    const db = new DatabaseSync(sqliteOf(t.file))
    // What main's plugin made: the same revision mark, an FTS table of text and terms only (left empty here).
    db.exec("DROP TABLE memory_fts; CREATE VIRTUAL TABLE memory_fts USING fts5(text, terms, tokenize = 'trigram')")
    db.close()
    const s = await openStore({ file: t.file })
    disposers.push(() => s.close())
    const hits = s.searchIndex((index) => index.ranked([owner], ['glade'], 10)) ?? []
    expect(hits.map((h) => h.item).sort()).toEqual(['a', 'b'])
    const now = indexAndRows(sqliteOf(t.file))
    expect(now.index).toEqual(now.rows)
  })

  it('on a database it may only read, is built in memory and nothing is written (as an unprivileged user)', async () => {
    const t = await readOnlyDir('ap-index-ro')
    const seed = await openStore({ file: t.file })
    const owner = await withItems(seed, ['只读目录里的杭州记忆', 'another fact'])
    await seed.close()
    await t.lock()
    const before = await snapshot(t.dir)
    const result = await searchAsNobody(t.file, '杭州')
    expect(result.found?.mode).toBe('memory')
    expect(result.found?.ids).toHaveLength(1)
    expect(result.refused).toBe('unwritable')
    // The page words why from the cause (lib/client/settings/DataHealth.tsx); the system's words are only quoted.
    expect(result.readOnly).toMatchObject({ kind: 'unwritable', cause: 'permission' })
    expect(await snapshot(t.dir)).toEqual(before)
    expect(owner).toBeTruthy()
  })

  it('a database with the schema but no index tables (a crash between the two) opens read-write and read-only, and finds its items', async () => {
    const t = await readOnlyDir('ap-index-none')
    const seed = await openStore({ file: t.file })
    const owner = await withItems(seed, ['没有索引表的杭州记忆', 'another fact'])
    await seed.close()
    const database = sqliteOf(t.file)
    const drop = () => {
      const db = new DatabaseSync(database)
      db.exec('DROP TABLE memory_docs; DROP TABLE memory_fts; DROP TABLE memory_index_rev')
      db.close()
    }
    drop()
    await t.lock()
    const result = await searchAsNobody(t.file, '杭州')
    expect(result.found).toEqual({ mode: 'memory', ids: [expect.any(String)] })
    await t.unlock()
    const s = await openStore({ file: t.file })
    disposers.unshift(() => s.close())
    expect(s.lastError).toBeNull()
    expect(found(s, owner, '杭州记忆')).toHaveLength(1)
    const now = indexAndRows(database)
    expect(now.index).toEqual(now.rows)
  })

  it('a new database gets the index tables in the transaction that makes its schema', () => {
    const db = new DatabaseSync(':memory:')
    createSchema(db)
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE name IN ('memory_docs', 'memory_fts', 'memory_index_rev') ORDER BY name",
      )
      .all()
    db.close()
    expect(tables).toEqual([{ name: 'memory_docs' }, { name: 'memory_fts' }, { name: 'memory_index_rev' }])
  })
})
