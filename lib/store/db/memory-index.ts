/**
 * The search index of every memory item, in the store's database: an FTS5 table (`tokenize='trigram'`, which finds
 * Chinese and English substrings alike) holding each item's text and its search terms (lib/shared/search-terms.ts),
 * plus the map from (owner, item id) to the index's row. Owns the index's schema, its upkeep beside the item rows
 * (write.ts calls it inside the same transaction, so the index is never stale and a crash loses both or neither),
 * its check and rebuild from the rows, and the two queries: ranked by terms (recall, `memory_search`) and the
 * settings list's substring filter. It never decides which items a caller may see (its callers pass the owners), and
 * never writes anything outside its three tables.
 *
 * Owners: a profile's id, `:user` for the user layer, `s:<session id>` for a conversation's own memories.
 * A database opened read-only gets its index in memory, built from the loaded state (see index-upkeep.ts).
 */
import { DatabaseSync, type StatementSync } from './sqlite.ts'
import { Statements } from './statements.ts'
import { COLUMNS, rowFitting, rowOf, rowsOf, type Row } from './row-read.ts'
import type { MemoryItem } from '../../state/model.ts'
import { TERMS_VERSION, TERM_SEPARATOR, termCode, termsColumn } from '../../shared/search-terms.ts'
import { TermCounts } from './term-counts.ts'
import {
  TERMS_TABLE,
  markCurrent,
  noticeEarlier,
  retermBatch,
  retermDone,
  retermLeft,
  termedColumn,
} from './index-reterm.ts'
import type { IndexedItem } from './rows.ts'
import { BULK_ROWS, MERGE_TABLE, markMergeDue, mergeDue, mergeStep } from './index-merge.ts'

/**
 * The index's tables. They are not part of the schema version: a database without them gets them at open (and a
 * rebuild), and an older plugin that ignores them makes the revision move past `memory_index_rev`, which the next
 * open notices and repairs by a rebuild.
 */
const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS memory_docs (owner TEXT NOT NULL, item TEXT NOT NULL, doc INTEGER NOT NULL, termed INTEGER, PRIMARY KEY (owner, item)) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS memory_docs_by_doc ON memory_docs (doc);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, terms, owner UNINDEXED, item UNINDEXED, tokenize = 'trigram');
CREATE TABLE IF NOT EXISTS memory_index_rev (one INTEGER PRIMARY KEY CHECK (one = 1), rev INTEGER NOT NULL);
${TERMS_TABLE}${MERGE_TABLE}`
const DROP = `

DROP TABLE IF EXISTS memory_docs;
DROP TABLE IF EXISTS memory_fts;
DROP TABLE IF EXISTS memory_index_rev;
DROP TABLE IF EXISTS memory_index_terms;
DROP TABLE IF EXISTS memory_index_merge;
`

/**
 * Make the index's tables where they are missing (inside the caller's transaction). A new database gets them in the
 * transaction that makes its schema, so no crash leaves one with the rows' tables and not these.
 */
export function createIndexTables(db: DatabaseSync): void {
  db.exec(INDEX_SCHEMA)
  termedColumn(db)
}

/**
 * The FTS table's columns in this layout: the item's text, its terms (with its search keys marked as keys: see
 * `termsColumn`), and its owner and id, so that a ranked look reads its candidates without a join. An index of
 * another layout (an older plugin's two columns) is rebuilt at open.
 */
const FTS_COLUMNS = 4

/** Whether a line of `PRAGMA quick_check` is about the search index alone (which a rebuild repairs). */
export function isIndexProblem(line: string): boolean {
  return /\bmemory_(fts|docs)\b/.test(line)
}

/** The owner key of a conversation's own memories. */
export function conversationOwner(sessionId: string): string {
  return `s:${sessionId}`
}

/** One ranked hit: whose item, which item, its terms column (as `termsColumn` wrote it) and its relevance (higher is
 * better). */
export type IndexHit = Row<'hit'>

/**
 * Rows holding a term the newest-first look reads at most before it starts from the owners' own newest row: enough
 * for the few items it hands over when the owners wrote lately, few enough to cost well under a millisecond.
 */
const NEWEST_SPAN = 1_000

/** Distinct terms one ranked query sends at most: a question's first ones carry it, and the query stays fast. */
export const QUERY_TERMS = 48

/**
 * What a ranking needs of the whole index beside the candidates (lib/memory/rank.ts): how many items it holds, their
 * mean number of terms, and in how many items each asked term occurs.
 */
export interface TermStats {
  docs: number
  meanTerms: number
  df: Map<string, number>
}

/**
 * The numbers of FTS5's "averages" record (the `_data` row with id 1: SQLite varints, the row count then each
 * column's token total), which FTS5 keeps for its own BM25. Bounded: at most 9 bytes per number, three numbers.
 */
function averages(block: Uint8Array): number[] {
  const out: number[] = []
  let i = 0
  while (out.length < 3 && i < block.length) {
    let v = 0
    for (let k = 0; k < 9 && i < block.length; k++) {
      const byte = block[i++]!
      if (k === 8) {
        v = v * 256 + byte
        break
      }
      v = v * 128 + (byte & 0x7f)
      if ((byte & 0x80) === 0) break
    }
    out.push(v)
  }
  return out
}

/**
 * Bytes of the index's FTS structure per token it holds, on average: measured 3.4 for English prose, 5.0 for short
 * values and 5.3–7.0 for Chinese, so the size Diagnostics shows is within about a third of the tables' sum.
 */
const BYTES_PER_TOKEN = 4.5

/** Bytes each item takes beside its text and terms: its owner and id, twice (the FTS row and the map row). */
const ROW_BYTES = 64

/** Where the index lives: the database's own file, or this process's memory (a database opened read-only). */
export type IndexMode = 'disk' | 'memory'

/** The index over one database connection (the store's own, or an in-memory one). */
export class MemoryIndex {
  readonly mode: IndexMode
  readonly #db: DatabaseSync
  readonly #statements: Statements
  /** When this process last rebuilt it, or null. */
  rebuiltAt: number | null = null

  private constructor(db: DatabaseSync, mode: IndexMode) {
    this.#db = db
    this.mode = mode
    this.#statements = new Statements(db)
  }

  /** The index of the store's database `db`, its tables made when missing (inside the caller's transaction). */
  static onDisk(db: DatabaseSync): MemoryIndex {
    const tables = rowOf(
      'sqlite_master',
      COLUMNS.count,
      db
        .prepare(
          "SELECT count(*) AS n FROM sqlite_master WHERE name IN ('memory_docs', 'memory_fts', 'memory_index_rev')",
        )
        .get(),
    ).n
    const termed = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_index_terms'").get() !== undefined
    const merged = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_index_merge'").get() !== undefined
    createIndexTables(db)
    const columns = rowOf(
      'memory_fts',
      COLUMNS.count,
      db.prepare("SELECT count(*) AS n FROM pragma_table_info('memory_fts')").get(),
    ).n
    const index = new MemoryIndex(db, 'disk')
    // A table that went missing leaves the others saying nothing true, and a table of another layout cannot take
    // this layout's rows: forget the revision, so it is rebuilt (dropped and made anew). Items termed by an earlier
    // version (an index made before its terms were versioned, or items an older plugin wrote since) are re-termed in
    // the background (index-reterm.ts).
    if (tables < 3 || columns !== FTS_COLUMNS) db.exec('DELETE FROM memory_index_rev')
    else noticeEarlier((sql) => index.#statement(sql), termed)
    // An index made before merges were kept track of may hold the segments of an earlier bulk write: merged once.
    if (tables === 3 && !merged) markMergeDue((sql) => index.#statement(sql))
    index.#mergeDue = mergeDue((sql) => index.#statement(sql))
    return index
  }

  /** An index of this process's own, for a database it may only read. */
  static inMemory(): MemoryIndex {
    const db = new DatabaseSync(':memory:')
    createIndexTables(db)
    return new MemoryIndex(db, 'memory')
  }

  #statement(sql: string): StatementSync {
    return this.#statements.get(sql)
  }

  #vocab = false
  /** Rows this write indexed so far: a write of many marks a merge of the index due ({@link at}). */
  #inserted = 0
  /** Whether a merge of the index's segments is due, as this process last wrote or read it (index-merge.ts). */
  #mergeDue = false
  /**
   * The counts read since this process last read them afresh, brought along by each of its own writes: a
   * conversation asks for much the same terms turn after turn, and a save must not throw them away. Another
   * process's writes are seen at this one's next write (its revision then is not the one the counts stand for).
   */
  #counts: TermCounts | undefined

  /**
   * The index's counts for ranking `terms`: the number of items, their mean number of terms and each term's document
   * frequency (an FTS5 vocabulary table over the terms column, kept in this connection's temp schema so that the
   * database file's schema does not change).
   */
  termStats(terms: readonly string[]): TermStats {
    // While the index is re-termed (by this process or another), the counts move without a revision to tell: read
    // them afresh each time, as before counts were kept, and keep none read meanwhile, since the step that finishes
    // the re-terming (perhaps another process's) moves them again and nothing tells this one when.
    const reterming = this.retermDone() !== undefined
    if (reterming) this.#counts = undefined
    const counts = this.#counts ?? this.#freshCounts()
    this.#counts = reterming ? undefined : counts
    const missing = counts.missing(terms)
    if (missing.length > 0) {
      if (!this.#vocab) {
        this.#db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_vocab USING fts5vocab(main, memory_fts, 'col')")
        this.#vocab = true
      }
      const codes = missing.map((t) => `${TERM_SEPARATOR}${termCode(t)}`)
      const found = rowsOf(
        'memory_vocab',
        COLUMNS.vocab,
        this.#statement(
          `SELECT term, doc FROM memory_vocab WHERE col = 'terms' AND term IN (${codes.map(() => '?').join(', ')})`,
        ).all(...codes),
      )
      const byCode = new Map(found.map((f) => [f.term, f.doc]))
      missing.forEach((t, i) => counts.learn(t, byCode.get(codes[i]!) ?? 0))
    }
    return { docs: counts.docs, meanTerms: counts.meanTerms, df: counts.df }
  }

  #freshCounts(): TermCounts {
    const at = this.#revision() ?? 0
    const [rows, , tokens] = this.#averages()
    return new TermCounts(rows, tokens, at)
  }

  /**
   * A batch begins writing while the database stands at `revision`: counts taken at another revision (another
   * process wrote since) are read afresh when next asked; changes staged by a write that rolled back are dropped.
   */
  writing(revision: number): void {
    this.#inserted = 0
    if (this.#counts?.at !== revision) this.#counts = undefined
    this.#counts?.begin()
  }

  /** FTS5's averages record: the number of rows, then the text column's and the terms column's token totals. */
  #averages(): [rows: number, text: number, terms: number] {
    // A record of another kind is read as none: the counts start afresh, as for an empty index.
    const row = rowFitting(COLUMNS.ftsBlock, this.#statement('SELECT block FROM memory_fts_data WHERE id = 1').get())
    const [rows = 0, text = 0, terms = 0] = row === undefined ? [] : averages(row.block)
    return [rows, text, terms]
  }

  /** Whether the index was last brought to a revision other than `revision` (cheap: one row, no check). */
  behind(revision: number): boolean {
    const rev = this.#revision()
    return rev === undefined ? revision !== 0 : rev !== revision
  }

  #revision(): number | undefined {
    // A revision of another kind stands for none: the index is behind every revision, so it is rebuilt.
    return rowFitting(COLUMNS.indexRev, this.#statement('SELECT rev FROM memory_index_rev WHERE one = 1').get())?.rev
  }

  /** Record that the index now stands for revision `revision` (inside the transaction that wrote it). */
  at(revision: number): void {
    this.#counts?.settle(revision)
    if (this.#inserted >= BULK_ROWS && this.mode === 'disk') {
      markMergeDue((sql) => this.#statement(sql))
      this.#mergeDue = true
    }
    this.#inserted = 0
    this.#statement(
      'INSERT INTO memory_index_rev (one, rev) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET rev = excluded.rev',
    ).run(revision)
  }

  /**
   * Make the index anew from `entries` (every item with its owner), dropping whatever was there, damaged or not.
   * Runs inside the caller's transaction.
   */
  rebuild(entries: Iterable<{ owner: string; item: IndexedItem }>, revision: number, now: number): void {
    this.#statements.clear()
    if (this.#vocab) this.#db.exec('DROP TABLE IF EXISTS temp.memory_vocab')
    this.#vocab = false
    this.#counts = undefined
    this.#inserted = 0
    this.#db.exec(DROP)
    createIndexTables(this.#db)
    markCurrent((sql) => this.#statement(sql))
    for (const { owner, item } of entries) this.#insert(owner, item)
    this.at(revision)
    this.rebuiltAt = now
  }

  // The row number comes from the FTS table inside this transaction: another process may have added rows since this
  // one last looked, so no number is kept between writes.
  #insert(owner: string, item: IndexedItem): void {
    const terms = termsColumn(item.text, item.keys, item.at)
    const { lastInsertRowid } = this.#statement(
      'INSERT INTO memory_fts (text, terms, owner, item) VALUES (?, ?, ?, ?)',
    ).run(item.text, terms, owner, item.id)
    this.#inserted++
    this.#counts?.added(terms)
    this.#statement('INSERT INTO memory_docs (owner, item, doc, termed) VALUES (?, ?, ?, ?)').run(
      owner,
      item.id,
      lastInsertRowid,
      TERMS_VERSION,
    )
  }

  #docOf(owner: string, id: string): number | undefined {
    // A doc number of another kind names no row of the index: the item is left to the next rebuild, not refused
    // (this runs inside a write, which must not fail for the index's sake).
    return rowFitting(
      COLUMNS.doc,
      this.#statement('SELECT doc FROM memory_docs WHERE owner = ? AND item = ?').get(owner, id),
    )?.doc
  }

  /** The rows of one owner's list brought from `before` to `after`: new and changed items (re)written, removed ones dropped. */
  sync(owner: string, before: readonly MemoryItem[], after: readonly MemoryItem[]): void {
    if (before === after) return
    const was = new Map(before.map((it) => [it.id, it]))
    const kept = new Set(after.map((it) => it.id))
    this.apply(
      owner,
      after.flatMap((it) => (was.get(it.id) === it ? [] : [{ old: was.get(it.id), now: it }])),
      before.filter((it) => !kept.has(it.id)),
    )
  }

  /**
   * Bring one owner's rows up to a change already worked out by the caller: `changed` items (with what each was, if
   * anything) rewritten when their text, keys or day changed, `removed` ones dropped. Costs what changed, not the list.
   */
  apply(
    owner: string,
    changed: readonly { old?: MemoryItem; now: MemoryItem }[],
    removed: readonly MemoryItem[],
  ): void {
    for (const { old, now } of changed) {
      if (old !== undefined && old.text === now.text && old.keys === now.keys && old.at === now.at) continue
      if (old !== undefined) this.#remove(owner, now.id)
      this.#insert(owner, now)
    }
    for (const it of removed) this.#remove(owner, it.id)
  }

  #remove(owner: string, id: string): void {
    const doc = this.#docOf(owner, id)
    if (doc === undefined) return
    if (this.#counts !== undefined) {
      const row = rowFitting(COLUMNS.terms, this.#statement('SELECT terms FROM memory_fts WHERE rowid = ?').get(doc))
      if (row !== undefined) this.#counts.removed(row.terms)
    }
    this.#statement('DELETE FROM memory_fts WHERE rowid = ?').run(doc)
    this.#statement('DELETE FROM memory_docs WHERE owner = ? AND item = ?').run(owner, id)
  }

  /**
   * Re-term the next items of an index whose terms are of an earlier version, at most `limit` or until `deadline`
   * (inside the caller's write transaction); undefined when nothing is left to re-term. See index-reterm.ts.
   */
  reterm(limit: number, deadline: number): { done: number; finished: boolean } | undefined {
    if (retermDone((sql) => this.#statement(sql)) === undefined) return undefined
    // The words' counts change with the terms: read afresh when next asked.
    this.#counts = undefined
    return retermBatch((sql) => this.#statement(sql), limit, deadline)
  }

  /**
   * Whether a merge of the index's segments is due (after a bulk write, or one a process was killed in the middle
   * of): as this process last wrote or read it, without a read. A merge another process marked is its own to run.
   */
  get mergeDue(): boolean {
    return this.#mergeDue
  }

  /**
   * One bounded step of merging the index's segments (inside the caller's write transaction): about `pages` leaf
   * pages; false once nothing is left, which clears the mark. See index-merge.ts.
   */
  merge(pages: number): boolean {
    this.#mergeDue = mergeDue((sql) => this.#statement(sql)) && mergeStep((sql) => this.#statement(sql), pages)
    return this.#mergeDue
  }

  /** Items re-termed so far while a re-terming is under way, else undefined (one row read). */
  retermDone(): number | undefined {
    return retermDone((sql) => this.#statement(sql))
  }

  /** The items a re-terming under way had to do when this process first asked (counting them costs what is left). */
  #retermTotal: number | undefined

  /**
   * How far a re-terming under way stands, for Diagnostics: items done, of all it has to do (counted once per process
   * and re-terming: 40 ms with 100,000 items left, so not at every ask); undefined when none is under way.
   */
  retermProgress(): { done: number; total: number } | undefined {
    const done = this.retermDone()
    if (done === undefined) {
      this.#retermTotal = undefined
      return undefined
    }
    this.#retermTotal ??= done + retermLeft((sql) => this.#statement(sql))
    return { done, total: Math.max(done, this.#retermTotal) }
  }

  /** Drop every row of one owner (a deleted profile, a forgotten conversation). */
  dropOwner(owner: string): void {
    this.#counts = undefined
    this.#statement('DELETE FROM memory_fts WHERE rowid IN (SELECT doc FROM memory_docs WHERE owner = ?)').run(owner)
    this.#statement('DELETE FROM memory_docs WHERE owner = ?').run(owner)
  }

  /** Drop the rows of every conversation's own memories (all conversations cleared). */
  dropConversations(): void {
    this.#counts = undefined
    this.#statement(
      "DELETE FROM memory_fts WHERE rowid IN (SELECT doc FROM memory_docs WHERE owner >= 's:' AND owner < 's;')",
    ).run()
    this.#statement("DELETE FROM memory_docs WHERE owner >= 's:' AND owner < 's;'").run()
  }

  /**
   * The items of `owners` that share terms with `terms`, best first (FTS5's BM25 over the terms column), at most
   * `limit`. Each term is matched whole, by its code (see `termCode`). FTS5 ranks every row that matches, a lookup
   * of its size each, so the caller keeps `terms` to those held by few rows (lib/memory/search.ts).
   */
  ranked(owners: readonly string[], terms: readonly string[], limit: number): IndexHit[] {
    return this.#look(owners, terms, limit, 'rank')
  }

  /**
   * The newest items of `owners` holding any of `terms`, newest first, at most `limit`, unranked: for terms held by so
   * many rows that ranking them all would cost more than it tells (every item holding one scores about alike).
   */
  newest(owners: readonly string[], terms: readonly string[], limit: number): IndexHit[] {
    return this.#look(owners, terms, limit, 'rowid DESC')
  }

  #look(owners: readonly string[], terms: readonly string[], limit: number, order: 'rank' | 'rowid DESC'): IndexHit[] {
    const distinct = [...new Set(terms)].slice(0, QUERY_TERMS)
    if (distinct.length === 0 || owners.length === 0) return []
    // A code is two Han characters: no quote can end the phrase early.
    const match = `terms : (${[...new Set(distinct.map(termCode))].map((c) => `"${TERM_SEPARATOR}${c}"`).join(' OR ')})`
    const marks = owners.map(() => '?').join(', ')
    // Each matching row's owner is read from the map through its index by row number (`memory_docs_by_doc` holds the
    // owner beside the number), not from the FTS table's own column, which reads the row's whole content: only the
    // rows kept are read whole. The `+` keeps SQLite from looking the map up once per owner.
    const hits = (from: string, args: readonly (string | number)[]) =>
      rowsOf(
        'memory_fts',
        COLUMNS.hit,
        this.#statement(
          `SELECT d.owner AS owner, d.item AS item, f.terms AS terms, ${from}
      AND +d.owner IN (${marks}) ORDER BY ${order === 'rank' ? 'f.rank' : 'n.doc DESC'} LIMIT ?`,
        ).all(match, ...args, ...owners, limit),
      )
    if (order === 'rank')
      return hits(
        `-f.rank AS score FROM memory_fts f JOIN memory_docs d ON d.doc = f.rowid
      WHERE memory_fts MATCH ? AND f.rank MATCH 'bm25(0.0, 1.0)'`,
        [],
      )
    const join = 'JOIN memory_docs d ON d.doc = n.doc JOIN memory_fts f ON f.rowid = n.doc WHERE 1'
    // First the newest rows holding a term, whoever's: the owners' own rows are most often among the newest.
    const near = hits(
      `0 AS score FROM (SELECT rowid AS doc FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT ?) n ${join}`,
      [NEWEST_SPAN],
    )
    if (near.length >= limit) return near
    // The rows the first look read, when it read as many as it may: the owners hold fewer than asked among them.
    const span = rowFitting(
      COLUMNS.spanRows,
      this.#statement(
        'SELECT count(*) AS n, min(doc) AS doc FROM (SELECT rowid AS doc FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT ?)',
      ).get(match, NEWEST_SPAN),
    )
    if (span === undefined || span.n < NEWEST_SPAN) return near
    const newest = rowFitting(
      COLUMNS.doc,
      this.#statement(`SELECT max(doc) AS doc FROM memory_docs WHERE owner IN (${marks})`).get(...owners),
    )?.doc
    if (newest === undefined) return near
    // A profile not written since the others wrote those rows (years, perhaps): from its newest row down, FTS5 seeking
    // there, so the rows the others wrote since are never read. Otherwise on down from the newest, the map telling
    // each row's owner: a walk back from a row number costs FTS5 a read of the term's rows below it.
    const from = newest < span.doc ? 'AND rowid <= ?' : ''
    return hits(
      `0 AS score FROM (SELECT rowid AS doc FROM memory_fts WHERE memory_fts MATCH ? ${from} ORDER BY rowid DESC) n ${join}`,
      newest < span.doc ? [newest] : [],
    )
  }

  /**
   * The ids of `owner`'s items whose text holds every word of `query` (split on spaces), case-insensitively: words of
   * three characters or more through the trigram index, shorter ones by a scan of the owner's rows (the trigram
   * index cannot look them up). Best first when the index ranked them; undefined for an empty query.
   */
  containing(owner: string, query: string): string[] | undefined {
    const words = query.split(/\s+/).filter(Boolean)
    if (words.length === 0) return undefined
    const long = words.filter((w) => [...w].length >= 3)
    const short = words.filter((w) => [...w].length < 3)
    const like = short.map(() => " AND f.text LIKE ? ESCAPE '\\'").join('')
    const likeArgs = short.map((w) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    if (long.length === 0) {
      return rowsOf(
        'memory_docs',
        COLUMNS.hitItem,
        this.#statement(
          `SELECT d.item AS item FROM memory_docs d JOIN memory_fts f ON f.rowid = d.doc WHERE d.owner = ?${like}`,
        ).all(owner, ...likeArgs),
      ).map((r) => r.item)
    }
    const match = `text : (${long.map((w) => `"${w.replace(/"/g, '""')}"`).join(' AND ')})`
    return rowsOf(
      'memory_docs',
      COLUMNS.hitItem,
      this.#statement(
        `SELECT d.item AS item FROM memory_fts f JOIN memory_docs d ON d.doc = f.rowid
      WHERE memory_fts MATCH ? AND d.owner = ?${like} ORDER BY f.rank`,
      ).all(match, owner, ...likeArgs),
    ).map((r) => r.item)
  }

  /**
   * How many items the index holds (exact), and about how many bytes it takes (an estimate), both from FTS5's own
   * averages record: one row, whatever the index's size. Counting the tables instead read all of them (~300 ms at
   * 237,500 items, holding the host's event loop), and Diagnostics asks after every change a page hears of.
   */
  size(): { items: number; bytes: number } {
    const [items, text, terms] = this.#averages()
    const tokens = text + terms
    // The trigram tokenizer reads a value of n characters as n - 2 tokens: the stored text is the tokens plus two
    // characters per value of each of the two columns.
    const content = tokens + 4 * items
    return { items, bytes: Math.round(tokens * BYTES_PER_TOKEN + content + items * ROW_BYTES) }
  }

  /** Close an in-memory index (the store's own connection is the store's to close). */
  close(): void {
    if (this.mode === 'memory') this.#db.close()
  }
}
