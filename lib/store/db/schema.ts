/**
 * The database's schema and how it moves forward: the tables of the current version, the numbered migrations that
 * bring an older database up to it (each one transaction), and what this version may do with a database of another
 * version. It never reads or writes the state's rows (write.ts does). No migration keeps a copy of the file first:
 * none changes what a row holds, and migration 6, which moves the history rows into a table of another shape, copies
 * them unchanged inside its own transaction, so a crash leaves the old table with every row (see it). One that
 * rewrites what rows hold must keep a copy, as a mistake in it would be committed with no way back.
 *
 * Two numbers, so that a database stays readable by the versions that can read it:
 *   meta `schema`          the schema version: the number of the last migration applied (absent: 1, the schema
 *                          before numbered migrations).
 *   PRAGMA user_version    the oldest schema version whose code can read this database. Code before numbered
 *                          migrations refused any value but 1 (it moved such a database aside), so a migration that
 *                          only adds tables or columns leaves it where it is; one that changes what existing rows
 *                          mean raises it to its own number.
 * A database whose schema is newer than this version's but which this version can still read (user_version at most
 * SCHEMA_VERSION) is opened read-only: nothing of it is moved, rewritten or migrated back. One this version cannot read
 * is not opened at all.
 *
 * Adding a migration: append `{ to: SCHEMA_VERSION + 1, what, up }` to MIGRATIONS, raise SCHEMA_VERSION, put what it
 * creates into SCHEMA too (a new database is made at the current version directly), and add a fixture written by the
 * code before it under test/support/fixtures/ (see test/store/store-schema.spec.ts).
 */
import { basename } from 'node:path'
import type { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowOf, rowsOf } from './row-read.ts'
import { createIndexTables } from './memory-index.ts'
import { KIND_COLUMNS, KIND_INDEX, KIND_TRIGGERS, markKindsReady } from './item-kinds.ts'
import { COUNTS_SCHEMA } from './item-counts.ts'
import { TEXT_KEY_COLUMN, TEXT_KEY_INDEX, TEXT_KEY_TRIGGER, markTextKeysReady } from './text-keys.ts'

/** `PRAGMA application_id` of our databases ("APRF"), so that another program's database is never taken for ours. */
export const APPLICATION_ID = 0x41505246

/** The schema version this code writes. */
export const SCHEMA_VERSION = 7

/** What this code puts in `user_version`: the oldest schema version that can read what it writes. */
const READABLE_FROM = 1

/** How each deleted profile looked, since schema 2 (the same in every schema since). */
const RETIRED_TABLE = `
CREATE TABLE IF NOT EXISTS retired_profiles (id TEXT PRIMARY KEY, at INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
`

/** Tables and columns schema 2 added; created by migration 2 in a database of schema 1 that lacks them. */
const SCHEMA_2_TABLES = `${RETIRED_TABLE}
CREATE TABLE IF NOT EXISTS memory_history (list TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, rev INTEGER NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (list, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_history_by_rev ON memory_history (rev);
`

/**
 * The history table since schema 6: a rowid table, so that an entry's data (up to a megabyte: a bulk edit's entry is
 * kept whole past the characters bound) lies in the table's cells alone and never in a key. Keyed by (list, id) as
 * schema 2 made it, a search for where a row goes read the whole record of every cell it passed whose data spilled
 * onto overflow pages: one pulled fact beside profiles holding such entries read megabytes. The unique index holds the
 * two short columns; the revision index carries the list, so the lists written since a revision are read from it
 * alone.
 */
const HISTORY_TABLE = `
CREATE TABLE IF NOT EXISTS memory_history (list TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, rev INTEGER NOT NULL,
  data TEXT NOT NULL, UNIQUE (list, id));
CREATE INDEX IF NOT EXISTS memory_history_by_rev ON memory_history (rev, list);
`

/**
 * The current schema, for a new database. retired_profiles keeps how each deleted profile looked (name, emoji,
 * avatar data URL), so the turns it answered keep its face; memory_history holds one row per entry of a memory
 * list's history; `turns.memories` the memory items a turn's requests carried, `turns.model` the model and parameters
 * of its latest request, both as JSON.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS profiles (id TEXT PRIMARY KEY, pos INTEGER NOT NULL, rev INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_items (profile_id TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, data TEXT NOT NULL,
  ${KIND_COLUMNS.join(', ')}, ${TEXT_KEY_COLUMN}, PRIMARY KEY (profile_id, id)) WITHOUT ROWID;
${KIND_TRIGGERS}
${KIND_INDEX};
${TEXT_KEY_TRIGGER}
${TEXT_KEY_INDEX};
${COUNTS_SCHEMA}
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_rev ON sessions (rev);
CREATE TABLE IF NOT EXISTS sessions_gone (id TEXT PRIMARY KEY, rev INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_gone_by_rev ON sessions_gone (rev);
CREATE TABLE IF NOT EXISTS memory_undo (profile_id TEXT PRIMARY KEY, rev INTEGER NOT NULL, at INTEGER NOT NULL, memory TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (session_id TEXT NOT NULL, turn INTEGER NOT NULL, profile_id TEXT NOT NULL, memories TEXT,
  model TEXT, PRIMARY KEY (session_id, turn)) WITHOUT ROWID;
${RETIRED_TABLE}${HISTORY_TABLE}`

/** One step of the schema: from `to - 1` to `to`, run inside its own transaction. */
interface Migration {
  to: number
  /** What it changes, for the log. */
  what: string
  up(db: DatabaseSync): void
}

/** The names of `table`'s columns (`table` may name its schema: `backup.profiles`). */
export function columnsOf(db: DatabaseSync, table: string): string[] {
  const [schema, name] = table.includes('.') ? table.split('.') : ['main', table]
  return rowsOf(table, COLUMNS.column, db.prepare(`PRAGMA ${schema}.table_info(${name})`).all()).map((c) => c.name)
}

function hasColumn(db: DatabaseSync, table: string, column: string): boolean {
  return columnsOf(db, table).includes(column)
}

/** Every migration, in order; the last one's `to` is SCHEMA_VERSION. */
const MIGRATIONS: readonly Migration[] = [
  {
    // Tables that schema 1 made with their indexes, and a column with no default: SQLite adds such a column to the
    // table's definition alone and reads it as NULL from rows written before, so no row is read or rewritten and code
    // of schema 1 reads the result as it was (READABLE_FROM stays). A copy first would read the whole file on the
    // event loop at the start, for years of history, to keep what nothing here changes.
    to: 2,
    what: 'tables retired_profiles and memory_history, column turns.memories, the schema version in meta',
    up(db) {
      // Schema 1 grew these without a version of their own (created at open), so a database of schema 1 may have them.
      db.exec(SCHEMA_2_TABLES)
      if (!hasColumn(db, 'turns', 'memories')) db.exec('ALTER TABLE turns ADD COLUMN memories TEXT')
    },
  },
  {
    // Only a column with no default added (as migration 2's): no row read or rewritten, code of schema 2 still
    // reads every row (READABLE_FROM stays), so no copy first.
    to: 3,
    what: 'column turns.model',
    up(db) {
      // Migration 2 makes a missing turns table from today's definition, which already has the column.
      if (!hasColumn(db, 'turns', 'model')) db.exec('ALTER TABLE turns ADD COLUMN model TEXT')
    },
  },
  {
    // Columns every row gets outside its JSON, empty until the background fill (item-kinds.ts) reaches it; the
    // triggers keep them for every row written from now on. Nothing existing changes meaning (READABLE_FROM stays),
    // and nothing of the rows is rewritten here, so no copy is taken first when this is all there is to do.
    to: 4,
    what: 'columns memory_items.kind and item_at, filled in the background',
    up(db) {
      for (const c of KIND_COLUMNS)
        if (!hasColumn(db, 'memory_items', c.split(' ')[0]!)) db.exec(`ALTER TABLE memory_items ADD COLUMN ${c}`)
      db.exec(KIND_TRIGGERS)
    },
  },
  {
    // A table of counts and the triggers that keep it (item-counts.ts): nothing of the rows is read or rewritten
    // here (the counts are made by the background job that ends the kinds' fill, on the store's worker thread),
    // and nothing existing changes meaning (READABLE_FROM stays).
    to: 5,
    what: 'table memory_counts kept by triggers, counted in the background',
    up(db) {
      db.exec(COUNTS_SCHEMA)
    },
  },
  {
    // The history rows move, unchanged, into the table of HISTORY_TABLE: the old one is renamed, its rows copied, then
    // dropped, all in this migration's transaction, so a crash at any point leaves the old table with every row (the
    // new one and the copy are never committed) and the next start does it again. No copy of the file is taken
    // first: the rows are not rewritten, only moved, so what a copy would guard against cannot happen, and a copy
    // would read and write the whole file (years of memory) at the start to guard rows this only moves.
    // Code of every earlier schema reads and writes the new table as the old one (the same columns; its upserts
    // resolve on the (list, id) uniqueness, which the unique index keeps), so READABLE_FROM stays.
    to: 6,
    what: 'table memory_history as a rowid table, unique by (list, id)',
    up(db) {
      db.exec(`ALTER TABLE memory_history RENAME TO memory_history_before;
        DROP INDEX IF EXISTS memory_history_by_rev;
        ${HISTORY_TABLE}
        INSERT INTO memory_history (list, id, pos, rev, data) SELECT list, id, pos, rev, data FROM memory_history_before;
        DROP TABLE memory_history_before;`)
    },
  },
  {
    // A column every row gets outside its JSON, empty until the background fill (text-keys.ts) reaches it, and the
    // trigger that empties a key whose text changed without it; its index is made once the fill ends (it reads every
    // row), on the store's worker thread. Nothing existing changes meaning (READABLE_FROM stays: code of schema 6
    // reads and writes the rows as before, and a text it writes loses its key), and nothing of the rows is rewritten
    // here, so no copy is taken first.
    to: 7,
    what: 'column memory_items.text_key, filled in the background',
    up(db) {
      if (!hasColumn(db, 'memory_items', 'text_key')) db.exec(`ALTER TABLE memory_items ADD COLUMN ${TEXT_KEY_COLUMN}`)
      db.exec(TEXT_KEY_TRIGGER)
    },
  },
]

/** The two numbers of a database (see the module header). */
export interface SchemaInfo {
  version: number
  readableFrom: number
}

function pragma(db: DatabaseSync, name: string): number {
  return Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0)
}

/** The schema version and the oldest version that can read it, of a database of ours. */
export function schemaOf(db: DatabaseSync): SchemaInfo {
  const readableFrom = pragma(db, 'user_version')
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined
  const row = hasMeta ? db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() : undefined
  const value = row === undefined ? 1 : rowOf('meta', COLUMNS.meta, row).value
  const version = Math.max(Number(value ?? 1) || 1, readableFrom)
  return { version, readableFrom }
}

/** What this version may do with a database of schema `info`. */
export function compatibility(info: SchemaInfo): 'current' | 'older' | 'newer' | 'unreadable' {
  if (info.readableFrom > SCHEMA_VERSION) return 'unreadable'
  if (info.version > SCHEMA_VERSION) return 'newer'
  return info.version < SCHEMA_VERSION ? 'older' : 'current'
}

/** The sentence for a database this version may only read, or not read at all; the UI shows its own words. */
export function newerMessage(info: SchemaInfo): string {
  return info.readableFrom > SCHEMA_VERSION
    ? `the data was made by a newer version of this plugin (schema ${info.version}) that this version (schema ${SCHEMA_VERSION}) cannot read; update the plugin to use it`
    : `the data was made by a newer version of this plugin (schema ${info.version}; this version writes ${SCHEMA_VERSION}); update to edit`
}

/** Make a new (empty) database the current schema, with the search index's tables, in one transaction. */
export function createSchema(db: DatabaseSync): boolean {
  let created = false
  transaction(db, () => {
    // Looked at again under the write lock: another process may have made the schema since this one found it empty.
    if (Object.values(db.prepare('PRAGMA application_id').get() ?? {})[0] === APPLICATION_ID) return
    created = true
    db.exec(SCHEMA)
    createIndexTables(db)
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`)
    db.exec(`PRAGMA user_version = ${READABLE_FROM}`)
    setSchema(db, SCHEMA_VERSION)
    markKindsReady(db)
    markTextKeysReady(db)
  })
  return created
}

function setSchema(db: DatabaseSync, version: number): void {
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(version)
}

function transaction(db: DatabaseSync, body: () => void): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    body()
    db.exec('COMMIT')
  } catch (e) {
    db.exec('ROLLBACK')
    throw e
  }
}

/**
 * Bring the database at `file` (open in `db`, of an older schema) up to SCHEMA_VERSION: each migration in its own
 * transaction, which also records its number. Another process may migrate at the same time: each transaction reads
 * the version again under the write lock and skips what is done. A crash leaves the database at the last migration
 * that committed. Returns the migrations applied.
 */
export function migrateSchema(db: DatabaseSync, file: string, log?: (message: string) => void): number[] {
  const from = schemaOf(db).version
  const applied: number[] = []
  for (const m of MIGRATIONS) {
    transaction(db, () => {
      if (schemaOf(db).version >= m.to) return
      m.up(db)
      setSchema(db, m.to)
      applied.push(m.to)
    })
  }
  if (applied.length > 0)
    log?.(
      `agent-profiles: ${basename(file)} migrated from schema ${from} to ${SCHEMA_VERSION} (${MIGRATIONS.filter((m) =>
        applied.includes(m.to),
      )
        .map((m) => m.what)
        .join('; ')})`,
    )
  return applied
}
