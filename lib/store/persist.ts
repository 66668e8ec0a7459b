/**
 * The store's database and the only code that reads or writes it: one SQLite database (node:sqlite) per data
 * directory holding the state as rows, and the turn ledger. Owns the layout, the schema, opening (with quarantine of a
 * database that cannot be used), the full load, the reload of what other processes committed, and writing a batch
 * as the rows it changed. It never decides what the state is; it stores what it is given.
 *
 * Layout, for a data file `<dir>/<stem>.sqlite` (a configured `<stem>.json`, the name before the database, means the
 * same data):
 *   <stem>.sqlite, -wal, -shm   the database, in WAL mode
 *   <stem>.avatars/             avatar images, one file per distinct image (avatars.ts)
 *   <stem>.sqlite.bad-<ts>      a database that could not be used (and its -wal), kept aside, never overwritten
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
import { accessSync, constants, existsSync, mkdirSync, renameSync, unlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { RetiredProfile } from '../shared/contract.ts'
import { userItemsOf, type Memory, type MemoryItem, type MemoryWrite, type Profile, type SessionSetting, type State, type UsedMemory } from '../shared/model.ts'
import { AVATAR_FILE, AvatarFiles } from './avatars.ts'
import { MemoryIndex, conversationOwner, isIndexProblem } from './memory-index.ts'
import { Statements } from './statements.ts'
import { changedKeys, diffKeys, put, sessionsOf } from './sessions.ts'
import { StoreError, bareRecord, invalid, isRecord, sessionMap, state as validState, type ItemDefaults } from '../validate/state.ts'
import { errorText } from '../errors.ts'

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

/** `PRAGMA application_id` of our databases ("APRF"), so that another program's database is never taken for ours. */
const APPLICATION_ID = 0x41505246
const SCHEMA_VERSION = 1
/** How long a commit waits for another process's transaction before it fails (they take milliseconds). */
export const BUSY_TIMEOUT_MS = 10_000

/**
 * Tables added to this schema version after its first databases were made, created when such a database is opened: an
 * older plugin reading it ignores tables it does not know. retired_profiles keeps how each deleted profile looked
 * (name, emoji, avatar data URL), so the turns it answered keep its face; memory_history holds one row per entry of a
 * memory list's history.
 */
const LATER_TABLES = `
CREATE TABLE IF NOT EXISTS retired_profiles (id TEXT PRIMARY KEY, at INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_history (list TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, rev INTEGER NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (list, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_history_by_rev ON memory_history (rev);
`
/**
 * The owner key of the user layer's rows in memory_items: no profile id can start with `:`, and a database written
 * before the user layer has no such rows, so it opens with an empty user layer and loses nothing. meta `userRev`
 * is the revision that last wrote them, so another process reloads them only when they changed.
 */
export const USER_OWNER = ':user'

/**
 * Columns added to a table of this schema version after its first databases were made, added when such a database is
 * opened for writing (an older plugin's inserts leave them NULL): `turns.memories` holds the memory items the turn's
 * requests carried, as JSON (NULL for turns recorded before it existed).
 */
const LATER_COLUMNS = [{ table: 'turns', column: 'memories', type: 'TEXT' }] as const

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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS profiles (id TEXT PRIMARY KEY, pos INTEGER NOT NULL, rev INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_items (profile_id TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (profile_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_rev ON sessions (rev);
CREATE TABLE IF NOT EXISTS sessions_gone (id TEXT PRIMARY KEY, rev INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_gone_by_rev ON sessions_gone (rev);
CREATE TABLE IF NOT EXISTS memory_undo (profile_id TEXT PRIMARY KEY, rev INTEGER NOT NULL, at INTEGER NOT NULL, memory TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (session_id TEXT NOT NULL, turn INTEGER NOT NULL, profile_id TEXT NOT NULL,
  PRIMARY KEY (session_id, turn)) WITHOUT ROWID;
${LATER_TABLES}`

/** What loading found. `problem` is for `lastError`; `blocked` means nothing may be written. */
export interface Loaded {
  state: State
  revision: number
  problem?: { message: string; keptAs?: string }
  blocked?: string
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

/** Why a database cannot be used: it is damaged (move it aside) or out of reach (leave it as it is). */
export class DatabaseProblem extends Error {
  readonly damaged: boolean
  constructor(message: string, damaged: boolean) {
    super(message)
    this.damaged = damaged
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

/** The rows of the JSON columns. */
interface ProfileRow { id: string; rev: number; data: string }
interface ItemRow { profile_id: string; data: string }
interface SessionRow { id: string; data: string }
interface UndoRow { profile_id: string; rev: number; at: number; memory: string }

/** One open database, with what this process last loaded from it or wrote to it. */
export class Database {
  readonly path: string
  readonly avatars: AvatarFiles
  /** Why this database is open for reading only (it cannot be written where it is), else undefined. */
  readonly readOnly: string | undefined
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
  /** The search index (memory-index.ts): in this database, or in memory when it is open read-only. */
  #index: MemoryIndex | undefined
  /** Set when the index failed a query or is behind the rows: the next write rebuilds it from the rows. */
  #indexStale = false

  private constructor(path: string, db: DatabaseSync, avatars: AvatarFiles, readOnly: string | undefined) {
    this.path = path
    this.#db = db
    this.avatars = avatars
    this.readOnly = readOnly
    this.#statements = new Statements(db)
    this.#dataVersion = this.#pragma('data_version')
  }

  /**
   * Open the database at `layout.file` (creating it, and its directory, when `create`), set it up and check it.
   * Throws DatabaseProblem: damaged (not a database, not ours, fails `quick_check`) or unreachable. A database this
   * process may read but not write (a read-only directory) is opened read-only, with `readOnly` saying why.
   */
  static open(layout: Layout, avatars: AvatarFiles, options: { create: boolean }): Database {
    if (options.create) mkdirSync(layout.dir, { recursive: true })
    let db: DatabaseSync | undefined
    try {
      db = new DatabaseSync(layout.file, { timeout: BUSY_TIMEOUT_MS })
      const opened = new Database(layout.file, db, avatars, undefined)
      opened.#setUp()
      return opened
    } catch (e) {
      db?.close()
      if (e instanceof DatabaseProblem) throw e
      const code = sqliteCode(e)
      if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) throw new DatabaseProblem(`${basename(layout.file)} is not a usable database (${errorText(e)})`, true)
      const why = writeProblem(layout.dir) ?? errorText(e)
      if (!UNREACHABLE.has(code ?? -1) || !existsSync(layout.file)) throw new DatabaseProblem(`${basename(layout.file)} could not be opened (${why})`, false)
      // Out of reach for writing: read what is there without touching a byte (no -wal, no -shm), and say why.
      return Database.#openReadOnly(layout, avatars, why)
    }
  }

  static #openReadOnly(layout: Layout, avatars: AvatarFiles, why: string): Database {
    let db: DatabaseSync | undefined
    try {
      db = new DatabaseSync(`file:${encodeURI(layout.file)}?immutable=1`, { readOnly: true })
      const opened = new Database(layout.file, db, avatars, why)
      opened.#check()
      opened.#turnMemories = opened.#hasColumn('turns', 'memories')
      // Nothing may be written: this process builds an index of its own in memory, from the state it loads.
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

  /** Check the file is ours and sound, then make sure the schema and the durability settings are in place. */
  #setUp(): void {
    this.#check()
    this.#db.exec('PRAGMA journal_mode = WAL')
    this.#db.exec('PRAGMA synchronous = FULL')
    if (this.#pragma('application_id') === 0) {
      this.#db.exec('BEGIN IMMEDIATE')
      try {
        this.#db.exec(SCHEMA)
        this.#db.exec(`PRAGMA application_id = ${APPLICATION_ID}`)
        this.#db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`)
        this.#db.exec('COMMIT')
      } catch (e) {
        this.#db.exec('ROLLBACK')
        throw e
      }
    } else {
      this.#db.exec(LATER_TABLES)
    }
    for (const { table, column, type } of LATER_COLUMNS) {
      if (!this.#hasColumn(table, column)) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
    }
    this.#turnMemories = true
    this.#openIndex()
  }

  /** The search index, made or rebuilt from the rows when it is missing, behind them or damaged. */
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
    for (const r of this.#statement('SELECT profile_id, data FROM memory_items').iterate() as Iterable<ItemRow>) {
      const item = JSON.parse(r.data) as MemoryItem
      if (typeof item?.id === 'string' && typeof item.text === 'string') yield { owner: r.profile_id, item }
    }
    for (const r of this.#statement('SELECT id, data FROM sessions').iterate() as Iterable<SessionRow>) {
      const memories = (JSON.parse(r.data) as Partial<SessionSetting>).memories
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

  #check(): void {
    const id = this.#pragma('application_id')
    const tables = this.#db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }
    if (id !== APPLICATION_ID && !(id === 0 && tables.n === 0)) throw new DatabaseProblem(`${basename(this.path)} is not an agent-profiles database`, true)
    const version = this.#pragma('user_version')
    if (id === APPLICATION_ID && version !== SCHEMA_VERSION) {
      throw new DatabaseProblem(`${basename(this.path)} has schema version ${version}; this plugin reads version ${SCHEMA_VERSION}`, true)
    }
    // A damaged search index is not damaged data: it is rebuilt from the rows (#openIndex), never a reason to quarantine.
    const check = (this.#db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).filter((r) => !isIndexProblem(r.quick_check))
    if (check.length === 0) return
    if (check.length !== 1 || check[0]!.quick_check !== 'ok') {
      throw new DatabaseProblem(`${basename(this.path)} failed its integrity check (${check.map((r) => r.quick_check).slice(0, 3).join('; ')})`, true)
    }
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
   * The whole state the database holds, validated like a data file, with avatars read from their files; undefined
   * when nothing was ever saved. Throws DatabaseProblem (damaged) when a row does not hold valid data.
   */
  loadAll(now: number): Loaded | undefined {
    const revision = this.revision()
    const rows = this.#statement('SELECT id, rev, data FROM profiles ORDER BY pos').all() as unknown as ProfileRow[]
    if (revision === 0 && rows.length === 0) return undefined
    try {
      const items = new Map<string, unknown[]>()
      for (const row of this.#statement('SELECT profile_id, data FROM memory_items ORDER BY profile_id, pos').all() as unknown as ItemRow[]) {
        const list = items.get(row.profile_id) ?? []
        list.push(JSON.parse(row.data))
        items.set(row.profile_id, list)
      }
      const unreadable: string[] = []
      const profiles = rows.map((row) => this.#profileFrom(row, items.get(row.id) ?? [], unreadable))
      const undo = bareRecord<unknown>()
      for (const row of this.#statement('SELECT profile_id, rev, at, memory FROM memory_undo').all() as unknown as UndoRow[]) {
        undo[row.profile_id] = { memory: JSON.parse(row.memory), at: row.at }
      }
      const d: ItemDefaults = { source: 'user', at: now, newId: () => 'x' }
      const history = this.#historyLists()
      const user = items.get(USER_OWNER)
      const base = validState({
        version: 1, activeId: this.#meta('activeId'), profiles,
        ...(Object.keys(undo).length > 0 ? { memoryUndo: undo } : {}),
        ...(Object.keys(history).length > 0 ? { history } : {}),
        ...(user === undefined ? {} : { user: { items: user } }),
      }, 'data', d)
      const known = new Set(base.profiles.map((p) => p.id))
      const count = (this.#statement('SELECT count(*) AS n FROM sessions').get() as { n: number }).n
      const sessionRows = this.#statement('SELECT id, data FROM sessions').iterate() as Iterable<SessionRow>
      const sessions = sessionMap((function* () {
        for (const row of sessionRows) yield [row.id, JSON.parse(row.data)] as [string, unknown]
      })(), count, 'data.sessions', known, d)
      const state: State = { ...base, sessions }
      this.#adopted(revision, rows, this.#statement('SELECT profile_id, rev FROM memory_undo').all() as unknown as UndoRow[])
      if (this.#index?.mode === 'memory') this.#index.rebuild(stateItems(state), revision, now)
      if (unreadable.length === 0) return { state, revision }
      const message = `${unreadable.length} avatar file(s) could not be read (${unreadable.join(', ')}); those profiles show their emoji until a new avatar is saved`
      return { state, revision, problem: { message } }
    } catch (e) {
      if (e instanceof StoreError || e instanceof SyntaxError) throw new DatabaseProblem(`${basename(this.path)} does not hold valid data (${e.message})`, true)
      throw e
    }
  }

  /** A profile from its row and item rows, its avatar read from its file ('' and listed in `unreadable` if it cannot be). */
  #profileFrom(row: ProfileRow, items: unknown[], unreadable: string[]): Record<string, unknown> {
    const data: unknown = JSON.parse(row.data)
    if (!isRecord(data)) throw invalid(`data.profiles.${row.id}`, 'is not an object')
    const { avatarFile, memory, ...fields } = data
    const summary = isRecord(memory) ? memory.summary : undefined
    let avatar = ''
    if (avatarFile !== undefined) {
      if (typeof avatarFile !== 'string' || !AVATAR_FILE.test(avatarFile)) throw invalid(`data.profiles.${row.id}.avatarFile`, 'is not an avatar file name')
      const read = this.avatars.read(avatarFile)
      if (read === undefined) unreadable.push(avatarFile)
      else {
        avatar = read
        this.avatars.learn(row.id, avatarFile, read)
      }
    }
    return { ...fields, avatar, memory: { summary, items } }
  }

  /**
   * The memory history lists the rows hold (all, or those named), each oldest entry first; the lists in the order
   * they were last written, as the state keeps them (the least recently written conversation list goes first).
   */
  #historyLists(only?: ReadonlySet<string>): Record<string, MemoryWrite[]> {
    const lists = new Map<string, MemoryWrite[]>()
    for (const row of this.#statement('SELECT list, data FROM memory_history ORDER BY pos').all() as unknown as { list: string; data: string }[]) {
      if (only !== undefined && !only.has(row.list)) continue
      const list = lists.get(row.list) ?? []
      lists.delete(row.list)
      list.push(JSON.parse(row.data) as MemoryWrite)
      lists.set(row.list, list)
    }
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
   * processes wrote since; undefined when the state is the same. Trusts the rows: only our own code writes them, after
   * validating. Throws on a database fault.
   */
  refresh(current: State): { state: State; revision: number } | undefined {
    const revision = this.revision()
    if (revision === this.#revision) return undefined
    const seen = this.#revision
    const activeId = String(this.#meta('activeId'))
    const rows = this.#statement('SELECT id, rev FROM profiles ORDER BY pos').all() as unknown as { id: string; rev: number }[]
    const have = new Map(current.profiles.map((p) => [p.id, p]))
    const unreadable: string[] = []
    const profiles = rows.map(({ id, rev }) => {
      const known = have.get(id)
      if (known !== undefined && this.#profileRevs.get(id) === rev) return known
      const row = this.#statement('SELECT id, rev, data FROM profiles WHERE id = ?').get(id) as unknown as ProfileRow
      return this.#profileFrom(row, this.#itemRows(id), unreadable) as unknown as Profile
    })
    let sessions = current.sessions
    const reset = Number(this.#meta('sessionsReset') ?? 0)
    if (reset > seen) {
      const all = this.#statement('SELECT id, data FROM sessions').all() as unknown as SessionRow[]
      sessions = sessionsOf(all.map((r) => [r.id, JSON.parse(r.data) as SessionSetting]))
    } else {
      for (const r of this.#statement('SELECT id, data FROM sessions WHERE rev > ?').all(seen) as unknown as SessionRow[]) {
        sessions = put(sessions, r.id, JSON.parse(r.data) as SessionSetting)
      }
      for (const r of this.#statement('SELECT id FROM sessions_gone WHERE rev > ?').all(seen) as unknown as { id: string }[]) {
        sessions = put(sessions, r.id, undefined)
      }
    }
    const undoRows = this.#statement('SELECT profile_id, rev FROM memory_undo').all() as unknown as { profile_id: string; rev: number }[]
    let memoryUndo = current.memoryUndo
    const undoChanged = undoRows.length !== this.#undoRevs.size || undoRows.some((u) => this.#undoRevs.get(u.profile_id) !== u.rev)
    if (undoChanged) {
      const next = bareRecord<{ memory: Memory; at: number }>()
      for (const u of undoRows) {
        const known = current.memoryUndo?.[u.profile_id]
        if (known !== undefined && this.#undoRevs.get(u.profile_id) === u.rev) next[u.profile_id] = known
        else {
          const row = this.#statement('SELECT profile_id, rev, at, memory FROM memory_undo WHERE profile_id = ?').get(u.profile_id) as unknown as UndoRow
          next[u.profile_id] = { memory: JSON.parse(row.memory) as Memory, at: row.at }
        }
      }
      memoryUndo = next
    }
    const state: State = { version: 1, activeId, profiles, sessions }
    if (memoryUndo !== undefined && Object.keys(memoryUndo).length > 0) state.memoryUndo = memoryUndo
    if (Number(this.#meta('userRev') ?? 0) > seen) {
      const items = this.#itemRows(USER_OWNER) as MemoryItem[]
      if (items.length > 0) state.user = { items }
    } else if (current.user !== undefined) state.user = current.user
    const history = this.#historySince(current.history, seen, new Set(rows.map((r) => r.id)))
    if (history !== undefined) state.history = history
    this.#adopted(revision, rows, undoRows)
    return { state, revision }
  }

  /** The memory item rows of one owner (a profile, or the user layer), in order. */
  #itemRows(owner: string): unknown[] {
    return (this.#statement('SELECT data FROM memory_items WHERE profile_id = ? ORDER BY pos').all(owner) as unknown as { data: string }[]).map((r) => JSON.parse(r.data) as unknown)
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
      upsert.run(p.id, pos, revision, JSON.stringify(data))
      this.#writeItems(p.id, previous[i]?.memory.items ?? [], memory.items)
    })
    if (sameOrder) return
    const live = new Set(next.profiles.map((p) => p.id))
    for (const p of prev.profiles) {
      if (live.has(p.id)) continue
      this.#statement('DELETE FROM profiles WHERE id = ?').run(p.id)
      this.#statement('DELETE FROM memory_items WHERE profile_id = ?').run(p.id)
      if (!this.#indexStale) this.#index!.dropOwner(p.id)
      // Nothing else of it: deleting a profile deletes what it knew.
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
      if (old === undefined || old.it !== it || old.i !== i) upsert.run(profileId, it.id, i, JSON.stringify(it))
      if (old?.it !== it) changed.push({ old: old?.it, now: it })
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
      // Clearing every conversation is one reset mark, not a tombstone per conversation.
      this.#statement('DELETE FROM sessions').run()
      this.#statement('DELETE FROM sessions_gone').run()
      if (!this.#indexStale) this.#index!.dropConversations()
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
  #historySince(current: State['history'], seen: number, profiles: ReadonlySet<string>): State['history'] {
    const changed = new Set((this.#statement('SELECT DISTINCT list FROM memory_history WHERE rev > ?').all(seen) as unknown as { list: string }[]).map((r) => r.list))
    const fresh = changed.size === 0 ? {} : this.#historyLists(changed)
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
      for (const e of list) if (!had.has(e.id)) insert.run(key, e.id, pos++, revision, JSON.stringify(e))
      for (const e of old) if (!has.has(e.id)) remove.run(key, e.id)
    }
    const drop = this.#statement('DELETE FROM memory_history WHERE list = ?')
    for (const key of Object.keys(prev.history ?? {})) if (next.history?.[key] === undefined) drop.run(key)
  }

  #writeUndo(prev: State, next: State, revision: number): void {
    if (prev.memoryUndo === next.memoryUndo) return
    const upsert = this.#statement('INSERT INTO memory_undo (profile_id, rev, at, memory) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET rev = excluded.rev, at = excluded.at, memory = excluded.memory')
    for (const [id, entry] of Object.entries(next.memoryUndo ?? {})) {
      if (prev.memoryUndo?.[id] !== entry) upsert.run(id, revision, entry.at, JSON.stringify(entry.memory))
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

/** Why `dir` cannot be written, in the OS's words (EACCES, EROFS…), or undefined when it can. */
function writeProblem(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK)
    return undefined
  } catch (e) {
    return errorText(e)
  }
}

/** A timestamp for names of files kept aside: `2025-01-02T03-04-05-678Z`. */
export function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, '-')
}

/** Rename `file` to `<file>.<tag>-<timestamp>` (never onto an existing file); undefined when it cannot move. */
export function keepAside(file: string, tag: string, now: number): string | undefined {
  for (let n = 1; n < 100; n++) {
    const target = `${file}.${tag}-${stamp(now)}${n === 1 ? '' : `-${n}`}`
    if (existsSync(target)) continue
    try {
      renameSync(file, target)
      return target
    } catch {
      return undefined
    }
  }
  return undefined
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
