/**
 * One open database, as the store uses it: what this process last loaded from it or wrote to it (the revisions it
 * holds, the rows set aside, the search index, whether it may be written), and the one entry to each of its jobs,
 * each in a file of its own: the full load (load.ts), the reload of others' commits (reload.ts), a batch's write
 * (write.ts, guarded by write-guard.ts), the turn ledger (ledger.ts), a restore (restore.ts). It never decides what
 * the state is (it stores what it is given) and never opens the file (open.ts does, and makes one of these).
 */
import { privateFile } from './private-files.ts'
import type { ReadOnlyData } from '../../shared/meta.ts'
import type { RetiredProfile } from '../../shared/wire-replies.ts'
import type { MemoryIndex } from './memory-index.ts'
import type { MemoryItem, State } from '../../state/model.ts'
import type { AvatarFiles } from './avatars.ts'
import type { Connection } from './connection.ts'
import { HeldRevisions } from './held-revisions.ts'
import { Positions } from './positions.ts'
import type { IndexUpkeep } from './index-upkeep.ts'
import { Ledger, type Turn } from './ledger.ts'
import { itemsOnDisk, loadAll, type LoadParts, type Loaded } from './load.ts'
import { RowReader } from './read-rows.ts'
import { reload } from './reload.ts'
import { restoreRows, type RestoreOptions } from './restore.ts'
import { compatibility, newerMessage, schemaOf } from './schema.ts'
import { SetAside } from './set-aside.ts'
import type { StoredValuesAt } from './stored-values.ts'
import { COLUMNS, jsonColumn, rowOf } from './row-read.ts'
import { ProfileStored } from '../../state/schema-state.ts'
import { writeRows, type RowChange } from './write.ts'
import { fillKindsStep, kindsReady, type FillStep } from './item-kinds.ts'
import { fillTextKeysStep, textKeysFilled } from './text-keys.ts'
import { guardChange } from './write-guard.ts'

/** What an open database is made of (open.ts makes them). */
export interface DatabaseParts {
  connection: Connection
  avatars: AvatarFiles
  /** The search index: in the database, or in memory when it is open read-only. */
  index: IndexUpkeep
  /** Whether the turns table has its memories column (a database opened read-only may predate it). */
  turnMemories: boolean
  /** Why nothing may be written, when nothing may. */
  readOnly?: ReadOnlyData
}

/** One batch for {@link Database.write}: the rows it changed, the turns it records, the conversations whose turns go. */
export interface BatchWrite extends RowChange {
  turns: readonly Turn[]
  /** Conversations whose turns go (`sessions.forget`). */
  forget?: readonly string[]
}

/** What a retired profile's row keeps of its look: the stored profile's own fields (write.ts writes them). */
const RETIRED_LOOK = ProfileStored.pick({ name: true, emoji: true, avatar: true })

/** One open database, with what this process last loaded from it or wrote to it. */
export class Database {
  /** The rows this version's rules refuse: out of the state, and out of reach of every write. */
  readonly aside = new SetAside()
  /** The turn ledger. */
  readonly ledger: Ledger
  readonly #conn: Connection
  readonly #index: IndexUpkeep
  readonly #held = new HeldRevisions()
  /** Where each item's row sits, as read or written here (so a write places items without renumbering). */
  readonly #positions = new Positions()
  readonly #parts: LoadParts
  #readOnly: ReadOnlyData | undefined
  /** A newer version made the database after this process opened it and this one cannot read it: reading stopped. */
  #unreadable = false
  /** Told when a read meets a damaged page (SQLite's words). */
  #damaged: ((detail: string) => void) | undefined

  constructor(parts: DatabaseParts) {
    this.#conn = parts.connection
    this.#index = parts.index
    this.#readOnly = parts.readOnly
    this.ledger = new Ledger(parts.connection, { memories: parts.turnMemories })
    const rows = new RowReader({
      connection: parts.connection,
      aside: this.aside,
      avatars: parts.avatars,
      positions: this.#positions,
      damaged: (detail) => this.#damaged?.(detail),
    })
    this.#parts = { connection: parts.connection, rows, aside: this.aside, held: this.#held, index: parts.index }
  }

  /**
   * Why nothing may be written to this database (a newer version made it, even since it was opened; or it cannot be
   * written where it is), else undefined.
   */
  get readOnly(): ReadOnlyData | undefined {
    return this.#readOnly
  }

  /** Have `tell` told whenever a read of rows meets a damaged page (the store marks the file and checks it). */
  whenDamaged(tell: (detail: string) => void): void {
    this.#damaged = tell
  }

  /** The revision the database holds now (0: nothing was ever saved). */
  revision(): number {
    return this.#conn.revision()
  }

  /** Whether nothing was ever saved in this database (no revision, no profile, no turn). */
  isEmpty(): boolean {
    return this.#conn.isEmpty()
  }

  /** Whether another connection committed since the last call (or since opening). About a microsecond. */
  changed(): boolean {
    return this.#conn.changed()
  }

  /** Start a write transaction, waiting for another process's to end: only at open, for a migration. */
  begin(): void {
    this.#conn.begin()
  }

  /**
   * Start a batch's write transaction if no other process holds the write lock; false when one does (never waits).
   * `later`: an own import's batch, committed without waiting for the disk (Connection.tryBegin says how).
   */
  tryBegin(later = false): boolean {
    return this.#conn.tryBegin(later)
  }

  commit(): void {
    this.#conn.commit()
  }

  /** Undo the open transaction, if any; never throws. */
  rollback(): void {
    this.#conn.rollback()
  }

  /**
   * The whole state the database holds, with avatars read from their files; undefined when nothing was ever saved.
   * Each row is checked alone (see load.ts).
   */
  loadAll(now: number, values: StoredValuesAt): Loaded | undefined {
    return loadAll(this.#parts, now, values)
  }

  /**
   * `current` (the state this process holds) brought up to what the database holds (see reload.ts); undefined when
   * the state is the same, or when a newer version made the database one this version cannot read (then `readOnly`
   * says so and the state stays what was read). Throws on a database fault.
   */
  refresh(current: State, values: StoredValuesAt): { state: State; revision: number } | undefined {
    this.#noticeNewer()
    if (this.#unreadable) return undefined
    return reload(this.#parts, current, values)
  }

  /**
   * Whether a newer version of the plugin changed the schema since this process opened the database: then nothing
   * more is written (and, when this version cannot read the new schema, nothing more is read).
   */
  #noticeNewer(): void {
    if (this.#unreadable) return
    const info = schemaOf(this.#conn.sql)
    const fit = compatibility(info)
    if (fit !== 'newer' && fit !== 'unreadable') return
    this.#unreadable = fit === 'unreadable'
    this.#readOnly = {
      kind: 'newer',
      message: newerMessage(info),
      ...(this.#unreadable ? { unreadable: true as const } : {}),
    }
  }

  /**
   * Throw (StoreError `conflict`) when going from `prev` to `next` would write a row set aside: asked for each
   * command before its batch is written, so that only the command touching such a row is refused.
   */
  guardChange(prev: State, next: State): void {
    guardChange(this.aside, prev, next)
  }

  /**
   * Write what changed from `batch.prev` (the state the database holds) to `batch.next` as rows of `batch.revision`,
   * plus the turns, inside the transaction `tryBegin` opened. Throws on any failure; the caller rolls back.
   */
  write(batch: BatchWrite): void {
    const { aside, positions } = { aside: this.aside, positions: this.#positions }
    writeRows({ connection: this.#conn, aside, index: this.#index, held: this.#held, positions }, batch)
    this.ledger.write(batch.turns, batch.forget ?? [])
  }

  /** After the commit of `write`: the database now holds `next` at `revision`. */
  wrote(change: { prev: State; next: State; revision: number }): void {
    // The active id chosen now is this version's: the mend of a dangling one is no longer needed.
    if (change.prev.activeId !== change.next.activeId) this.aside.forget('meta', 'activeId')
    this.#held.wrote(change)
    this.#positions.committed()
  }

  /** Profile `owner`'s memory items as a start reads them (load.ts `itemsOnDisk`): none held before a reader looks. */
  itemsOnDisk(owner: string, now: number, values: StoredValuesAt): MemoryItem[] {
    return itemsOnDisk(this.#parts, owner, now, values)
  }

  /**
   * Run a query on the search index; undefined when it fails (a damaged index), which also marks it for a rebuild at
   * the next write, so the caller falls back to reading the items themselves.
   */
  searchIndex<T>(query: (index: MemoryIndex) => T): T | undefined {
    return this.#index.search(query)
  }

  /** One background step of re-terming the search index (index-upkeep.ts `retermStep`). */
  retermStep(limit: number, ms: number): 'busy' | 'more' | 'done' {
    return this.#index.retermStep(limit, ms)
  }

  /** One background step of merging the search index's segments (index-upkeep.ts `mergeStep`). */
  mergeStep(pages: number): 'busy' | 'more' | 'done' {
    return this.#index.mergeStep(pages)
  }

  /** Whether a merge of the search index's segments is due (memory-index.ts `mergeDue`; nothing read). */
  get mergeDue(): boolean {
    return this.#index.index.mergeDue
  }

  /**
   * Whether a background fill is done: the item columns filled, indexed and counted (item-kinds.ts), or every row's
   * text key filled and indexed (text-keys.ts).
   */
  fillDone(fill: 'kinds' | 'textKeys'): boolean {
    return fill === 'kinds' ? kindsReady((k) => this.#conn.meta(k)) : textKeysFilled(this.#conn)
  }

  /** One background step of a fill (item-kinds.ts `fillKindsStep`, text-keys.ts `fillTextKeysStep`). */
  fillStep(fill: 'kinds' | 'textKeys', limit: number): FillStep {
    return (fill === 'kinds' ? fillKindsStep : fillTextKeysStep)(this.#conn, limit)
  }

  /** How a deleted profile looked when it was deleted. */
  retired(id: string): RetiredProfile | undefined {
    const found = this.#conn.statement('SELECT at, data FROM retired_profiles WHERE id = ?').get(id)
    if (found === undefined) return undefined
    const row = rowOf('retired_profiles', COLUMNS.retired, found)
    const { name, emoji, avatar } = jsonColumn(RETIRED_LOOK, row.data, `retired_profiles.${id}.data`)
    return { id, name, emoji, avatar, at: row.at }
  }

  /** A value of `meta` (migration bookkeeping). */
  metaValue(key: string): unknown {
    return this.#conn.meta(key)
  }

  /** Set a value of `meta` (migration bookkeeping). */
  setMetaValue(key: string, value: string | number): void {
    this.#conn.setMeta(key, value)
  }

  /** Write a consistent copy of what is committed to `path` (VACUUM INTO: WAL included, compacted). */
  vacuumInto(path: string): void {
    this.#conn.statement('VACUUM INTO ?').run(path)
    privateFile(path)
  }

  /** Replace every row with those of a backup, as one transaction (see restore.ts). */
  restoreFrom(options: RestoreOptions): Promise<void> {
    return restoreRows({ connection: this.#conn, index: this.#index }, options)
  }

  close(): void {
    this.#conn.rollback()
    this.#index.close()
    this.#conn.close()
  }
}
