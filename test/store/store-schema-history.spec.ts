/**
 * Migration 6 (#41): the history rows of a schema-5 database, a bulk edit's megabyte entry among them, move each as it
 * was into the rowid table, and the store reads and writes them after; a SIGKILL in the middle of the move leaves the
 * schema-5 table readable with every row, and the next start moves them all.
 */
import { spawn } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../../lib/store/db/schema.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { perTest } from '../support/store-helpers.ts'
import { childArgs } from '../support/children.ts'

const { start, dir, closed } = perTest()

/** Run `statements` on the database at `file` and close it (the close checkpoints and removes its -wal). */
function sql(file: string, statements: string): void {
  const db = new DatabaseSync(file)
  db.exec(statements)
  db.close()
}

/** The schema version meta holds. */
function schemaOf(db: DatabaseSync): number {
  return (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: number }).value
}

/** The history table as schemas 2 to 5 made it: keyed by (list, id), the data in the key's record. */
const HISTORY_V5 = `CREATE TABLE memory_history (list TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, rev INTEGER NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (list, id)) WITHOUT ROWID;
CREATE INDEX memory_history_by_rev ON memory_history (rev);`

/** Put the database at `file` back to schema 5: its history rows, unchanged, in the table schema 5 had. */
function toSchema5(file: string): void {
  sql(
    file,
    `BEGIN; ALTER TABLE memory_history RENAME TO h5; DROP INDEX memory_history_by_rev; ${HISTORY_V5}
    INSERT INTO memory_history SELECT list, id, pos, rev, data FROM h5; DROP TABLE h5;
    UPDATE meta SET value = 5 WHERE key = 'schema'; COMMIT`,
  )
}

/** Every history row of `db` in key order, and whether its table is the one of schema 5 and before. */
function historyOf(db: DatabaseSync): { rows: unknown[]; keyed: boolean } {
  const rows = db.prepare('SELECT list, id, pos, rev, data FROM memory_history ORDER BY list, id').all()
  const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_history'").get() as { sql: string }
  return { rows: rows.map((r) => ({ ...r })), keyed: /WITHOUT ROWID/i.test(table.sql) }
}

/** `PRAGMA user_version` of the database at `file`: the oldest schema whose code can read it. */
function readableFrom(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version
  } finally {
    db.close()
  }
}

/** The history of the database at `file` and its schema version, read without writing. */
function historyAt(file: string): { rows: unknown[]; keyed: boolean; schema: number } {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return { ...historyOf(db), schema: schemaOf(db) }
  } finally {
    db.close()
  }
}

/** A store's file whose profiles hold history, one entry a bulk edit of about a megabyte. */
async function withHistory(d: string): Promise<string> {
  const file = join(d, 'profiles.sqlite')
  const store = await openStore({ file })
  for (let i = 0; i < 5; i++)
    await store.command({
      op: 'memory.add',
      target: { profileId: 'coder' },
      items: [{ text: `用户说过的第 ${i} 件事` }],
    })
  const items = Array.from({ length: 1_200 }, (_, i) => ({
    id: `bulk-${i}`,
    text: `fact ${i}: ${'the user keeps a long running project and its conventions '.repeat(13)}`,
    source: 'user' as const,
  }))
  await store.command({ op: 'profile.update', id: 'general', patch: { memory: { summary: '', items } } })
  await store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户住在上海' }] })
  await store.close()
  return file
}

describe('migration 6: the history table keyed by rowid', () => {
  it('a schema-5 database opened by this code keeps every history row as it was, in the new table', async () => {
    const file = await withHistory(await dir('ap-history'))
    toSchema5(file)
    const before = historyAt(file)
    expect(before.keyed).toBe(true)
    expect(before.rows.length).toBeGreaterThanOrEqual(7)
    expect(before.rows.some((r) => String((r as { data: string }).data).length > 900_000)).toBe(true)
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(historyAt(file)).toEqual({ rows: before.rows, keyed: false, schema: SCHEMA_VERSION })
    // Code before numbered migrations still reads it (it refused a database whose user_version was not 1).
    expect(readableFrom(file)).toBe(1)
    const lists = Object.fromEntries(Object.entries(store.state.history ?? {}).map(([k, v]) => [k, v.length]))
    expect(lists).toMatchObject({ coder: 5, general: 1 })
    expect(store.health.setAside).toEqual([])
    // Written and read back after a restart, its entries beside the moved ones.
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '迁移之后的一件事' }] })
    await store.close()
    closed(store)
    const again = await start(file)
    expect(again.state.history?.coder).toHaveLength(6)
    expect(historyAt(file).rows).toHaveLength(before.rows.length + 1)
  })

  it('SIGKILL in the middle of it leaves the schema-5 table readable with every row; the next start moves them all', async () => {
    const file = await withHistory(await dir('ap-history-kill'))
    // Enough rows that the move takes a while: copies of the bulk entry, each under an id of its own (≤ 100 a list).
    sql(
      file,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
      INSERT INTO memory_history (list, id, pos, rev, data) SELECT 'general', 'copy-' || i, pos + i, rev,
      json_set(data, '$.id', 'copy-' || i) FROM memory_history, n WHERE list = 'general'`,
    )
    toSchema5(file)
    const { rows: before } = historyAt(file)
    expect(before.length).toBeGreaterThan(30)
    // The move writes its pages into the -wal before it commits (SQLite spills what its cache cannot hold): the child
    // is killed once the -wal passes 4 MB, which nothing else at the start writes.
    const walSize = () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0)
    let middle = false
    for (let round = 0; round < 3 && !middle; round++) {
      const child = spawn(process.execPath, childArgs('store-child', 'open', file), {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let killed = false
      await new Promise<void>((resolve) => {
        const watch = setInterval(() => {
          if (walSize() > 4_000_000) killed = child.kill('SIGKILL')
        }, 2)
        child.on('exit', () => {
          clearInterval(watch)
          resolve()
        })
      })
      // A writable connection, so that its close checkpoints and removes the -wal: each round starts without one.
      const db = new DatabaseSync(file)
      let schema: number
      try {
        expect((db.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check).toBe('ok')
        schema = schemaOf(db)
        // At the schema that committed, never between: the old table with every row, or the new one with every row.
        expect(historyOf(db)).toEqual({ rows: before, keyed: schema < 6 })
      } finally {
        db.close()
      }
      // Killed in the middle, or (the move outran the kill) finished: then back to schema 5 for another round.
      if (schema === 6) toSchema5(file)
      else middle = killed
    }
    expect(middle).toBe(true)
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(historyAt(file)).toEqual({ rows: before, keyed: false, schema: SCHEMA_VERSION })
  }, 120_000)
})
