/**
 * The store's database and the only code that reads or writes it: one SQLite database (node:sqlite) per data
 * directory holding the state as rows, and the turn ledger. Owns the layout, opening (a newer version's database
 * read-only, an older one migrated by schema.ts, one SQLite cannot use kept aside), the full load and the reload of
 * what other processes committed (each row checked alone; rows.ts keeps those set aside out of every write), writing
 * a batch as the rows it changed, and a restore's replacement of every row. It never decides what the state is; it
 * stores what it is given.
 *
 * Layout, for a data file `<dir>/<stem>.sqlite` (a configured `<stem>.json`, the name before the database, means the
 * same data):
 *   <stem>.sqlite, -wal, -shm   the database, in WAL mode
 *   <stem>.avatars/             avatar images, one file per distinct image (avatars.ts)
 *   <stem>.sqlite.bad-<ts>      a database SQLite cannot use (and its -wal), kept aside once its readable rows were
 *                               copied into the new one (salvage.ts), never overwritten
 *   <stem>.sqlite.v<N>-<ts>     a copy taken before migrating from schema N (schema.ts), the newest three kept
 *   <stem>.backups/<day>/       the daily backups and the copies taken before a restore (backups.ts)
 *   <stem>.json.migrated-<ts>   the files of the layout before the database, kept once imported (migrate.ts)
 *
 * Why SQLite: WAL mode with synchronous=FULL makes a commit durable before it is acknowledged for about the cost of
 * one log append, several dsh processes can write the same data (one waits for another's write lock, up to 10 s,
 * never refused), and `PRAGMA data_version` tells a process in about a microsecond whether another one committed.
 * Why rows: a batch writes the profiles, memory items and conversation settings it changed and nothing else, so a
 * commit costs the same with 100,000 conversations as with none. Every row carries the revision that wrote it
 * (`rev`), so another process reloads only rows newer than the revision it holds; removed conversations leave a
 * tombstone in `sessions_gone` for the same reason, and clearing all of them sets `sessionsReset` instead. A process
 * holding a revision older than `sessionsReset` reloads every conversation's settings, which is also what lets the
 * oldest tombstones go (see GONE_KEPT).
 */
import { accessSync, constants, existsSync, mkdirSync, unlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { DatabaseSync, type StatementSync } from './sqlite.ts'
import { pathToFileURL } from 'node:url'
import type { ReadOnlyData, RetiredProfile, Salvage } from '../shared/contract.ts'
import { HISTORY_LIMITS, LIMITS, USER_HISTORY, userItemsOf, type Memory, type MemoryItem, type MemoryWrite, type Profile, type SessionSetting, type State, type UsedMemory } from '../state/model.ts'
import { AVATAR_FILE, AvatarFiles } from './avatars.ts'
import { MemoryIndex, conversationOwner, isIndexProblem } from './memory-index.ts'
import { Statements } from './statements.ts'
import { keepAside } from './copies.ts'
import { SetAside } from './rows.ts'
import { APPLICATION_ID, SCHEMA_VERSION, compatibility, createSchema, migrateSchema, newerMessage, schemaOf } from './schema.ts'
import { changedKeys, diffKeys, put, sessionsOf } from '../state/sessions.ts'
import {
  StoreError, bareRecord, invalid, isEmptySetting, isRecord, memoryItem, memoryWrite, profile as profileOf, sessionId, sessionSetting, undoEntry,
  type ItemDefaults,
} from '../validate/state.ts'
import { errorText } from '../shared/errors.ts'

/** Where each part of the store lives, and the files of the layout before the database. */
export interface Layout {
  /** The database. */
  file: string
  dir: string
  avatarDir: string
  legacy: { file: string; walFile: string; ledgerFile: string; lockFile: string }
}

/** The layout for a data file (`<stem>.sqlite`, or the `<stem>.json` of the layout before the database). */
export function layoutOf(file: string): Layout {
  const dir = dirname(file)
  const stem = basename(file).replace(/\.(json|sqlite)$/i, '')
  return {
    file: join(dir, `${stem}.sqlite`), dir, avatarDir: join(dir, `${stem}.avatars`),
    legacy: {
      file: join(dir, `${stem}.json`), walFile: join(dir, `${stem}.wal`), ledgerFile: join(dir, `${stem}.turns.jsonl`),
      lockFile: join(dir, `${stem}.lock`),
    },
  }
}

/** How long a commit waits for another process's transaction before it fails (they take milliseconds). */
export const BUSY_TIMEOUT_MS = 10_000

/**
 * The owner key of the user layer's rows in memory_items: no profile id can start with `:`, and a database written
 * before the user layer has no such rows, so it opens with an empty user layer and loses nothing. meta `userRev`
 * is the revision that last wrote them, so another process reloads them only when they changed.
 */
export const USER_OWNER = ':user'

/** Deleted profiles whose look is kept; the ones deleted longest ago go first. */
export const RETIRED_KEPT = 200

/**
 * Tombstones of removed conversations kept. Whether every process has read past a tombstone cannot be known (a
 * process may sleep for days), so the oldest beyond this many go and `sessionsReset` moves up to the newest of those:
 * a process holding an older revision reloads every conversation's settings, as after clearing them all, and one
 * holding a newer revision still finds every tombstone it needs. A process falls that far behind only when this many
 * conversations went while it read nothing, so the whole reload stays rare while the table stays small.
 */
export const GONE_KEPT = 10_000

/** What loading found. `problem` is for `lastError`; `blocked` means nothing may be written. */
export interface Loaded {
  state: State
  revision: number
  problem?: { message: string; keptAs?: string }
  blocked?: string
  /** What a salvage of the damaged database this one replaced saved and lost. */
  salvage?: Salvage
}

/** One turn of the ledger: which profile answered turn `turn` of conversation `sessionId`, with the memory items its
 * requests carried (absent for turns recorded before they were). */
export interface Turn {
  sessionId: string
  turn: number
  profileId: string
  memories?: UsedMemory[]
}

/** A state with nothing in it: what an empty database holds, the base of its first write. */
export const EMPTY: State = { version: 1, activeId: '', profiles: [], sessions: sessionsOf() }

/** An error of node:sqlite, with SQLite's own result code. */
function sqliteCode(e: unknown): number | undefined {
  const code = (e as { errcode?: unknown }).errcode
  return typeof code === 'number' ? code & 0xff : undefined
}

/** SQLite result codes that mean the file is not a usable database (rather than that it cannot be reached). */
const SQLITE_CORRUPT = 11
/** Another connection holds the lock this one asked for. */
const SQLITE_BUSY = 5
const SQLITE_NOTADB = 26
/** Result codes that mean the file cannot be opened or written where it is (permissions, a read-only disk). */
const UNREACHABLE = new Set([8, 14, 23, 3])

/**
 * Why a database cannot be used: it is damaged (move it aside), out of reach (leave it as it is), or made by a newer
 * version this one cannot read (`newer`: never touch it).
 */
export class DatabaseProblem extends Error {
  readonly damaged: boolean
  readonly newer: boolean
  constructor(message: string, damaged: boolean, newer = false) {
    super(message)
    this.damaged = damaged
    this.newer = newer
  }
}

/** The profiles of `next` that are not the very same objects in `prev`, each one's previous version, and the order. */
export interface ProfileChanges {
  changed: Profile[]
  previous: (Profile | undefined)[]
  sameOrder: boolean
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * States are immutable and an edit replaces only what it touches, so the common case (edits in place, same list) is
 * found by comparing positions, without building an index of every profile per batch.
 */
export function profileChanges(prev: State, next: State): ProfileChanges {
  const a = prev.profiles
  const b = next.profiles
  if (a.length === b.length) {
    const changes: ProfileChanges = { changed: [], previous: [], sameOrder: true }
    let i = 0
    for (; i < b.length; i++) {
      if (a[i] === b[i]) continue
      if (a[i]!.id !== b[i]!.id) break
      changes.changed.push(b[i]!)
      changes.previous.push(a[i])
    }
    if (i === b.length) return changes
  }
  const before = new Map(a.map((p) => [p.id, p]))
  const changed = b.filter((p) => before.get(p.id) !== p)
  return { changed, previous: changed.map((p) => before.get(p.id)), sameOrder: sameList(a.map((p) => p.id), b.map((p) => p.id)) }
}

/** The tables a restore replaces: every one (meta too, for the active id; its revision marks are set after). */
const ROW_TABLES = ['meta', 'profiles', 'memory_items', 'sessions', 'sessions_gone', 'memory_undo', 'turns', 'retired_profiles', 'memory_history'] as const

/** What a stored item lacks is never filled in (every stored item has its provenance); `newId` is never called. */
function itemDefaults(now: number): ItemDefaults {
  return { source: 'user', at: now, newId: () => 'x' }
}

/** The rows of the JSON columns. */
interface ProfileRow { id: string; rev: number; data: string }
interface ItemRow { profile_id: string; id: string; data: string }
interface SessionRow { id: string; data: string }
interface UndoRow { profile_id: string; rev: number; at: number; memory: string }

/** One open database, with what this process last loaded from it or wrote to it. */
export class Database {
  readonly path: string
  readonly avatars: AvatarFiles
  #readOnly: ReadOnlyData | undefined
  readonly #db: DatabaseSync
  readonly #statements: Statements
  #dataVersion: number
  #inTransaction = false
  /** The revision this process's state is at, and each profile's and undo copy's row revision in it. */
  #revision = 0
  readonly #profileRevs = new Map<string, number>()
  readonly #undoRevs = new Map<string, number>()
  /** Whether the turns table has its memories column (a database opened read-only may predate it). */
  #turnMemories = false
  /** The rows this version's rules refuse: out of the state, and out of reach of every write. */
  readonly aside = new SetAside()
  /** A newer version made the database after this process opened it and this one cannot read it: reading stopped. */
  #unreadable = false
  /** The search index (memory-index.ts): in this database, or in memory when it is open read-only. */
  #index: MemoryIndex | undefined
  /** Set when the index failed a query or is behind the rows: the next write rebuilds it from the rows. */
  #indexStale = false

  private constructor(path: string, db: DatabaseSync, avatars: AvatarFiles, readOnly: ReadOnlyData | undefined) {
    this.path = path
    this.#db = db
    this.avatars = avatars
    this.#readOnly = readOnly
    this.#statements = new Statements(db)
    this.#dataVersion = this.#pragma('data_version')
  }

  /**
   * Why nothing may be written to this database (a newer version made it, even since it was opened; or it cannot be
   * written where it is), else undefined.
   */
  get readOnly(): ReadOnlyData | undefined {
    return this.#readOnly
  }

  /**
   * Open the database at `layout.file` (creating it, and its directory, when `create`), set it up, migrate an older
   * schema, and check it. Throws DatabaseProblem: damaged (SQLite cannot open it, not ours, fails `quick_check`),
   * unreachable, or newer and unreadable. A database of a newer schema this version can read, or one this process may
   * read but not write (a read-only directory), is opened read-only, with `readOnly` saying why; not a byte of it is
   * written.
   */
  static open(layout: Layout, avatars: AvatarFiles, options: { create: boolean; log?: (message: string) => void }): Database {
    if (options.create) mkdirSync(layout.dir, { recursive: true })
    // Looked at before anything is opened for writing: even setting the journal mode, or the checkpoint at close,
    // would change a newer version's file.
    const newer = Database.#openNewer(layout, avatars)
    if (newer !== undefined) return newer
    let db: DatabaseSync | undefined
    try {
      db = new DatabaseSync(layout.file, { timeout: BUSY_TIMEOUT_MS })
      const opened = new Database(layout.file, db, avatars, undefined)
      opened.#setUp(options.log)
      return opened
    } catch (e) {
      db?.close()
      if (e instanceof DatabaseProblem && e.newer) {
        // A newer version migrated it between the look above and this open: read it as it is now.
        const again = Database.#openNewer(layout, avatars)
        if (again !== undefined) return again
      }
      if (e instanceof DatabaseProblem) {
        if (e.damaged || e.newer || !existsSync(layout.file)) throw e
        return Database.#openReadOnly(layout, avatars, e.message)
      }
      const code = sqliteCode(e)
      if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) throw new DatabaseProblem(`${basename(layout.file)} is not a usable database (${errorText(e)})`, true)
      const why = writeProblem(layout.dir) ?? errorText(e)
      if (!UNREACHABLE.has(code ?? -1) || !existsSync(layout.file)) throw new DatabaseProblem(`${basename(layout.file)} could not be opened (${why})`, false)
      // Out of reach for writing: read what is there without touching a byte (no -wal, no -shm), and say why.
      return Database.#openReadOnly(layout, avatars, why)
    }
  }

  /**
   * The database opened read-only when a newer version of the plugin made it and this version can read it; undefined
   * when it is absent, not ours, of this schema or older, or cannot be opened so (the caller's open then says why).
   * Throws DatabaseProblem (newer) when this version cannot read it, or it fails its check: a newer version's file
   * is never moved aside or salvaged into a database of this version, which would fork the user's data.
   */
  static #openNewer(layout: Layout, avatars: AvatarFiles): Database | undefined {
    if (!existsSync(layout.file)) return undefined
    let db: DatabaseSync
    try {
      db = new DatabaseSync(layout.file, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
    } catch {
      return undefined
    }
    try {
      const id = Number(Object.values(db.prepare('PRAGMA application_id').get() ?? {})[0] ?? 0)
      const info = id === APPLICATION_ID ? schemaOf(db) : undefined
      const fit = info === undefined ? 'current' : compatibility(info)
      if (info === undefined || fit === 'current' || fit === 'older') {
        db.close()
        return undefined
      }
      if (fit === 'unreadable') throw new DatabaseProblem(newerMessage(info), false, true)
      const opened = new Database(layout.file, db, avatars, { kind: 'newer', message: newerMessage(info) })
      try {
        opened.#check()
      } catch (e) {
        throw new DatabaseProblem(`${newerMessage(info)}; it cannot be read (${errorText(e)})`, false, true)
      }
      opened.#turnMemories = opened.#hasColumn('turns', 'memories')
      // Nothing may be written: this process builds an index of its own in memory, from the state it loads.
      opened.#index = MemoryIndex.inMemory()
      return opened
    } catch (e) {
      db.close()
      if (e instanceof DatabaseProblem) throw e
      return undefined
    }
  }

  static #openReadOnly(layout: Layout, avatars: AvatarFiles, why: string): Database {
    let db: DatabaseSync | undefined
    try {
      // A file URL, so that `#`, `?` or `%` in the path stay part of the path (not a fragment or a query).
      const url = pathToFileURL(layout.file)
      url.searchParams.set('immutable', '1')
      db = new DatabaseSync(url.href, { readOnly: true })
      const opened = new Database(layout.file, db, avatars, { kind: 'unwritable', message: why })
      opened.#check()
      // A newer version's database out of reach for writing is still a newer version's: said so, or not read at all.
      const info = opened.#pragma('application_id') === APPLICATION_ID ? schemaOf(db) : undefined
      const fit = info === undefined ? 'current' : compatibility(info)
      if (fit === 'unreadable') throw new DatabaseProblem(newerMessage(info!), false, true)
      if (fit === 'newer') opened.#readOnly = { kind: 'newer', message: newerMessage(info!) }
      opened.#turnMemories = opened.#hasColumn('turns', 'memories')
      opened.#index = MemoryIndex.inMemory()
      return opened
    } catch (e) {
      db?.close()
      if (e instanceof DatabaseProblem) throw e
      throw new DatabaseProblem(`${basename(layout.file)} could not be opened (${why})`, false)
    }
  }

  #pragma(name: string): number {
    return Number(Object.values(this.#db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0)
  }

  /** Check the file is ours and sound, then make sure the schema (migrated) and the durability settings are in place. */
  #setUp(log?: (message: string) => void): void {
    this.#check()
    if (this.#pragma('application_id') === APPLICATION_ID) {
      const info = schemaOf(this.#db)
      const fit = compatibility(info)
      if (fit === 'newer' || fit === 'unreadable') throw new DatabaseProblem(newerMessage(info), false, true)
      this.#db.exec('PRAGMA journal_mode = WAL')
      this.#db.exec('PRAGMA synchronous = FULL')
      if (fit === 'older') {
        try {
          migrateSchema(this.#db, this.path, Date.now(), log)
        } catch (e) {
          throw new DatabaseProblem(`${basename(this.path)} could not be brought up from schema ${info.version} to ${SCHEMA_VERSION} (${errorText(e)})`, false)
        }
      }
    } else {
      this.#db.exec('PRAGMA journal_mode = WAL')
      this.#db.exec('PRAGMA synchronous = FULL')
      createSchema(this.#db)
    }
    this.#turnMemories = true
    this.#openIndex()
  }

  /**
   * The search index, made or rebuilt from the rows when it is missing, behind them or damaged. Made at open, not by a
   * migration: a version without it ignores its tables, and one that finds it behind the rows rebuilds it.
   */
  #openIndex(): void {
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      this.#index = MemoryIndex.onDisk(this.#db)
      if (!this.#index.current(this.revision())) this.#index.rebuild(this.#indexRows(), this.revision(), Date.now())
      this.#db.exec('COMMIT')
    } catch (e) {
      this.#db.exec('ROLLBACK')
      throw e
    }
  }

  /** Every memory item the rows hold, with its owner: the profiles' and the user layer's rows, each conversation's own. */
  *#indexRows(): Generator<{ owner: string; item: MemoryItem }> {
    for (const r of this.#statement('SELECT profile_id, data FROM memory_items').iterate() as Iterable<{ profile_id: string; data: string }>) {
      const item = parseOrUndefined(r.data) as MemoryItem | undefined
      if (typeof item?.id === 'string' && typeof item.text === 'string') yield { owner: r.profile_id, item }
    }
    for (const r of this.#statement('SELECT id, data FROM sessions').iterate() as Iterable<SessionRow>) {
      const memories = (parseOrUndefined(r.data) as Partial<SessionSetting> | undefined)?.memories
      if (!Array.isArray(memories)) continue
      for (const item of memories) if (typeof item?.id === 'string' && typeof item.text === 'string') yield { owner: conversationOwner(r.id), item }
    }
  }

  /** The search index (see memory-index.ts). */
  get index(): MemoryIndex | undefined {
    return this.#index
  }

  /**
   * Run a query on the index; undefined when it fails (a damaged index), which also marks it for a rebuild at the next
   * write, so the caller falls back to reading the items themselves.
   */
  searchIndex<T>(query: (index: MemoryIndex) => T): T | undefined {
    if (this.#index === undefined || this.#indexStale) return undefined
    try {
      return query(this.#index)
    } catch {
      this.#indexStale = true
      return undefined
    }
  }

  #hasColumn(table: string, column: string): boolean {
    return (this.#db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column)
  }

  /** The file is ours (or empty) and passes `quick_check`. */
  #check(): void {
    const id = this.#pragma('application_id')
    const tables = this.#db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }
    if (id !== APPLICATION_ID && !(id === 0 && tables.n === 0)) throw new DatabaseProblem(`${basename(this.path)} is not an agent-profiles database`, true)
    // A damaged search index is not damaged data: it is rebuilt from the rows (#openIndex), never a reason to set the
    // database aside.
    const check = (this.#db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).filter((r) => !isIndexProblem(r.quick_check))
    if (check.length === 0) return
    if (check.length !== 1 || check[0]!.quick_check !== 'ok') {
      throw new DatabaseProblem(`${basename(this.path)} failed its integrity check (${check.map((r) => r.quick_check).slice(0, 3).join('; ')})`, true)
    }
  }

  /**
   * Whether a newer version of the plugin changed the schema since this process opened the database: then nothing
   * more is written (and, when this version cannot read the new schema, nothing more is read).
   */
  #noticeNewer(): void {
    if (this.#unreadable) return
    const info = schemaOf(this.#db)
    const fit = compatibility(info)
    if (fit !== 'newer' && fit !== 'unreadable') return
    this.#unreadable = fit === 'unreadable'
    this.#readOnly = { kind: 'newer', message: newerMessage(info), ...(this.#unreadable ? { unreadable: true as const } : {}) }
  }

  #statement(sql: string): StatementSync {
    return this.#statements.get(sql)
  }

  #meta(key: string): unknown {
    return (this.#statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: unknown } | undefined)?.value
  }

  #setMeta(key: string, value: string | number): void {
    this.#statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }

  /** The revision the database holds now (0: nothing was ever saved). */
  revision(): number {
    return Number(this.#meta('revision') ?? 0)
  }

  /** Whether nothing was ever saved in this database (no revision, no profile, no turn). */
  isEmpty(): boolean {
    const count = (table: string) => (this.#statement(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
    return this.revision() === 0 && count('profiles') === 0 && count('turns') === 0
  }

  /** Whether another connection committed since the last call (or since opening). About a microsecond. */
  changed(): boolean {
    const now = Number((this.#statement('PRAGMA data_version').get() as { data_version: number }).data_version)
    if (now === this.#dataVersion) return false
    this.#dataVersion = now
    return true
  }

  /** Start a write transaction, waiting (busy timeout) for another process's to end: only at open, for a migration. */
  begin(): void {
    this.#db.exec('BEGIN IMMEDIATE')
    this.#inTransaction = true
  }

  /**
   * Start the write transaction of a batch if no other process holds the write lock; false when one does. It never
   * waits: node:sqlite's busy timeout waits synchronously, which would stop this whole dsh process (its pages, its
   * turns) for as long as the other process writes, so the store waits between tries on the event loop instead.
   */
  tryBegin(): boolean {
    this.#db.exec('PRAGMA busy_timeout = 0')
    try {
      this.begin()
      return true
    } catch (e) {
      if (sqliteCode(e) === SQLITE_BUSY) return false
      throw e
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    }
  }

  commit(): void {
    this.#db.exec('COMMIT')
    this.#inTransaction = false
  }

  /** Undo the open transaction, if any; never throws (a failed rollback leaves SQLite to roll back on close). */
  rollback(): void {
    if (!this.#inTransaction) return
    this.#inTransaction = false
    try {
      this.#db.exec('ROLLBACK')
    } catch {
      // SQLite rolls back by itself after some errors; there is nothing left to undo.
    }
  }

  /**
   * The whole state the database holds, with avatars read from their files; undefined when nothing was ever saved.
   * Each row is checked by this version's rules alone: one that breaks them is set aside (see rows.ts) and every
   * other row loads. A state with no profile left (every row set aside) comes back with none; the store decides.
   */
  loadAll(now: number): Loaded | undefined {
    const revision = this.revision()
    const rows = this.#statement('SELECT id, rev, data FROM profiles ORDER BY pos').all() as unknown as ProfileRow[]
    if (revision === 0 && rows.length === 0) return undefined
    this.aside.clear()
    const d = itemDefaults(now)
    const items = this.#readItems(undefined, d)
    const unreadable: string[] = []
    const profiles: Profile[] = []
    for (const row of rows) {
      if (profiles.length >= LIMITS.profiles) this.aside.add('profiles', row.id, `over the limit of ${LIMITS.profiles} profiles`)
      else {
        const p = this.#readProfile(row, items.get(row.id) ?? [], unreadable, d)
        if (p !== undefined) profiles.push(p)
      }
    }
    const stored = new Set(rows.map((r) => r.id))
    for (const [owner, list] of items) {
      if (owner === USER_OWNER || stored.has(owner)) continue
      for (const it of list) this.aside.add('memory_items', `${owner}/${it.id}`, `names no profile ("${owner}")`)
    }
    const known = new Set(profiles.map((p) => p.id))
    const count = (this.#statement('SELECT count(*) AS n FROM sessions').get() as { n: number }).n
    const sessions = this.#readSessions(this.#statement('SELECT id, data FROM sessions').iterate() as Iterable<SessionRow>, count, known, d)
    const undo = this.#readUndo(this.#statement('SELECT profile_id, rev, at, memory FROM memory_undo').all() as unknown as UndoRow[], known, d)
    const history = this.#historyLists(known, d)
    const user = items.get(USER_OWNER)
    const state: State = {
      version: 1, activeId: this.#activeId(known, profiles), profiles, sessions: sessionsOf(sessions),
      ...(Object.keys(undo).length > 0 ? { memoryUndo: undo } : {}),
      ...(Object.keys(history).length > 0 ? { history } : {}),
      ...(user === undefined || user.length === 0 ? {} : { user: { items: user } }),
    }
    this.#adopted(revision, rows, this.#statement('SELECT profile_id, rev FROM memory_undo').all() as unknown as UndoRow[])
    if (this.#index?.mode === 'memory') this.#index.rebuild(stateItems(state), revision, now)
    if (unreadable.length === 0) return { state, revision }
    const message = `${unreadable.length} avatar file(s) could not be read (${unreadable.join(', ')}); those profiles show their emoji until a new avatar is saved`
    return { state, revision, problem: { message } }
  }

  /** The active profile: meta's, or, when it names no profile this version loaded, the first (listed as mended). */
  #activeId(known: ReadonlySet<string>, profiles: readonly Profile[]): string {
    const activeId = String(this.#meta('activeId') ?? '')
    if (known.has(activeId) || profiles.length === 0) {
      this.aside.forget('meta', 'activeId')
      return known.has(activeId) ? activeId : ''
    }
    this.aside.add('meta', 'activeId', `names no profile ("${activeId}"); the first profile is active until another is chosen`, true)
    return profiles[0]!.id
  }

  /**
   * The memory item rows, by owner (all owners, or the one named), each checked alone and within its owner's limit;
   * a row that breaks the rules is set aside.
   */
  #readItems(owner: string | undefined, d: ItemDefaults): Map<string, MemoryItem[]> {
    const rows = owner === undefined
      ? this.#statement('SELECT profile_id, id, data FROM memory_items ORDER BY profile_id, pos').all() as unknown as ItemRow[]
      : this.#statement('SELECT profile_id, id, data FROM memory_items WHERE profile_id = ? ORDER BY pos').all(owner) as unknown as ItemRow[]
    if (owner !== undefined) this.aside.forgetPrefix('memory_items', `${owner}/`)
    const out = new Map<string, MemoryItem[]>()
    for (const row of rows) {
      const list = out.get(row.profile_id) ?? []
      out.set(row.profile_id, list)
      const key = `${row.profile_id}/${row.id}`
      const limit = row.profile_id === USER_OWNER ? LIMITS.userItems : LIMITS.memoryItems
      if (list.length >= limit) {
        this.aside.add('memory_items', key, `over the limit of ${limit} items`)
        continue
      }
      const item = this.aside.take('memory_items', key, () => memoryItem(JSON.parse(row.data), `memory_items.${key}`, d))
      if (item !== undefined) list.push(item)
    }
    return out
  }

  /**
   * A profile from its row and its (checked) items, its avatar read from its file ('' and listed in `unreadable` if
   * it cannot be); undefined, and set aside, when the row breaks this version's rules. An avatar file name that is
   * not one is mended in memory (no avatar) and listed.
   */
  #readProfile(row: ProfileRow, items: MemoryItem[], unreadable: string[], d: ItemDefaults): Profile | undefined {
    let avatarFile: unknown
    const p = this.aside.take('profiles', row.id, () => {
      const data: unknown = JSON.parse(row.data)
      if (!isRecord(data)) throw invalid(`profiles.${row.id}`, 'is not an object')
      const { avatarFile: file, memory, ...fields } = data
      avatarFile = file
      const summary = isRecord(memory) ? memory.summary : undefined
      const out = profileOf({ ...fields, avatar: '', memory: { summary } }, `profiles.${row.id}`, d)
      if (out.id !== row.id) throw invalid(`profiles.${row.id}.id`, `differs from the row's key ("${out.id}")`)
      return { ...out, memory: { summary: out.memory.summary, items } }
    })
    if (p === undefined || avatarFile === undefined) return p
    if (typeof avatarFile !== 'string' || !AVATAR_FILE.test(avatarFile)) {
      // No file is read for it: the profile shows its emoji, and the row keeps the value until a new avatar is saved.
      this.aside.add('profiles', row.id, 'avatarFile: is not an avatar file name; the profile is shown without its avatar', true)
      return p
    }
    const read = this.avatars.read(avatarFile)
    if (read === undefined) unreadable.push(avatarFile)
    else {
      p.avatar = read
      this.avatars.learn(row.id, avatarFile, read)
    }
    return p
  }

  /** Conversation settings from their rows, each checked alone (a pin must name a loaded profile); empty ones dropped. */
  #readSessions(rows: Iterable<SessionRow>, count: number, known: ReadonlySet<string>, d: ItemDefaults): [string, SessionSetting][] {
    const out: [string, SessionSetting][] = []
    let n = 0
    for (const row of rows) {
      if (n++ >= LIMITS.sessions && count > LIMITS.sessions) {
        this.aside.add('sessions', row.id, `over the limit of ${LIMITS.sessions} conversations`)
        continue
      }
      const s = this.aside.take('sessions', row.id, () => {
        const key = sessionId(row.id, `sessions.${row.id}`)
        return [key, sessionSetting(JSON.parse(row.data), `sessions.${row.id}`, known, d)] as [string, SessionSetting]
      })
      if (s !== undefined && !isEmptySetting(s[1])) out.push(s)
    }
    return out
  }

  /** The undo copies from their rows, each checked alone (it must belong to a loaded profile). */
  #readUndo(rows: readonly UndoRow[], known: ReadonlySet<string>, d: ItemDefaults): Record<string, { memory: Memory; at: number }> {
    const out = bareRecord<{ memory: Memory; at: number }>()
    for (const row of rows) {
      const entry = this.aside.take('memory_undo', row.profile_id, () => {
        if (!known.has(row.profile_id)) throw invalid(`memory_undo.${row.profile_id}`, `names no profile ("${row.profile_id}")`)
        return undoEntry({ memory: JSON.parse(row.memory), at: row.at }, `memory_undo.${row.profile_id}`, d)
      })
      if (entry !== undefined) out[row.profile_id] = entry
    }
    return out
  }

  /**
   * The memory history lists the rows hold (all, or those named), each oldest entry first; the lists in the order
   * they were last written, as the state keeps them (the least recently written conversation list goes first). Each
   * entry is checked alone, and a list must belong to a conversation, the user layer or a loaded profile.
   */
  #historyLists(known: ReadonlySet<string>, d: ItemDefaults, only?: ReadonlySet<string>): Record<string, MemoryWrite[]> {
    const lists = new Map<string, MemoryWrite[]>()
    for (const row of this.#statement('SELECT list, id, data FROM memory_history ORDER BY pos').all() as unknown as { list: string; id: string; data: string }[]) {
      if (only !== undefined && !only.has(row.list)) continue
      const list = lists.get(row.list) ?? []
      lists.delete(row.list)
      lists.set(row.list, list)
      const key = `${row.list}/${row.id}`
      if (list.length >= HISTORY_LIMITS.entries) {
        this.aside.add('memory_history', key, `over the limit of ${HISTORY_LIMITS.entries} entries`)
        continue
      }
      const entry = this.aside.take('memory_history', key, () => {
        const f = `memory_history.${key}`
        if (row.list.startsWith('s:')) sessionId(row.list.slice(2), f)
        else if (row.list !== USER_HISTORY && !known.has(row.list)) throw invalid(f, `names no profile ("${row.list}")`)
        return memoryWrite(JSON.parse(row.data), f, d)
      })
      if (entry !== undefined) list.push(entry)
    }
    for (const [key, list] of lists) if (list.length === 0) lists.delete(key)
    return bareRecord(lists)
  }

  /** Remember the row revisions of the state this process now holds. */
  #adopted(revision: number, profiles: { id: string; rev: number }[], undo: { profile_id: string; rev: number }[]): void {
    this.#revision = revision
    this.#profileRevs.clear()
    for (const p of profiles) this.#profileRevs.set(p.id, p.rev)
    this.#undoRevs.clear()
    for (const u of undo) this.#undoRevs.set(u.profile_id, u.rev)
  }

  /**
   * `current` (the state this process holds) brought up to what the database holds, reading only the rows other
   * processes wrote since, each checked like at load (another process may be a newer version); undefined when the
   * state is the same, or when a newer version made the database one this version cannot read (then `readOnly`
   * says so and the state stays what was read). Throws on a database fault.
   */
  refresh(current: State): { state: State; revision: number } | undefined {
    this.#noticeNewer()
    if (this.#unreadable) return undefined
    const revision = this.revision()
    if (revision === this.#revision) return undefined
    const seen = this.#revision
    const d = itemDefaults(Date.now())
    const rows = this.#statement('SELECT id, rev FROM profiles ORDER BY pos').all() as unknown as { id: string; rev: number }[]
    const have = new Map(current.profiles.map((p) => [p.id, p]))
    const unreadable: string[] = []
    const stored = new Set(rows.map((r) => r.id))
    for (const key of this.aside.keys('profiles')) if (!stored.has(key)) this.aside.forget('profiles', key)
    const profiles: Profile[] = []
    for (const { id, rev } of rows) {
      const known = have.get(id)
      if (known !== undefined && this.#profileRevs.get(id) === rev) {
        profiles.push(known)
        continue
      }
      if (profiles.length >= LIMITS.profiles) {
        this.aside.add('profiles', id, `over the limit of ${LIMITS.profiles} profiles`)
        continue
      }
      const row = this.#statement('SELECT id, rev, data FROM profiles WHERE id = ?').get(id) as unknown as ProfileRow
      const p = this.#readProfile(row, this.#readItems(id, d).get(id) ?? [], unreadable, d)
      if (p !== undefined) profiles.push(p)
    }
    const live = new Set(profiles.map((p) => p.id))
    let sessions = current.sessions
    const reset = Number(this.#meta('sessionsReset') ?? 0)
    if (reset > seen) {
      this.aside.forgetPrefix('sessions', '')
      const all = this.#statement('SELECT id, data FROM sessions').all() as unknown as SessionRow[]
      sessions = sessionsOf(this.#readSessions(all, all.length, live, d))
    } else {
      const fresh = this.#statement('SELECT id, data FROM sessions WHERE rev > ?').all(seen) as unknown as SessionRow[]
      const read = new Map(this.#readSessions(fresh, 0, live, d))
      for (const r of fresh) sessions = put(sessions, r.id, read.get(r.id))
      for (const r of this.#statement('SELECT id FROM sessions_gone WHERE rev > ?').all(seen) as unknown as { id: string }[]) {
        this.aside.forget('sessions', r.id)
        sessions = put(sessions, r.id, undefined)
      }
    }
    const undoRows = this.#statement('SELECT profile_id, rev FROM memory_undo').all() as unknown as { profile_id: string; rev: number }[]
    let memoryUndo = current.memoryUndo
    const undoChanged = undoRows.length !== this.#undoRevs.size || undoRows.some((u) => this.#undoRevs.get(u.profile_id) !== u.rev)
    if (undoChanged) {
      const next = bareRecord<{ memory: Memory; at: number }>()
      const reread: UndoRow[] = []
      for (const u of undoRows) {
        const known = current.memoryUndo?.[u.profile_id]
        if (known !== undefined && this.#undoRevs.get(u.profile_id) === u.rev && live.has(u.profile_id)) next[u.profile_id] = known
        else reread.push(this.#statement('SELECT profile_id, rev, at, memory FROM memory_undo WHERE profile_id = ?').get(u.profile_id) as unknown as UndoRow)
      }
      Object.assign(next, this.#readUndo(reread, live, d))
      memoryUndo = next
    }
    const state: State = { version: 1, activeId: this.#activeId(live, profiles), profiles, sessions }
    if (memoryUndo !== undefined && Object.keys(memoryUndo).length > 0) state.memoryUndo = memoryUndo
    if (Number(this.#meta('userRev') ?? 0) > seen) {
      const items = this.#readItems(USER_OWNER, d).get(USER_OWNER) ?? []
      if (items.length > 0) state.user = { items }
    } else if (current.user !== undefined) state.user = current.user
    const history = this.#historySince(current.history, seen, live, d)
    if (history !== undefined) state.history = history
    this.#adopted(revision, rows.filter((r) => live.has(r.id)), undoRows)
    return { state, revision }
  }

  /**
   * Throw (StoreError `conflict`) when going from `prev` to `next` would write a row set aside: asked for each
   * command before its batch is written, so that only the command touching such a row is refused. Free when no row
   * is set aside.
   */
  guardChange(prev: State, next: State): void {
    if (this.aside.size === 0) return
    const items = (owner: string, before: readonly MemoryItem[] | undefined, after: readonly MemoryItem[]) => {
      if (before === after) return
      const had = new Set(before)
      for (const it of after) if (!had.has(it)) this.aside.guard('memory_items', `${owner}/${it.id}`)
    }
    const { changed, previous } = profileChanges(prev, next)
    changed.forEach((p, i) => {
      this.aside.guard('profiles', p.id)
      items(p.id, previous[i]?.memory.items, p.memory.items)
    })
    if (prev.user !== next.user) items(USER_OWNER, userItemsOf(prev), userItemsOf(next))
    if (prev.sessions !== next.sessions) {
      for (const key of changedKeys(prev.sessions, next.sessions) ?? diffKeys(prev.sessions, next.sessions)) {
        if (next.sessions.get(key) !== undefined) this.aside.guard('sessions', key)
      }
    }
    if (prev.memoryUndo !== next.memoryUndo) {
      for (const [id, entry] of Object.entries(next.memoryUndo ?? {})) if (prev.memoryUndo?.[id] !== entry) this.aside.guard('memory_undo', id)
    }
  }

  /**
   * Write what changed from `prev` (the state the database holds) to `next` as rows of revision `revision`, plus the
   * turns, inside the transaction `begin` opened. Throws on any failure; the caller rolls back.
   */
  write(prev: State, next: State, revision: number, turns: readonly Turn[], avatarFile: (p: Profile) => string | undefined, forget: readonly string[] = []): void {
    if (next !== prev) {
      // An index behind the rows (an older plugin wrote them, or it failed a query) is rebuilt from them below.
      const stale = this.#indexStale || this.#index!.behind(this.revision())
      this.#indexStale = stale
      if (revision !== this.#revision) this.#setMeta('revision', revision)
      if (prev.activeId !== next.activeId) this.#setMeta('activeId', next.activeId)
      this.#writeProfiles(prev, next, revision, avatarFile)
      this.#writeSessions(prev, next, revision)
      this.#writeUndo(prev, next, revision)
      this.#writeHistory(prev, next, revision)
      if (prev.user !== next.user) {
        this.#writeItems(USER_OWNER, userItemsOf(prev), userItemsOf(next))
        this.#setMeta('userRev', revision)
      }
      if (stale) this.#index!.rebuild(this.#indexRows(), revision, Date.now())
      else this.#index!.at(revision)
      this.#indexStale = false
    }
    const turn = this.#statement('INSERT INTO turns (session_id, turn, profile_id, memories) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET profile_id = excluded.profile_id, memories = excluded.memories')
    for (const t of turns) turn.run(t.sessionId, t.turn, t.profileId, t.memories === undefined ? null : JSON.stringify(t.memories))
    const drop = this.#statement('DELETE FROM turns WHERE session_id = ?')
    for (const id of forget) drop.run(id)
  }

  /** Every conversation the turn ledger holds turns of. */
  ledgerSessions(): string[] {
    return (this.#statement('SELECT DISTINCT session_id FROM turns').all() as unknown as { session_id: string }[]).map((r) => r.session_id)
  }

  /** After the commit of `write`: the database now holds `next` at `revision`. */
  wrote(prev: State, next: State, revision: number): void {
    // The active id chosen now is this version's: the mend of a dangling one is no longer needed.
    if (prev.activeId !== next.activeId) this.aside.forget('meta', 'activeId')
    const { changed } = profileChanges(prev, next)
    for (const p of changed) this.#profileRevs.set(p.id, revision)
    const live = new Set(next.profiles.map((p) => p.id))
    for (const id of [...this.#profileRevs.keys()]) if (!live.has(id)) this.#profileRevs.delete(id)
    if (prev.memoryUndo !== next.memoryUndo) {
      for (const [id, entry] of Object.entries(next.memoryUndo ?? {})) if (prev.memoryUndo?.[id] !== entry) this.#undoRevs.set(id, revision)
      for (const id of [...this.#undoRevs.keys()]) if (next.memoryUndo?.[id] === undefined) this.#undoRevs.delete(id)
    }
    this.#revision = revision
  }

  #writeProfiles(prev: State, next: State, revision: number, avatarFile: (p: Profile) => string | undefined): void {
    const { changed, previous, sameOrder } = profileChanges(prev, next)
    const upsert = this.#statement('INSERT INTO profiles (id, pos, rev, data) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET pos = excluded.pos, rev = excluded.rev, data = excluded.data')
    const position = sameOrder ? undefined : new Map(next.profiles.map((p, i) => [p.id, i]))
    changed.forEach((p, i) => {
      const { avatar: _avatar, memory, ...fields } = p
      const file = avatarFile(p)
      const data = { ...fields, ...(file === undefined ? {} : { avatarFile: file }), memory: { summary: memory.summary } }
      const pos = position?.get(p.id) ?? next.profiles.indexOf(p)
      this.aside.guard('profiles', p.id)
      upsert.run(p.id, pos, revision, JSON.stringify(data))
      this.#writeItems(p.id, previous[i]?.memory.items ?? [], memory.items)
    })
    if (sameOrder) return
    const live = new Set(next.profiles.map((p) => p.id))
    for (const p of prev.profiles) {
      if (live.has(p.id)) continue
      this.#statement('DELETE FROM profiles WHERE id = ?').run(p.id)
      // Nothing else of it: deleting a profile deletes what it knew (its rows set aside stay, as every such row does).
      this.#writeItems(p.id, p.memory.items, [])
      this.#statement('INSERT INTO retired_profiles (id, at, data) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, data = excluded.data')
        .run(p.id, Date.now(), JSON.stringify({ name: p.name, emoji: p.emoji, avatar: p.avatar }))
    }
    this.#statement('DELETE FROM retired_profiles WHERE id IN (SELECT id FROM retired_profiles ORDER BY at DESC, id LIMIT -1 OFFSET ?)').run(RETIRED_KEPT)
    const move = this.#statement('UPDATE profiles SET pos = ? WHERE id = ?')
    next.profiles.forEach((p, i) => move.run(i, p.id))
  }

  /** The item rows of one owner: rows for new, changed or moved items; removed items' rows deleted. */
  #writeItems(profileId: string, before: readonly MemoryItem[], after: readonly MemoryItem[]): void {
    if (before === after) return
    const was = new Map(before.map((it, i) => [it.id, { it, i }]))
    const upsert = this.#statement('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET pos = excluded.pos, data = excluded.data')
    const changed: { old?: MemoryItem; now: MemoryItem }[] = []
    after.forEach((it, i) => {
      const old = was.get(it.id)
      if (old?.it !== it) changed.push({ old: old?.it, now: it })
      if (old !== undefined && old.it === it && old.i === i) return
      this.aside.guard('memory_items', `${profileId}/${it.id}`)
      upsert.run(profileId, it.id, i, JSON.stringify(it))
    })
    const kept = new Set(after.map((it) => it.id))
    const remove = this.#statement('DELETE FROM memory_items WHERE profile_id = ? AND id = ?')
    const removed = before.filter((it) => !kept.has(it.id))
    for (const it of removed) remove.run(profileId, it.id)
    if (!this.#indexStale) this.#index!.apply(profileId, changed, removed)
  }

  #writeSessions(prev: State, next: State, revision: number): void {
    if (prev.sessions === next.sessions) return
    if (next.sessions.size === 0 && prev.sessions.size > 0) {
      // Clearing every conversation is one reset mark, not a tombstone per conversation. Rows set aside stay.
      this.#statement('DELETE FROM sessions WHERE id NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(this.aside.keys('sessions')))
      this.#statement('DELETE FROM sessions_gone').run()
      // The rows set aside keep their items, so the index is made again from what the table still holds.
      if (this.aside.keys('sessions').length > 0) this.#indexStale = true
      else if (!this.#indexStale) this.#index!.dropConversations()
      this.#setMeta('sessionsReset', revision)
      return
    }
    const keys = changedKeys(prev.sessions, next.sessions) ?? diffKeys(prev.sessions, next.sessions)
    const upsert = this.#statement('INSERT INTO sessions (id, rev, data) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, data = excluded.data')
    const revive = this.#statement('DELETE FROM sessions_gone WHERE id = ?')
    const remove = this.#statement('DELETE FROM sessions WHERE id = ?')
    const bury = this.#statement('INSERT INTO sessions_gone (id, rev) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev')
    let buried = 0
    for (const key of keys) {
      const setting = next.sessions.get(key)
      const before = prev.sessions.get(key)?.memories ?? NO_MEMORIES
      if (!this.#indexStale && before !== setting?.memories) this.#index!.sync(conversationOwner(key), before, setting?.memories ?? NO_MEMORIES)
      if (setting !== undefined) {
        this.aside.guard('sessions', key)
        upsert.run(key, revision, JSON.stringify(setting))
        revive.run(key)
      } else {
        remove.run(key)
        bury.run(key, revision)
        buried++
      }
    }
    if (buried > 0) this.#pruneGone()
  }

  /** Drop the tombstones beyond the newest {@link GONE_KEPT}, moving `sessionsReset` past them. */
  #pruneGone(): void {
    const cut = this.#statement('SELECT rev FROM sessions_gone ORDER BY rev DESC LIMIT 1 OFFSET ?').get(GONE_KEPT) as { rev: number } | undefined
    if (cut === undefined) return
    this.#statement('DELETE FROM sessions_gone WHERE rev <= ?').run(cut.rev)
    if (cut.rev > Number(this.#meta('sessionsReset') ?? 0)) this.#setMeta('sessionsReset', cut.rev)
  }

  /**
   * `current` history brought up to the rows: the lists written since revision `seen` read again, lists of profiles
   * that are gone dropped (a conversation list another process evicted stays here until this process restarts).
   */
  #historySince(current: State['history'], seen: number, profiles: ReadonlySet<string>, d: ItemDefaults): State['history'] {
    const changed = new Set((this.#statement('SELECT DISTINCT list FROM memory_history WHERE rev > ?').all(seen) as unknown as { list: string }[]).map((r) => r.list))
    const fresh = changed.size === 0 ? {} : this.#historyLists(profiles, d, changed)
    const out = bareRecord<MemoryWrite[]>()
    for (const [key, list] of Object.entries(current ?? {})) if (!changed.has(key) && (key.startsWith('s:') || profiles.has(key))) out[key] = list
    for (const [key, list] of Object.entries(fresh)) out[key] = list
    return Object.keys(out).length > 0 ? out : undefined
  }

  /** The history rows: appended entries inserted, entries a list dropped deleted, lists that went deleted. */
  #writeHistory(prev: State, next: State, revision: number): void {
    if (prev.history === next.history) return
    const insert = this.#statement('INSERT INTO memory_history (list, id, pos, rev, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET pos = excluded.pos, rev = excluded.rev, data = excluded.data')
    const remove = this.#statement('DELETE FROM memory_history WHERE list = ? AND id = ?')
    // Positions grow with the revision, so rows read back in order give each list oldest first.
    let pos = revision * 1_000
    for (const [key, list] of Object.entries(next.history ?? {})) {
      const old = prev.history?.[key] ?? []
      if (old === list) continue
      const had = new Set(old.map((e) => e.id))
      const has = new Set(list.map((e) => e.id))
      for (const e of list) {
        if (had.has(e.id)) continue
        this.aside.guard('memory_history', `${key}/${e.id}`)
        insert.run(key, e.id, pos++, revision, JSON.stringify(e))
      }
      for (const e of old) if (!has.has(e.id)) remove.run(key, e.id)
    }
    const drop = this.#statement('DELETE FROM memory_history WHERE list = ? AND id NOT IN (SELECT value FROM json_each(?))')
    for (const key of Object.keys(prev.history ?? {})) {
      if (next.history?.[key] === undefined) drop.run(key, JSON.stringify(this.aside.keys('memory_history', `${key}/`).map((k) => k.slice(key.length + 1))))
    }
  }

  #writeUndo(prev: State, next: State, revision: number): void {
    if (prev.memoryUndo === next.memoryUndo) return
    const upsert = this.#statement('INSERT INTO memory_undo (profile_id, rev, at, memory) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET rev = excluded.rev, at = excluded.at, memory = excluded.memory')
    for (const [id, entry] of Object.entries(next.memoryUndo ?? {})) {
      if (prev.memoryUndo?.[id] === entry) continue
      this.aside.guard('memory_undo', id)
      upsert.run(id, revision, entry.at, JSON.stringify(entry.memory))
    }
    const remove = this.#statement('DELETE FROM memory_undo WHERE profile_id = ?')
    for (const id of Object.keys(prev.memoryUndo ?? {})) if (next.memoryUndo?.[id] === undefined) remove.run(id)
  }

  /** How a deleted profile looked when it was deleted. */
  retired(id: string): RetiredProfile | undefined {
    const row = this.#statement('SELECT at, data FROM retired_profiles WHERE id = ?').get(id) as { at: number; data: string } | undefined
    if (row === undefined) return undefined
    const { name, emoji, avatar } = JSON.parse(row.data) as Omit<RetiredProfile, 'id' | 'at'>
    return { id, name, emoji, avatar, at: row.at }
  }

  /** Turn number → id of the profile that answered it, for one conversation, as the database holds it now. */
  turnsOf(sessionId: string): Record<number, string> {
    const out: Record<number, string> = {}
    for (const r of this.#statement('SELECT turn, profile_id FROM turns WHERE session_id = ?').all(sessionId) as unknown as { turn: number; profile_id: string }[]) out[r.turn] = r.profile_id
    return out
  }

  /** Turn number → how many memory items its requests carried, for the turns of one conversation that recorded them. */
  turnMemoryCounts(sessionId: string): Record<number, number> {
    const out: Record<number, number> = {}
    if (!this.#turnMemories) return out
    for (const r of this.#statement('SELECT turn, json_array_length(memories) AS n FROM turns WHERE session_id = ? AND memories IS NOT NULL').all(sessionId) as unknown as { turn: number; n: number }[]) out[r.turn] = r.n
    return out
  }

  /** The memory items turn `turn` of a conversation carried; undefined when the ledger has none recorded for it. */
  turnMemories(sessionId: string, turn: number): UsedMemory[] | undefined {
    if (!this.#turnMemories) return undefined
    const row = this.#statement('SELECT memories FROM turns WHERE session_id = ? AND turn = ?').get(sessionId, turn) as { memories: string | null } | undefined
    return row?.memories == null ? undefined : JSON.parse(row.memories) as UsedMemory[]
  }

  /** A value of `meta` (migration bookkeeping). */
  metaValue(key: string): unknown {
    return this.#meta(key)
  }

  setMetaValue(key: string, value: string | number): void {
    this.#setMeta(key, value)
  }

  /** Write a consistent copy of what is committed to `path` (VACUUM INTO: WAL included, compacted). */
  vacuumInto(path: string): void {
    this.#statement('VACUUM INTO ?').run(path)
  }

  /**
   * Replace every row with those of the database `file` (a backup) as one transaction, as a revision above both
   * `floor` and the database's: every row carries it and `sessionsReset` moves to it, so every other process reloads
   * all of it. Columns the backup lacks stay NULL; the schema number stays this database's. `begin` opens the write
   * transaction (the store tries it on the event loop, as for a batch; the backup is attached before, which SQLite
   * allows only outside a transaction). Throws (nothing changed) when the backup is of a newer schema or cannot be read.
   */
  async restoreFrom(file: string, floor: number, begin: () => Promise<void>): Promise<void> {
    this.#statement('ATTACH DATABASE ? AS backup').run(file)
    try {
      const info = schemaOf(this.#db)
      const theirs = this.#db.prepare("SELECT value FROM backup.meta WHERE key = 'schema'").get() as { value: unknown } | undefined
      if (Number(theirs?.value ?? 1) > info.version) throw new StoreError('conflict', 'the backup was made by a newer version of this plugin')
      const columns = (schema: string, table: string) => (this.#db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string }[]).map((c) => c.name)
      await begin()
      try {
        const revision = Math.max(floor, this.revision()) + 1
        for (const table of ROW_TABLES) {
          this.#db.exec(`DELETE FROM main.${table}`)
          const have = new Set(columns('main', table))
          const shared = columns('backup', table).filter((c) => have.has(c))
          if (shared.length > 0) this.#db.exec(`INSERT INTO main.${table} (${shared.join(', ')}) SELECT ${shared.join(', ')} FROM backup.${table}`)
        }
        this.#db.exec("DELETE FROM main.meta WHERE key = 'schema'")
        this.#db.prepare("INSERT INTO main.meta (key, value) VALUES ('schema', ?)").run(info.version)
        for (const table of ['profiles', 'sessions', 'memory_undo', 'memory_history']) this.#db.prepare(`UPDATE main.${table} SET rev = ?`).run(revision)
        for (const key of ['revision', 'sessionsReset', 'userRev']) this.#setMeta(key, revision)
        // The rows were replaced beside the index: it is made again from them, in the same transaction.
        this.#index?.rebuild(this.#indexRows(), revision, Date.now())
        this.commit()
      } catch (e) {
        this.rollback()
        throw e
      }
    } finally {
      this.#db.exec('DETACH DATABASE backup')
    }
  }

  close(): void {
    this.rollback()
    this.#index?.close()
    this.#db.close()
  }
}

const NO_MEMORIES: readonly MemoryItem[] = Object.freeze([])

/** Every memory item of a state with its index owner (for an index built from the state, not the rows). */
function* stateItems(state: State): Generator<{ owner: string; item: MemoryItem }> {
  for (const p of state.profiles) for (const item of p.memory.items) yield { owner: p.id, item }
  for (const item of userItemsOf(state)) yield { owner: USER_OWNER, item }
  for (const [id, s] of state.sessions) for (const item of s.memories) yield { owner: conversationOwner(id), item }
}

/** A row's JSON, or undefined when it is not JSON (such a row is set aside at load; the index leaves it out). */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Why `dir` cannot be written, in the OS's words (EACCES, EROFS…), or undefined when it can. */
function writeProblem(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK)
    return undefined
  } catch (e) {
    return errorText(e)
  }
}

/**
 * Move a database that cannot be used aside (with its -wal, whose pages belong to it; its -shm is only an index and
 * goes). Returns the name it was kept as, or undefined when it could not be moved.
 */
export function quarantine(layout: Layout, now: number): string | undefined {
  const kept = keepAside(layout.file, 'bad', now)
  if (kept === undefined) return undefined
  if (existsSync(`${layout.file}-wal`)) keepAside(`${layout.file}-wal`, 'bad', now)
  try {
    unlinkSync(`${layout.file}-shm`)
  } catch {
    // Not there: nothing to remove.
  }
  return kept
}
