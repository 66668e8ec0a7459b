/**
 * Where each part of the data lives, for one data file: the paths of the database, of its avatar folder, and of the
 * files of the layout before the database. It owns the names only; it never opens, reads or writes a file.
 *
 * For a data file `<dir>/<stem>.sqlite` (a configured `<stem>.json`, the name before the database, means the same
 * data):
 *   <stem>.sqlite, -wal, -shm   the database, in WAL mode
 *   <stem>.avatars/             avatar images, one file per distinct image (avatars.ts)
 *   <stem>.sqlite.bad-<ts>      a database SQLite cannot use (and its -wal), kept aside once its readable rows were
 *                               copied into the new one (salvage.ts), never overwritten
 *   <stem>.sqlite.v<N>-<ts>     a copy taken before migrating from schema N (schema.ts), the newest three kept
 *   <stem>.backups/<day>/       the daily backups and the copies taken before a restore (backups.ts)
 *   <stem>.json.migrated-<ts>   the files of the layout before the database, kept once imported (migrate.ts)
 */
import { basename, dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

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
    file: join(dir, `${stem}.sqlite`),
    dir,
    avatarDir: join(dir, `${stem}.avatars`),
    legacy: {
      file: join(dir, `${stem}.json`),
      walFile: join(dir, `${stem}.wal`),
      ledgerFile: join(dir, `${stem}.turns.jsonl`),
      lockFile: join(dir, `${stem}.lock`),
    },
  }
}

/** The database's own files: the database, its write-ahead log and its shared-memory index. */
export function databaseFiles(layout: Layout): string[] {
  return [layout.file, `${layout.file}-wal`, `${layout.file}-shm`]
}

/**
 * The forms the data directory of `file` takes in an OS's or SQLite's message (as configured, absolute, as a file
 * URL's path), longest first, for text that must not carry it (lib/shared/errors.ts `withoutDataDir`).
 */
export function dataDirForms(file: string): string[] {
  const dir = layoutOf(file).dir
  const absolute = resolve(dir)
  return [...new Set([dir, absolute, pathToFileURL(absolute).pathname])].sort((a, b) => b.length - a.length)
}
