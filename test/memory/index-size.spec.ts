/**
 * The search index's size in Diagnostics (lib/memory/index-size.ts, MemoryIndex.size): it follows every change at
 * once, and reading it reads no table of the index whole. Counting the tables held the host's event loop ~300 ms at
 * 237,500 items, and a page reads the figure after every change it hears of; so the spec asserts what the read runs
 * (each statement's query plan: no scan), not how long it takes.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { indexFigures } from '../../lib/memory/index-size.ts'
import { MemoryIndex } from '../../lib/store/db/memory-index.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import { freshStore } from '../support/store-helpers.ts'

const stores: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

/** A connection that records the SQL of every statement run through it. */
function recording(db: DatabaseSync): { db: DatabaseSync; ran: string[] } {
  const ran: string[] = []
  const statement = (sql: string, s: StatementSync) =>
    new Proxy(s, {
      get: (target, key) => {
        const v = Reflect.get(target, key, target) as unknown
        if (typeof v !== 'function') return v
        return (...args: unknown[]) => {
          if (key === 'get' || key === 'all' || key === 'run' || key === 'iterate') ran.push(sql)
          return (v as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  const proxy = new Proxy(db, {
    get: (target, key) => {
      if (key === 'prepare') return (sql: string) => statement(sql, target.prepare(sql))
      if (key === 'exec')
        return (sql: string) => {
          ran.push(sql)
          target.exec(sql)
        }
      const v = Reflect.get(target, key, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  return { db: proxy, ran }
}

const item = (i: number): MemoryItem =>
  ({
    id: `m${i}`,
    text: i % 2 === 0 ? `用户喜欢第${i}种茶` : `prefers editor number ${i}`,
    at: 1_700_000_000_000 + i,
  }) as MemoryItem

describe('the index size Diagnostics shows', () => {
  it('follows every change at once, additions and removals alike', async () => {
    const s = await freshStore()
    stores.push(s)
    const store = s.store
    const profileId = store.state.profiles[0]!.id
    const add = (text: string) => store.command({ op: 'memory.add', target: { profileId }, items: [{ text }] })
    await add('用户喜欢喝茶')
    const first = indexFigures(store).items
    const added: string[] = []
    for (let i = 0; i < 5; i++) {
      const reply = await add(`第${i}条记忆：用户养了${i + 1}只猫`)
      added.push(...reply.added.map((it) => it.id))
      expect(indexFigures(store).items).toBe(first + i + 1)
    }
    await store.command({ op: 'memory.remove', target: { profileId }, itemId: added[0]! })
    expect(indexFigures(store).items).toBe(first + 4)
    expect(indexFigures(store).bytes).toBeGreaterThan(0)
  })

  it('reads no table of the index whole, however many items it holds', () => {
    const real = new DatabaseSync(':memory:')
    const { db, ran } = recording(real)
    db.exec('BEGIN')
    const index = MemoryIndex.onDisk(db)
    const entries = Array.from({ length: 3000 }, (_, i) => ({ owner: `p${i % 3}`, item: item(i) }))
    index.rebuild(entries, 1, Date.now())
    index.apply('p0', [], [item(0), item(3)])
    db.exec('COMMIT')
    ran.length = 0
    const size = index.size()
    expect(ran.length).toBeGreaterThan(0)
    for (const sql of ran) {
      const plan = (real.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail)
      expect(
        plan.filter((d) => d.startsWith('SCAN')),
        sql,
      ).toEqual([])
    }
    // What it says is right: every item, and a size within a factor of two of what the tables hold.
    expect(size.items).toBe(2998)
    const tables = (sql: string) => (real.prepare(sql).get() as { n: number }).n
    const held =
      tables('SELECT sum(length(block)) AS n FROM memory_fts_data') +
      tables('SELECT sum(length(c0) + length(c1) + length(c2) + length(c3)) AS n FROM memory_fts_content')
    expect(size.bytes).toBeGreaterThan(held / 2)
    expect(size.bytes).toBeLessThan(held * 2)
    real.close()
  })
})
