/**
 * The restore of a backup into the open database: every row replaced by the backup's, as one transaction, at a
 * revision above both, so that every other process reloads all of it. It never copies the current data aside first
 * (the store takes that backup) and never reloads the state (the store does, after).
 */
import type { Connection } from './connection.ts'
import type { IndexUpkeep } from './index-upkeep.ts'
import { columnsOf, schemaOf } from './schema.ts'
import { COLUMNS, rowOf } from './row-read.ts'
import { StoreError } from '../../shared/errors.ts'
import { recountItems } from './item-counts.ts'

/** The tables a restore replaces: every one (meta too, for the active id; its revision marks are set after). */
const ROW_TABLES = [
  'meta',
  'profiles',
  'memory_items',
  'sessions',
  'sessions_gone',
  'memory_undo',
  'turns',
  'retired_profiles',
  'memory_history',
] as const

/** What a restore replaces the rows with, and how. */
export interface RestoreOptions {
  /** The backup's database file. */
  file: string
  /** The revision this process holds: the restore's revision is above it and above the database's. */
  floor: number
  /**
   * Open the write transaction (the store tries it on the event loop, as for a batch; the backup is attached
   * before, which SQLite allows only outside a transaction).
   */
  begin(): Promise<void>
}

/**
 * Replace every row with those of the backup, as a revision above both `floor` and the database's: every row
 * carries it and `sessionsReset` moves to it. Columns the backup lacks stay NULL; the schema number stays this
 * database's. Throws (nothing changed) when the backup is of a newer schema or cannot be read.
 */
export async function restoreRows(
  parts: { connection: Connection; index: IndexUpkeep },
  options: RestoreOptions,
): Promise<void> {
  const { connection: conn } = parts
  const db = conn.sql
  conn.statement('ATTACH DATABASE ? AS backup').run(options.file)
  try {
    const info = schemaOf(db)
    const theirs = db.prepare("SELECT value FROM backup.meta WHERE key = 'schema'").get()
    if (Number(theirs === undefined ? 1 : (rowOf('meta', COLUMNS.meta, theirs).value ?? 1)) > info.version)
      throw new StoreError('conflict', 'the backup was made by a newer version of this plugin')
    const columns = (schema: string, table: string) => columnsOf(db, `${schema}.${table}`)
    await options.begin()
    try {
      const revision = Math.max(options.floor, conn.revision()) + 1
      for (const table of ROW_TABLES) {
        db.exec(`DELETE FROM main.${table}`)
        const have = new Set(columns('main', table))
        const shared = columns('backup', table).filter((c) => have.has(c))
        if (shared.length > 0)
          db.exec(`INSERT INTO main.${table} (${shared.join(', ')}) SELECT ${shared.join(', ')} FROM backup.${table}`)
      }
      // The triggers kept the counts through the rows' replacement; counted again all the same, since counts that
      // were not done yet (meta now says what the backup's said) would otherwise carry on wrong.
      recountItems(db)
      db.exec("DELETE FROM main.meta WHERE key = 'schema'")
      db.prepare("INSERT INTO main.meta (key, value) VALUES ('schema', ?)").run(info.version)
      for (const table of ['profiles', 'sessions', 'memory_undo', 'memory_history'])
        db.prepare(`UPDATE main.${table} SET rev = ?`).run(revision)
      for (const key of ['revision', 'sessionsReset', 'userRev']) conn.setMeta(key, revision)
      // The rows were replaced beside the index: it is made again from them, in the same transaction.
      parts.index.rebuildFromRows(conn, revision)
      conn.commit()
    } catch (e) {
      conn.rollback()
      throw e
    }
  } finally {
    db.exec('DETACH DATABASE backup')
  }
}
