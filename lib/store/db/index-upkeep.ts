/**
 * Keeping the memory search index (memory-index.ts) in step with the rows: made or rebuilt at open when it is
 * missing, behind or damaged, kept up by each batch's write, rebuilt from the rows when a query failed or an older
 * version wrote rows beside it, and built from the loaded state when the database is open read-only. It never
 * decides what a row holds; it follows what the writes and loads tell it.
 */
import { userItemsOf, type MemoryItem, type State } from '../../state/model.ts'
import type { Connection } from './connection.ts'
import { MemoryIndex, conversationOwner } from './memory-index.ts'
import { USER_OWNER, indexedMemories, isIndexedItem, parseOrUndefined, type IndexedItem } from './rows.ts'
import { COLUMNS, rowsFitting } from './row-read.ts'

/** The search index of one database, and whether it is behind the rows. */
export class IndexUpkeep {
  /** The index itself: in the database, or in memory when the database is open read-only. */
  readonly index: MemoryIndex
  /** Set when the index failed a query or is behind the rows: the next write rebuilds it from the rows. */
  #stale = false

  /** The connection an index in the database is rebuilt through when a query finds it damaged. */
  readonly #conn: Connection | undefined

  private constructor(index: MemoryIndex, conn?: Connection) {
    this.index = index
    this.#conn = conn
  }

  /**
   * The index in the database, made or rebuilt from the rows when it is missing, behind them or of an older layout,
   * or when the file's check found its tables damaged (`damaged`). Made at open, not by a migration: a version
   * without it ignores its tables, and one that finds it behind the rows rebuilds it.
   *
   * An index at the rows' revision is trusted as it is: FTS5's integrity check reads every document of the index
   * (2 s with 100,000 items), and running it at every start made the start cost follow the history. Damage it would
   * have found shows as a failing query instead, which rebuilds the index then and there ({@link search}).
   */
  static open(conn: Connection, damaged = false): IndexUpkeep {
    conn.sql.exec('BEGIN IMMEDIATE')
    try {
      const upkeep = new IndexUpkeep(MemoryIndex.onDisk(conn.sql), conn)
      if (damaged || upkeep.index.behind(conn.revision()))
        upkeep.index.rebuild(indexRows(conn), conn.revision(), Date.now())
      conn.sql.exec('COMMIT')
      return upkeep
    } catch (e) {
      conn.sql.exec('ROLLBACK')
      throw e
    }
  }

  /** An index of this process's own, in memory, built from each state it loads: nothing may be written. */
  static inMemory(): IndexUpkeep {
    return new IndexUpkeep(MemoryIndex.inMemory())
  }

  /** Whether the index follows the rows write by write (else the end of the write rebuilds it). */
  get live(): boolean {
    return !this.#stale
  }

  /** The index no longer follows the rows: the end of this write, or the next one, rebuilds it. */
  markStale(): void {
    this.#stale = true
  }

  /**
   * Run a query on the index. When it fails (a damaged index), an index in the database is rebuilt from the rows at
   * once, in a transaction of its own, and the query runs again; undefined when that is not possible (another
   * process holds the write lock, the data may not be written) or fails again, which marks the index for a rebuild at
   * the next write, so the caller falls back to reading the items themselves.
   */
  search<T>(query: (index: MemoryIndex) => T): T | undefined {
    if (this.#stale) return undefined
    try {
      return query(this.index)
    } catch {
      this.#stale = true
    }
    if (!this.#repair()) return undefined
    try {
      return query(this.index)
    } catch {
      this.#stale = true
      return undefined
    }
  }

  /** Rebuild a damaged index in the database from the rows now; false when it cannot be (it stays marked stale). */
  #repair(): boolean {
    const conn = this.#conn
    if (conn === undefined || conn.sql.isTransaction) return false
    try {
      // Never waits: SQLite's busy wait would stop the whole dsh process while another one writes.
      if (!conn.tryBegin()) return false
    } catch {
      return false
    }
    try {
      this.index.rebuild(indexRows(conn), conn.revision(), Date.now())
      conn.commit()
      this.#stale = false
      return true
    } catch {
      conn.rollback()
      return false
    }
  }

  /**
   * One background step of re-terming an index of an earlier terms version (index-reterm.ts): at most `limit` items
   * or `ms` of work, in a write transaction of its own. `busy` when it cannot run now (the store is writing, another
   * process holds the write lock: it never waits), `done` when nothing is left or it cannot be written here.
   */
  retermStep(limit: number, ms: number): 'busy' | 'more' | 'done' {
    return this.#backgroundStep(
      () => this.index.retermDone() !== undefined,
      () => {
        const step = this.index.reterm(limit, performance.now() + ms)
        return step !== undefined && !step.finished
      },
    )
  }

  /**
   * One background step of merging the index's segments after a bulk write (index-merge.ts): about `pages` leaf
   * pages, in a write transaction of its own; answers as {@link retermStep} does.
   */
  mergeStep(pages: number): 'busy' | 'more' | 'done' {
    return this.#backgroundStep(
      () => this.index.mergeDue,
      () => this.index.merge(pages),
    )
  }

  /** Run `step` in a write transaction of its own when `due`, never waiting for the lock; see {@link retermStep}. */
  #backgroundStep(due: () => boolean, step: () => boolean): 'busy' | 'more' | 'done' {
    const conn = this.#conn
    if (conn === undefined || this.#stale) return 'done'
    if (conn.sql.isTransaction) return 'busy'
    if (!due()) return 'done'
    if (!conn.tryBegin()) return 'busy'
    try {
      const more = step()
      conn.commit()
      return more ? 'more' : 'done'
    } catch (e) {
      conn.rollback()
      throw e
    }
  }

  /**
   * Before a batch writes its rows, with the revision the database holds: an index that failed a query, or that an
   * older plugin left behind rows it wrote, is marked for a rebuild at the end of the write.
   */
  beforeWrite(revision: number): void {
    this.index.writing(revision)
    if (this.index.behind(revision)) this.#stale = true
  }

  /**
   * After a batch wrote its rows at `revision`: rebuilt from them when it is stale, else marked as at that revision.
   * Stale is read here, not kept from {@link beforeWrite}: the write itself may have marked it (clearing every
   * conversation while some are set aside), and an index marked at the revision without the rebuild would keep the
   * cleared conversations' items for good.
   */
  afterWrite(conn: Connection, revision: number): void {
    if (this.#stale) this.index.rebuild(indexRows(conn), revision, Date.now())
    else this.index.at(revision)
    this.#stale = false
  }

  /** After every row was replaced beside the index (a restore): made again from them, in the same transaction. */
  rebuildFromRows(conn: Connection, revision: number): void {
    this.index.rebuild(indexRows(conn), revision, Date.now())
  }

  /** After a full load: an index in memory is built from the state loaded (one in the database follows the rows). */
  loaded(state: State, revision: number, now: number): void {
    if (this.index.mode === 'memory') this.index.rebuild(stateItems(state), revision, now)
  }

  close(): void {
    this.index.close()
  }
}

/** Every memory item the rows hold, with its owner: the profiles' and the user layer's rows, each conversation's own. */
function* indexRows(conn: Connection): Generator<{ owner: string; item: IndexedItem }> {
  // A row of another kind is left out: the load sets it aside, and the index serves only the rows that read.
  for (const r of rowsFitting(
    COLUMNS.ownedData,
    conn.statement('SELECT profile_id, data FROM memory_items').iterate(),
  )) {
    const item = parseOrUndefined(r.data)
    if (isIndexedItem(item)) yield { owner: r.profile_id, item }
  }
  for (const r of rowsFitting(COLUMNS.session, conn.statement('SELECT id, data FROM sessions').iterate()))
    for (const item of indexedMemories(parseOrUndefined(r.data))) yield { owner: conversationOwner(r.id), item }
}

/** Every memory item of a state with its index owner (for an index built from the state, not the rows). */
function* stateItems(state: State): Generator<{ owner: string; item: MemoryItem }> {
  for (const p of state.profiles) for (const item of p.memory.items) yield { owner: p.id, item }
  for (const item of userItemsOf(state)) yield { owner: USER_OWNER, item }
  for (const [id, s] of state.sessions) for (const item of s.memories) yield { owner: conversationOwner(id), item }
}
