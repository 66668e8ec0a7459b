/**
 * Re-terming the memory index after its terms changed (lib/shared/search-terms.ts `TERMS_VERSION`): every item's
 * terms column is written again from its row, a bounded batch at a time, each batch in a write transaction of its own
 * that also records how far it got, so the store stays usable meanwhile and a process killed mid-way loses nothing
 * and the next start resumes after the last batch committed. Owns the bookkeeping row (`memory_index_terms`) and one
 * batch's work; it never changes an item, its text or its place, and never decides when a batch runs (the store's
 * background job, lib/store/index-job.ts, does).
 *
 * Which items need it is told per item: the index's map (`memory_docs`) has a column `termed`, the terms version that
 * wrote the item's terms. This plugin fills it at every write; an older plugin does not know it and leaves it empty
 * (its inserts name their columns), and an older plugin's rebuild makes the map without it. So items an older plugin
 * wrote after a re-terming (a downgrade, then this version again) are found at the next open and re-termed alone.
 * A batch walks the items left in key order through a partial index over them, so it costs what is left to do, and
 * an index with nothing left costs one look-up into an empty index.
 *
 * Each item is read from its own row (a profile's or the user layer's, or its conversation's settings) by key.
 */
import type { DatabaseSync, StatementSync } from './sqlite.ts'
import { TERMS_VERSION, termsColumn } from '../../shared/search-terms.ts'
import { indexedMemories, isIndexedItem, parseOrUndefined, type IndexedItem } from './rows.ts'
import { COLUMNS, rowFitting, rowOf, rowsOf, type Row } from './row-read.ts'

/** The bookkeeping table: which terms version the index's rows have, and, while re-terming, the last key done. */
export const TERMS_TABLE = `
CREATE TABLE IF NOT EXISTS memory_index_terms (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL,
  owner TEXT NOT NULL, item TEXT NOT NULL, done INTEGER NOT NULL);
`

type Statement = (sql: string) => StatementSync

/**
 * The items whose terms are not this version's: written by an older plugin (`termed` empty) or an earlier version.
 * Also the partial index's condition, word for word, so that SQLite walks that index.
 */
const LEFT = `termed IS NOT ${TERMS_VERSION}`

/**
 * Give the map its `termed` column when an older plugin made the map (the column is added empty: every item is then
 * re-termed), and the partial index of the items left to re-term (named by version: a later version makes its own).
 */
export function termedColumn(db: DatabaseSync): void {
  if (db.prepare("SELECT 1 FROM pragma_table_info('memory_docs') WHERE name = 'termed'").get() === undefined)
    db.exec('ALTER TABLE memory_docs ADD COLUMN termed INTEGER')
  db.exec(`CREATE INDEX IF NOT EXISTS memory_docs_reterm_${TERMS_VERSION} ON memory_docs (owner, item) WHERE ${LEFT}`)
}

/** Where a re-terming stands: items done so far, and the last key done (the walk itself goes by `termed`). */
type Mark = Row<'termsMark'>

function markOf(statement: Statement): Mark | undefined {
  // A mark of another kind is read as none, as no mark is: nothing is re-termed until the index is next rebuilt.
  return rowFitting(
    COLUMNS.termsMark,
    statement('SELECT version, owner, item, done FROM memory_index_terms WHERE one = 1').get(),
  )
}

function setMark(statement: Statement, mark: Mark): void {
  statement(
    `INSERT INTO memory_index_terms (one, version, owner, item, done) VALUES (1, ?, ?, ?, ?)
    ON CONFLICT (one) DO UPDATE SET version = excluded.version, owner = excluded.owner, item = excluded.item,
    done = excluded.done`,
  ).run(mark.version, mark.owner, mark.item, mark.done)
}

/** Some of the index's rows were termed by an earlier version: a re-terming starts (none done yet). */
function markEarlier(statement: Statement): void {
  setMark(statement, { version: 1, owner: '', item: '', done: 0 })
}

/** The index's rows have this version's terms (a rebuild made them). */
export function markCurrent(statement: Statement): void {
  setMark(statement, { version: TERMS_VERSION, owner: '', item: '', done: 0 })
}

/**
 * At open: start re-terming when the index was made before the bookkeeping (`bookkept` false) or when items whose
 * terms are not this version's are there though the last re-terming finished (an older plugin wrote them since).
 * A re-terming under way goes on from where it stood.
 */
export function noticeEarlier(statement: Statement, bookkept: boolean): void {
  if (!bookkept) markEarlier(statement)
  else if (retermDone(statement) === undefined && statement(`SELECT 1 FROM memory_docs WHERE ${LEFT} LIMIT 1`).get())
    markEarlier(statement)
}

/** How many items are left to re-term (a walk of the partial index over them: costs what is left). */
export function retermLeft(statement: Statement): number {
  return rowOf('memory_docs', COLUMNS.count, statement(`SELECT count(*) AS n FROM memory_docs WHERE ${LEFT}`).get()).n
}

/** Items re-termed so far, or undefined when nothing is left to re-term. */
export function retermDone(statement: Statement): number | undefined {
  const mark = markOf(statement)
  return mark === undefined || mark.version >= TERMS_VERSION ? undefined : mark.done
}

/** Reads one item of an owner by key, caching a conversation's settings for the batch. */
class ItemReader {
  readonly #statement: Statement
  readonly #sessions = new Map<string, readonly IndexedItem[]>()

  constructor(statement: Statement) {
    this.#statement = statement
  }

  item(owner: string, id: string): IndexedItem | undefined {
    if (!owner.startsWith('s:')) {
      const row = rowFitting(
        COLUMNS.itemData,
        this.#statement('SELECT id, data FROM memory_items WHERE profile_id = ? AND id = ?').get(owner, id),
      )
      const item = row === undefined ? undefined : parseOrUndefined(row.data)
      return isIndexedItem(item) ? item : undefined
    }
    let memories = this.#sessions.get(owner)
    if (memories === undefined) {
      const row = rowFitting(
        COLUMNS.session,
        this.#statement('SELECT id, data FROM sessions WHERE id = ?').get(owner.slice(2)),
      )
      memories = row === undefined ? [] : indexedMemories(parseOrUndefined(row.data))
      this.#sessions.set(owner, memories)
    }
    return memories.find((m) => m.id === id)
  }
}

/**
 * Re-term the next items left, in key order, at most `limit` of them or until `deadline` (performance.now()), inside
 * the caller's write transaction; each one done is marked with this version, and the count recorded. Returns the
 * items done so far and whether every item is done (then the mark says this version).
 */
export function retermBatch(
  statement: Statement,
  limit: number,
  deadline: number,
): { done: number; finished: boolean } {
  const mark = markOf(statement)
  if (mark === undefined || mark.version >= TERMS_VERSION) return { done: mark?.done ?? 0, finished: true }
  const docs = rowsOf(
    'memory_docs',
    COLUMNS.docKey,
    statement(`SELECT owner, item, doc FROM memory_docs WHERE ${LEFT} ORDER BY owner, item LIMIT ?`).all(limit),
  )
  const reader = new ItemReader(statement)
  let last: { owner: string; item: string } | undefined
  let count = 0
  for (const d of docs) {
    const item = reader.item(d.owner, d.item)
    if (item !== undefined) {
      const terms = termsColumn(item.text, item.keys, item.at)
      const now = rowFitting(COLUMNS.terms, statement('SELECT terms FROM memory_fts WHERE rowid = ?').get(d.doc))
      if (now !== undefined && now.terms !== terms)
        statement('UPDATE memory_fts SET terms = ? WHERE rowid = ?').run(terms, d.doc)
    }
    // Marked even when its row is gone (a map row left without an item): it is not looked at again.
    statement('UPDATE memory_docs SET termed = ? WHERE owner = ? AND item = ?').run(TERMS_VERSION, d.owner, d.item)
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
