/**
 * Opening the database: created when asked, checked (ours, sound), set up for durability, an older schema migrated
 * (schema.ts), a newer version's database opened read-only (or, when this version cannot read it, not at all), one
 * that cannot be written where it is opened read-only without touching a byte, and one SQLite cannot use moved aside
 * (quarantine). It never reads the state (load.ts does) and never decides what the store starts from.
 *
 * Why SQLite: WAL mode with synchronous=FULL makes a commit durable before it is acknowledged for about the cost of
 * one log append, several dsh processes can write the same data (one waits for another's write lock, up to 10 s,
 * never refused), and `PRAGMA data_version` tells a process in about a microsecond whether another one committed.
 */
import { accessSync, constants, existsSync, unlinkSync } from 'node:fs'
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import { errorText } from '../../shared/errors.ts'
import type { LoadWhy, UnwritableCause } from '../../shared/reasons.ts'
import type { AvatarFiles } from './avatars.ts'
import { BUSY_TIMEOUT_MS, Connection, sqliteCode } from './connection.ts'
import { keepAside } from './copies.ts'
import { Database } from './database.ts'
import { IndexUpkeep } from './index-upkeep.ts'
import { databaseFiles, type Layout } from './layout.ts'
import { backupsDir } from './backups.ts'
import { makePrivateDir, narrowAll } from './private-files.ts'
import { isIndexProblem } from './memory-index.ts'
import { checkDueFile } from './damage.ts'
import { checkTable, checkedTables } from './quick-check.ts'
import {
  APPLICATION_ID,
  SCHEMA_VERSION,
  compatibility,
  createSchema,
  migrateSchema,
  newerMessage,
  schemaOf,
  type SchemaInfo,
} from './schema.ts'
import { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowOf } from './row-read.ts'
import { DatabaseProblem } from './errors.ts'

/** SQLite result codes that mean the file is not a usable database (rather than that it cannot be reached). */
const SQLITE_CORRUPT = 11
const SQLITE_NOTADB = 26
/** Result codes that mean the file cannot be opened or written where it is (permissions, a read-only disk). */
const SQLITE_PERM = 3
const SQLITE_READONLY = 8
const SQLITE_CANTOPEN = 14
const SQLITE_AUTH = 23
const UNREACHABLE = new Set([SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_AUTH, SQLITE_PERM])

/** Why the data cannot be written where it is: the system's words, and the cause the page words itself. */
type Unwritable = { message: string; cause: UnwritableCause }

/** A newer version's database this version cannot read (`detail`: why it could not even be looked at). */
function newerProblem(info: SchemaInfo, detail?: string): DatabaseProblem {
  const message = detail === undefined ? newerMessage(info) : `${newerMessage(info)}; it cannot be read (${detail})`
  return new DatabaseProblem(
    message,
    detail === undefined ? { key: 'newer-unreadable' } : { key: 'newer-unreadable', detail },
    false,
    true,
  )
}

/** A database that cannot be opened where it is (`why`: the OS's or SQLite's words), left as it is. */
function unopenable(file: string, why: string): DatabaseProblem {
  const name = basename(file)
  return new DatabaseProblem(
    `${name} could not be opened (${why})`,
    { key: 'unopenable', params: { file: name }, detail: why },
    false,
  )
}

/** Which database to open, and how. */
export interface OpenOptions {
  layout: Layout
  /** The avatar files the profiles' rows name. */
  avatars: AvatarFiles
  /** Create the database, and its directory, when it is not there. */
  create: boolean
  /** Where a migration reports what it did. */
  log?: (message: string) => void
}

/**
 * Open the database at `layout.file`, set it up, migrate an older schema, and check it. Throws DatabaseProblem:
 * damaged (SQLite cannot open it, not ours, fails `quick_check`), unreachable, or newer and unreadable. A database of
 * a newer schema this version can read, or one this process may read but not write (a read-only directory), is
 * opened read-only, with `readOnly` saying why; not a byte of it is written.
 */
export function openDatabase(options: OpenOptions): Database {
  const { layout, avatars } = options
  if (options.create) makePrivateDir(layout.dir)
  // Looked at before anything is opened for writing: even setting the journal mode, or the checkpoint at close,
  // would change a newer version's file.
  const newer = openNewer(layout, avatars)
  if (newer !== undefined) return newer
  let db: DatabaseSync | undefined
  try {
    // The folder first, so that no other account can reach the files SQLite makes 0644 before they are narrowed.
    narrowAll([layout.dir])
    db = new DatabaseSync(layout.file, { timeout: BUSY_TIMEOUT_MS })
    const connection = new Connection(layout.file, db)
    const { indexDamaged } = setUp(connection, options.log)
    // Made by SQLite with its default mode, or left 0644 / 0755 by an older version: the user's alone from now on
    // (a -wal or -shm SQLite makes later takes the database file's mode).
    narrowAll([...databaseFiles(layout), layout.avatarDir, backupsDir(layout)])
    return new Database({ connection, avatars, index: IndexUpkeep.open(connection, indexDamaged), turnMemories: true })
  } catch (e) {
    db?.close()
    if (e instanceof DatabaseProblem && e.newer) {
      // A newer version migrated it between the look above and this open: read it as it is now.
      const again = openNewer(layout, avatars)
      if (again !== undefined) return again
    }
    if (e instanceof DatabaseProblem) {
      if (e.damaged || e.newer || !existsSync(layout.file)) throw e
      return openReadOnly(layout, avatars, { message: e.message, cause: 'error' })
    }
    const code = sqliteCode(e)
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB)
      throw notOurs(layout.file, `is not a usable database (${errorText(e)})`, errorText(e))
    const why = writeProblem(layout.dir) ?? { message: errorText(e), cause: causeOf(e) }
    if (!UNREACHABLE.has(code ?? -1) || !existsSync(layout.file)) throw unopenable(layout.file, why.message)
    // Out of reach for writing: read what is there without touching a byte (no -wal, no -shm), and say why.
    return openReadOnly(layout, avatars, why)
  }
}

/**
 * The database opened read-only when a newer version of the plugin made it and this version can read it; undefined
 * when it is absent, not ours, of this schema or older, or cannot be opened so (the caller's open then says why).
 * Throws DatabaseProblem (newer) when this version cannot read it, or it fails its check: a newer version's file
 * is never moved aside or salvaged into a database of this version, which would fork the user's data.
 */
function openNewer(layout: Layout, avatars: AvatarFiles): Database | undefined {
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
    if (fit === 'unreadable') throw newerProblem(info)
    const connection = new Connection(layout.file, db)
    try {
      check(connection)
    } catch (e) {
      throw newerProblem(info, errorText(e))
    }
    // Nothing may be written: this process builds an index of its own in memory, from the state it loads.
    return new Database({
      connection,
      avatars,
      index: IndexUpkeep.inMemory(),
      turnMemories: connection.hasColumn('turns', 'memories'),
      readOnly: { kind: 'newer', message: newerMessage(info) },
    })
  } catch (e) {
    db.close()
    if (e instanceof DatabaseProblem) throw e
    return undefined
  }
}

/** The database opened without writing a byte (no -wal, no -shm), because it cannot be written where it is (`why`). */
function openReadOnly(layout: Layout, avatars: AvatarFiles, why: Unwritable): Database {
  let db: DatabaseSync | undefined
  try {
    // A file URL, so that `#`, `?` or `%` in the path stay part of the path (not a fragment or a query).
    const url = pathToFileURL(layout.file)
    url.searchParams.set('immutable', '1')
    db = new DatabaseSync(url.href, { readOnly: true })
    const connection = new Connection(layout.file, db)
    check(connection)
    // A newer version's database out of reach for writing is still a newer version's: said so, or not read at all.
    const info = connection.pragma('application_id') === APPLICATION_ID ? schemaOf(db) : undefined
    const fit = info === undefined ? 'current' : compatibility(info)
    if (fit === 'unreadable') throw newerProblem(info!)
    return new Database({
      connection,
      avatars,
      index: IndexUpkeep.inMemory(),
      turnMemories: connection.hasColumn('turns', 'memories'),
      readOnly: fit === 'newer' ? { kind: 'newer', message: newerMessage(info!) } : { kind: 'unwritable', ...why },
    })
  } catch (e) {
    db?.close()
    if (e instanceof DatabaseProblem) throw e
    throw unopenable(layout.file, why.message)
  }
}

/** Check the file is ours and sound, then make sure the schema (migrated) and the durability settings are in place. */
function setUp(conn: Connection, log?: (message: string) => void): { indexDamaged: boolean } {
  const due = checkDueFile(conn.path)
  const { indexDamaged } = check(conn, existsSync(due))
  // Sound when read whole (the damage was in a -wal since checkpointed, or repaired): later opens read the schema alone.
  if (existsSync(due)) unlinkSync(due)
  const db = conn.sql
  const durable = () => db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL')
  if (conn.pragma('application_id') !== APPLICATION_ID) {
    durable()
    // When another process made the schema since this one found the file empty, that schema is read as any other.
    if (createSchema(db)) return { indexDamaged }
  }
  const info = schemaOf(db)
  const fit = compatibility(info)
  // Before any write, even of the journal mode: a newer version's file stays as it is.
  if (fit === 'newer' || fit === 'unreadable') throw newerProblem(info)
  durable()
  if (fit !== 'older') return { indexDamaged }
  try {
    migrateSchema(db, conn.path, log)
  } catch (e) {
    const file = basename(conn.path)
    const params = { file, from: info.version, to: SCHEMA_VERSION }
    throw new DatabaseProblem(
      `${file} could not be brought up from schema ${info.version} to ${SCHEMA_VERSION} (${errorText(e)})`,
      { key: 'upgrade-failed', params, detail: errorText(e) },
      false,
    )
  }
  return { indexDamaged }
}

/**
 * The file is ours (or empty) and its tables pass `quick_check`; says whether the search index's own tables failed
 * it (a rebuild from the rows repairs them, so that is never a reason to set the database aside).
 *
 * Each real table is checked by name, and the FTS virtual table is left out: on the whole file `quick_check` also runs
 * FTS5's own integrity check of the index, which reads every document of it — 1.3 s of 1.6 s with 100,000 memory
 * items, paid at every start for a history nobody reads. The index's b-trees (its shadow tables) are still checked
 * here; damage inside its blocks shows as a failing query, which rebuilds it (index-upkeep.ts).
 *
 * With `full` false only the schema is read: the open of the store's own database leaves the whole-file check to the
 * background (background-check.ts), which reads every page — most of an open's time with years of memory — and runs
 * it here only when the last background check found damage, so that this open keeps the file aside and salvages it.
 */
function check(conn: Connection, full = true): { indexDamaged: boolean } {
  // The tables first: another process may commit the creation between the two reads, and the creation makes the
  // tables and the id in one commit, so an id read after the tables is at least as new as they are (read the other
  // way round, a file made meanwhile showed its tables with no id yet, and was refused as not ours).
  const tables = checkedTables(conn.sql)
  const id = conn.pragma('application_id')
  if (id !== APPLICATION_ID && !(id === 0 && tables.length === 0))
    throw notOurs(conn.path, 'is not an agent-profiles database')
  // Reading the schema above already fails on a file that is no database; the whole file is read only when asked.
  const lines = full ? tables.flatMap((t) => checkTable(conn.sql, t)) : []
  const index = lines.filter((l) => isIndexProblem(l))
  const result = lines.filter((l) => !isIndexProblem(l))
  if (result.length === 0) return { indexDamaged: index.length > 0 }
  const file = basename(conn.path)
  const found = result.slice(0, 3).join('; ')
  throw new DatabaseProblem(
    `${file} failed its integrity check (${found})`,
    { key: 'damaged', params: { file }, detail: found },
    true,
  )
}

/**
 * A file at `path` that is not a database of this plugin (`what`: how, for the log; `detail`: SQLite's own words, when
 * it said any): damaged, to move aside.
 */
export function notOurs(path: string, what: string, detail?: string): DatabaseProblem {
  const file = basename(path)
  const why: LoadWhy = { key: 'not-a-database', params: { file }, ...(detail === undefined ? {} : { detail }) }
  return new DatabaseProblem(`${file} ${what}`, why, true)
}

/** Why `dir` cannot be written, in the OS's words (EACCES, EROFS…), or undefined when it can. */
function writeProblem(dir: string): Unwritable | undefined {
  try {
    accessSync(dir, constants.W_OK)
    return undefined
  } catch (e) {
    return { message: errorText(e), cause: causeOf(e) }
  }
}

/** Which of the causes the page words itself a failure to write is: by its errno name, or its SQLite result code. */
function causeOf(e: unknown): UnwritableCause {
  const errno = (e as { code?: unknown } | null)?.code
  const code = e === null || typeof e !== 'object' ? undefined : sqliteCode(e)
  if (errno === 'EACCES' || errno === 'EPERM' || code === SQLITE_PERM || code === SQLITE_AUTH) return 'permission'
  if (errno === 'EROFS' || code === SQLITE_READONLY) return 'read-only'
  return 'error'
}

/**
 * Move a database that cannot be used aside (with its -wal, whose pages belong to it; its -shm is only an index and
 * goes). Returns the name it was kept as, or undefined when it could not be moved.
 */
export function quarantine(layout: Layout, now: number): string | undefined {
  const kept = keepAside(layout.file, 'bad', now)
  if (kept === undefined) return undefined
  if (existsSync(`${layout.file}-wal`)) keepAside(`${layout.file}-wal`, 'bad', now)
  // The damage the last background check marked is kept aside with it: the new database is checked as usual.
  for (const gone of [`${layout.file}-shm`, checkDueFile(layout.file)])
    try {
      unlinkSync(gone)
    } catch {
      // Not there: nothing to remove.
    }
  return kept
}

/** Whether the database file at `file` holds no table (SQLite's fresh, empty file), read without writing a byte. */
export function holdsNoTables(file: string): boolean {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return (
      rowOf(
        'sqlite_master',
        COLUMNS.count,
        db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get(),
      ).n === 0
    )
  } finally {
    db.close()
  }
}
