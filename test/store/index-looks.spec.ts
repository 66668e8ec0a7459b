import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { MemoryIndex } from '../../lib/store/db/memory-index.ts'
import { TERM_SEPARATOR, termCode } from '../../lib/shared/search-terms.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import { fcParams } from '../support/fuzz.ts'

const open: DatabaseSync[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
})

/** An index over a database of its own, and the connection, to ask the index's own table what it holds. */
function indexed(): { db: DatabaseSync; index: MemoryIndex } {
  const db = new DatabaseSync(':memory:')
  open.push(db)
  return { db, index: MemoryIndex.onDisk(db) }
}

const OWNERS = ['p0', 'p1', 'p2', ':user', 's:a']
const WORDS = ['travel', 'coffee', 'books', 'running', 'music', 'moving', 'meeting', 'garden']

function item(id: string, words: readonly string[], at: number): MemoryItem {
  return { id, text: `fact ${id}: ${words.join(' ')}`, at, source: 'tool' } as MemoryItem
}

/**
 * What the looks answered before they read each row's owner through the map: the FTS table alone, its owner column
 * read for every row holding a term (the ranked look: every such row ranked; the newest: newest first).
 */
function asBefore(db: DatabaseSync, owners: readonly string[], terms: readonly string[], limit: number, rank: boolean) {
  const match = `terms : (${[...new Set(terms.map(termCode))].map((c) => `"${TERM_SEPARATOR}${c}"`).join(' OR ')})`
  const marks = owners.map(() => '?').join(', ')
  return db
    .prepare(
      `SELECT owner, item, terms, ${rank ? '-rank' : '0'} AS score FROM memory_fts WHERE memory_fts MATCH ?
      ${rank ? "AND rank MATCH 'bm25(0.0, 1.0)'" : ''} AND owner IN (${marks}) ORDER BY ${rank ? 'rank' : 'rowid DESC'} LIMIT ?`,
    )
    .all(match, ...owners, limit)
    .map((r) => ({ ...r }))
}

/** The plan SQLite makes for each statement `run` sends through the index's connection. */
function plansOf(db: DatabaseSync, run: () => unknown): string[] {
  const seen: string[] = []
  const prepare = db.prepare.bind(db)
  db.prepare = (sql: string) => {
    if (/memory_fts MATCH/.test(sql) && /\bowner\b/.test(sql)) seen.push(sql)
    return prepare(sql)
  }
  try {
    run()
  } finally {
    db.prepare = prepare
  }
  return seen.map((sql) =>
    prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x'))
      .map((r) => String(r.detail))
      .join(' | '),
  )
}

describe('the index looks of recall and memory_search', () => {
  it('answer what the FTS table alone answers, over random histories of several owners', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            owner: fc.constantFrom(...OWNERS),
            words: fc.subarray(WORDS, { minLength: 1, maxLength: 3 }),
            change: fc.constantFrom('add', 'add', 'add', 'edit', 'remove'),
          }),
          { minLength: 1, maxLength: 120 },
        ),
        fc.array(
          fc.record({
            owners: fc.subarray(OWNERS, { minLength: 1 }),
            terms: fc.subarray(WORDS, { minLength: 1, maxLength: 3 }),
            limit: fc.integer({ min: 1, max: 30 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (history, questions) => {
          const { db, index } = indexed()
          const lists = new Map<string, MemoryItem[]>(OWNERS.map((o) => [o, []]))
          history.forEach(({ owner, words, change }, i) => {
            const list = lists.get(owner)!
            const old = list[i % Math.max(1, list.length)]
            if (change === 'remove' && old !== undefined) {
              index.apply(owner, [], [old])
              list.splice(list.indexOf(old), 1)
            } else if (change === 'edit' && old !== undefined) {
              const now = item(old.id, words, 1_700_000_000_000 + i)
              index.apply(owner, [{ old, now }], [])
              list[list.indexOf(old)] = now
            } else {
              const now = item(`m${i}`, words, 1_700_000_000_000 + i)
              index.apply(owner, [{ now }], [])
              list.push(now)
            }
            index.at(i + 1)
          })
          for (const { owners, terms, limit } of questions) {
            expect(index.newest(owners, terms, limit)).toEqual(asBefore(db, owners, terms, limit, false))
            expect(index.ranked(owners, terms, limit)).toEqual(asBefore(db, owners, terms, limit, true))
          }
        },
      ),
      fcParams(60),
    )
  })

  it('find the newest items of a profile not written since another wrote thousands holding the same word', () => {
    const { db, index } = indexed()
    const at = 1_700_000_000_000
    index.apply(
      'p0',
      Array.from({ length: 60 }, (_, i) => ({ now: item(`old${i}`, i % 2 === 0 ? ['travel'] : ['coffee'], at + i) })),
      [],
    )
    index.apply(
      'p1',
      Array.from({ length: 2_500 }, (_, i) => ({ now: item(`new${i}`, ['travel', 'coffee'], at + 100 + i) })),
      [],
    )
    index.at(1)
    const same = () => {
      for (const owners of [['p0'], ['p0', ':user'], ['p1'], ['p0', 'p1']])
        for (const terms of [['travel'], ['coffee', 'travel']])
          expect(index.newest(owners, terms, 40)).toEqual(asBefore(db, owners, terms, 40, false))
    }
    same()
    expect(index.newest(['p0'], ['travel'], 40).map((h) => h.item)).toEqual(
      Array.from({ length: 30 }, (_, i) => `old${58 - 2 * i}`),
    )
    // The profile writes again: its newest row is among the others' newest, its older ones still behind them.
    index.apply('p0', [{ now: item('again', ['music'], at + 5_000) }], [])
    index.at(2)
    same()
  })

  it("read a row's owner through the map's index by row number, never through the row's whole content", () => {
    const { db, index } = indexed()
    index.apply('p0', [{ now: item('a', ['travel'], 1) }], [])
    index.apply(
      'p1',
      Array.from({ length: 1_000 }, (_, i) => ({ now: item(`b${i}`, ['travel'], 2 + i) })),
      [],
    )
    index.at(1)
    // The owner filter of every look is the map's covering index; the FTS table is read by row number only for the
    // rows that passed it (`INDEX 0:=`), and the newest look from the owners' newest row walks FTS5 from there (`<`).
    const plans = plansOf(db, () => {
      index.ranked(['p0'], ['travel'], 10)
      index.newest(['p0'], ['travel'], 10)
    })
    expect(plans.length).toBeGreaterThanOrEqual(2)
    for (const plan of plans) expect(plan).toMatch(/SEARCH d USING COVERING INDEX memory_docs_by_doc \(doc=\?\)/)
    expect(plans.some((p) => /VIRTUAL TABLE INDEX \d+:M\d+<.*memory_docs_by_doc/.test(p))).toBe(true)
  })
})
