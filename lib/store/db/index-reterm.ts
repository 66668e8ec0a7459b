/**
 * Re-terming the memory index after its terms changed (lib/shared/search-terms.ts `TERMS_VERSION`): every item's
 * terms column is written again from its row, a bounded batch at a time, each batch in a write transaction of its own
 * that also records how far it got, so the store stays usable meanwhile and a process killed mid-way loses nothing
 * and the next start resumes after the last batch committed. Owns the bookkeeping row (`memory_index_terms`) and one
 * batch's work; it never changes an item, its text or its place, and never decides when a batch runs (the store's
 * background job, lib/store/reterm-job.ts, does).
 *
 * Walks the index's map (`memory_docs`) in key order, so a batch is one range look-up whatever the index holds; each
 * item is read from its own row (a profile's or the user layer's, or its conversation's settings) by key.
 */
import type { StatementSync } from './sqlite.ts'
import type { MemoryItem, SessionSetting } from '../../state/model.ts'
import { TERMS_VERSION, termsColumn } from '../../shared/search-terms.ts'
import { parseOrUndefined } from './rows.ts'

/** The bookkeeping table: which terms version the index's rows have, and, while re-terming, the last key done. */
export const TERMS_TABLE = `
CREATE TABLE IF NOT EXISTS memory_index_terms (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL,
  owner TEXT NOT NULL, item TEXT NOT NULL, done INTEGER NOT NULL);
`

type Statement = (sql: string) => StatementSync

/** Where a re-terming stands: items done so far (the walk restarts nowhere: `owner`/`item` is the last key done). */
interface Mark {
  version: number
  owner: string
  item: string
  done: number
}

function markOf(statement: Statement): Mark | undefined {
  return statement('SELECT version, owner, item, done FROM memory_index_terms WHERE one = 1').get() as Mark | undefined
}

function setMark(statement: Statement, mark: Mark): void {
  statement(
    `INSERT INTO memory_index_terms (one, version, owner, item, done) VALUES (1, ?, ?, ?, ?)
    ON CONFLICT (one) DO UPDATE SET version = excluded.version, owner = excluded.owner, item = excluded.item,
    done = excluded.done`,
  ).run(mark.version, mark.owner, mark.item, mark.done)
}

/** The index's rows were termed by an earlier version (an index made before the bookkeeping): re-term them all. */
export function markEarlier(statement: Statement): void {
  setMark(statement, { version: 1, owner: '', item: '', done: 0 })
}

/** The index's rows have this version's terms (a rebuild made them). */
export function markCurrent(statement: Statement): void {
  setMark(statement, { version: TERMS_VERSION, owner: '', item: '', done: 0 })
}

/** Items re-termed so far, or undefined when nothing is left to re-term. */
export function retermDone(statement: Statement): number | undefined {
  const mark = markOf(statement)
  return mark === undefined || mark.version >= TERMS_VERSION ? undefined : mark.done
}

/** Reads one item of an owner by key, caching a conversation's settings for the batch. */
class ItemReader {
  readonly #statement: Statement
  readonly #sessions = new Map<string, readonly MemoryItem[]>()

  constructor(statement: Statement) {
    this.#statement = statement
  }

  item(owner: string, id: string): MemoryItem | undefined {
    if (!owner.startsWith('s:')) {
      const row = this.#statement('SELECT data FROM memory_items WHERE profile_id = ? AND id = ?').get(owner, id) as
        { data: string } | undefined
      const item = row === undefined ? undefined : (parseOrUndefined(row.data) as MemoryItem | undefined)
      return typeof item?.text === 'string' ? item : undefined
    }
    let memories = this.#sessions.get(owner)
    if (memories === undefined) {
      const row = this.#statement('SELECT data FROM sessions WHERE id = ?').get(owner.slice(2)) as
        { data: string } | undefined
      const setting =
        row === undefined ? undefined : (parseOrUndefined(row.data) as Partial<SessionSetting> | undefined)
      memories = Array.isArray(setting?.memories) ? setting.memories : []
      this.#sessions.set(owner, memories)
    }
    return memories.find((m) => m?.id === id && typeof m.text === 'string')
  }
}

/**
 * Re-term the next items after the last key done, at most `limit` of them or until `deadline` (performance.now()),
 * inside the caller's write transaction; records how far it got. Returns the items done so far and whether every
 * item is done (then the mark says this version).
 */
export function retermBatch(
  statement: Statement,
  limit: number,
  deadline: number,
): { done: number; finished: boolean } {
  const mark = markOf(statement)
  if (mark === undefined || mark.version >= TERMS_VERSION) return { done: mark?.done ?? 0, finished: true }
  const docs = statement(
    'SELECT owner, item, doc FROM memory_docs WHERE (owner, item) > (?, ?) ORDER BY owner, item LIMIT ?',
  ).all(mark.owner, mark.item, limit) as { owner: string; item: string; doc: number }[]
  const reader = new ItemReader(statement)
  let last: { owner: string; item: string } | undefined
  let count = 0
  for (const d of docs) {
    const item = reader.item(d.owner, d.item)
    if (item !== undefined) {
      const terms = termsColumn(item.text, item.keys, item.at)
      const now = statement('SELECT terms FROM memory_fts WHERE rowid = ?').get(d.doc) as { terms: string } | undefined
      if (now !== undefined && now.terms !== terms)
        statement('UPDATE memory_fts SET terms = ? WHERE rowid = ?').run(terms, d.doc)
    }
    last = d
    count++
    if (performance.now() > deadline) break
  }
  const finished = docs.length < limit && count === docs.length
  const done = mark.done + count
  if (finished) setMark(statement, { version: TERMS_VERSION, owner: '', item: '', done })
  else if (last !== undefined) setMark(statement, { ...mark, owner: last.owner, item: last.item, done })
  return { done, finished }
}
