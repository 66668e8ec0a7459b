/**
 * Backups the user can restore: one copy of the database a day (`VACUUM INTO`, taken after the first write of the
 * day), with the avatar files it names, in `<stem>.backups/<YYYY-MM-DD>/`, the newest BACKUPS_KEPT kept; and the
 * copy of the current data taken before a restore (`<timestamp>-before-restore`), the newest BEFORE_RESTORE_KEPT kept
 * in a rotation of their own. A backup is built in a `.partial-` directory and renamed into place whole, so a process
 * killed meanwhile leaves no half backup, only a partial directory that is never listed and is removed later. It owns
 * the names, the listing (what each backup holds), the check of a backup before it is restored and the pruning; the
 * copy itself runs where its caller says (the store's copies on a worker thread, store-thread.ts), the restore on
 * the open database (database.ts), when the store says so. Making a backup never
 * prunes: only the daily backup, once its new copy is in place, does (so a restore never removes a backup, and a
 * backup that fails halfway costs none of the older ones).
 */
import { copyFileSync, existsSync, linkSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { DatabaseSync } from './sqlite.ts'
import { COLUMNS, rowOf, rowsOf } from './row-read.ts'
import { pathToFileURL } from 'node:url'
import { randomBytes } from 'node:crypto'
import type { BackupInfo } from '../../shared/wire-replies.ts'
import { AVATAR_FILE } from './avatars.ts'
import { stamp } from './copies.ts'
import type { Layout } from './layout.ts'
import { makePrivateDir, privateFile } from './private-files.ts'
import { errorText } from '../../shared/errors.ts'
import { brokeRule } from '../../validate/state.ts'
import type { StoreError } from '../../shared/errors.ts'

/** Daily backups kept; the oldest go first. Copies taken before a restore are counted apart (BEFORE_RESTORE_KEPT). */
export const BACKUPS_KEPT = 7

/**
 * Copies taken before a restore kept, in their own rotation: a restore (or a refused one) never pushes a day out.
 * They are pruned with the next daily backup, never by a restore, so the data a restore replaced is always there
 * to be restored in turn.
 */
export const BEFORE_RESTORE_KEPT = 7

/** The database's file name inside a backup, and its avatars folder. */
const BACKUP_DB = 'profiles.sqlite'
const BACKUP_AVATARS = 'avatars'

/** A backup's name: a day, or the moment a restore replaced the data. Nothing else is ever opened as one. */
const NAME = /^\d{4}-\d\d-\d\d(?:T\d\d-\d\d-\d\d-\d{3}Z-before-restore)?$/

/** The mark of a copy taken before a restore. */
const BEFORE_RESTORE = '-before-restore'

/** A partial backup older than this was left by a process that died (taking one takes seconds at most). */
const PARTIAL_STALE_MS = 10 * 60_000

/** The folder of a data directory's backups. */
export function backupsDir(layout: Layout): string {
  return join(layout.dir, `${basename(layout.file).replace(/\.sqlite$/, '')}.backups`)
}

/** The day `now` falls on in local time, as a backup's name: `2026-12-01`. */
export function dayOf(now: number): string {
  const d = new Date(now)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** The name of the copy taken before a restore at `now`. */
export function beforeRestoreName(now: number): string {
  return `${stamp(now)}${BEFORE_RESTORE}`
}

/** Whether the backup `name` exists. */
export function hasBackup(layout: Layout, name: string): boolean {
  return existsSync(join(backupsDir(layout), name, BACKUP_DB))
}

/** The database file of backup `name`, or undefined when there is no such backup (or the name is not one). */
export function backupFile(layout: Layout, name: string): string | undefined {
  if (!NAME.test(name)) return undefined
  const file = join(backupsDir(layout), name, BACKUP_DB)
  return existsSync(file) ? file : undefined
}

/**
 * Make backup `name`: `copy(path)` writes the database there (VACUUM INTO, on the store's connection or a worker's),
 * then the avatar files it names are linked (or copied) beside it, and the whole folder is renamed into place.
 * Resolves false when a backup of that name exists already (another process took it first). Rejects when it cannot
 * be made; nothing is left then. It prunes nothing (see {@link pruneBackups}).
 */
export async function makeBackup(
  layout: Layout,
  name: string,
  copy: (path: string) => void | Promise<void>,
): Promise<boolean> {
  const root = backupsDir(layout)
  const target = join(root, name)
  if (existsSync(target)) return false
  makePrivateDir(root)
  const partial = join(root, `.partial-${name}-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    makePrivateDir(join(partial, BACKUP_AVATARS))
    const file = join(partial, BACKUP_DB)
    await copy(file)
    for (const avatar of avatarsNamed(file)) {
      const from = join(layout.avatarDir, avatar)
      const to = join(partial, BACKUP_AVATARS, avatar)
      // Avatar files never change once written (named by their content), so a hard link is a true copy.
      try {
        linkSync(from, to)
      } catch {
        if (existsSync(from)) {
          copyFileSync(from, to)
          privateFile(to)
        }
      }
    }
    try {
      renameSync(partial, target)
    } catch (e) {
      if (existsSync(target)) return false
      throw e
    }
    return true
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
}

/** Remove backup `name` (a copy taken before a restore that then failed: the data it holds is the data still there). */
export function removeBackup(layout: Layout, name: string): void {
  if (NAME.test(name)) rmSync(join(backupsDir(layout), name), { recursive: true, force: true })
}

/**
 * Put the avatar files of backup `name` back beside the database (those missing; they never change once written).
 * Returns the files it added, for a restore that fails after to take away again.
 */
export function restoreAvatars(layout: Layout, name: string): string[] {
  const from = join(backupsDir(layout), name, BACKUP_AVATARS)
  if (!existsSync(from)) return []
  const added: string[] = []
  makePrivateDir(layout.avatarDir)
  for (const avatar of readdirSync(from)) {
    const to = join(layout.avatarDir, avatar)
    if (!AVATAR_FILE.test(avatar) || existsSync(to)) continue
    copyFileSync(join(from, avatar), to)
    privateFile(to)
    added.push(to)
  }
  return added
}

/**
 * Why backup `file` cannot be restored, as a refusal the page words (rule `backup.*`), or undefined when it can: it
 * is damaged (SQLite cannot read it, or `PRAGMA quick_check` finds a fault), a newer version of the plugin made it
 * (schema above `schema`), or it holds no profile (restoring it would leave the user with none). Read before
 * anything is copied, so a refused restore changes nothing on disk.
 */
export function refusalOf(file: string, schema: number): StoreError | undefined {
  const refuse = (rule: 'backup.damaged' | 'backup.newer' | 'backup.empty', why: string) =>
    brokeRule('conflict', `not restored, nothing changed: ${why}`, 'name', rule)
  let db: DatabaseSync
  try {
    db = openBackup(file)
  } catch (e) {
    return refuse('backup.damaged', `the backup cannot be read (${errorText(e)})`)
  }
  try {
    const check = db.prepare('PRAGMA quick_check').all()
    if (check.length !== 1 || Object.values(check[0]!)[0] !== 'ok')
      return refuse('backup.damaged', 'the backup is damaged (its integrity check failed)')
    const theirs = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()
    if (Number(theirs === undefined ? 1 : (rowOf('meta', COLUMNS.meta, theirs).value ?? 1)) > schema)
      return refuse('backup.newer', 'the backup was made by a newer version of this plugin')
    const profiles = rowOf(
      'profiles',
      COLUMNS.count,
      db.prepare('SELECT count(*) AS n FROM profiles WHERE json_valid(data)').get(),
    )
    if (profiles.n === 0) return refuse('backup.empty', 'the backup holds no profile')
    return undefined
  } catch (e) {
    return refuse('backup.damaged', `the backup cannot be read (${errorText(e)})`)
  } finally {
    db.close()
  }
}

/** The avatar files the profiles of a database name. */
function avatarsNamed(file: string): string[] {
  const db = openBackup(file)
  try {
    const rows = db
      .prepare("SELECT DISTINCT json_extract(data, '$.avatarFile') AS f FROM profiles WHERE json_valid(data)")
      .all()
    return rows.map((r) => r.f).filter((f): f is string => typeof f === 'string' && AVATAR_FILE.test(f))
  } finally {
    db.close()
  }
}

/** A backup's database, read-only and untouched (it is never in WAL use: VACUUM INTO writes a plain file). */
function openBackup(file: string): DatabaseSync {
  const url = pathToFileURL(file)
  url.searchParams.set('immutable', '1')
  return new DatabaseSync(url.href, { readOnly: true })
}

/**
 * Keep the newest BACKUPS_KEPT daily backups and, apart, the newest BEFORE_RESTORE_KEPT copies taken before a
 * restore; remove partial backups long abandoned. The daily backup calls it once its new copy is in place, never
 * before (a backup that fails costs none of the older ones). Never throws.
 */
export function pruneBackups(layout: Layout): void {
  const root = backupsDir(layout)
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return
  }
  const backups = names.filter((n) => NAME.test(n)).sort(byTime)
  const daily = backups.filter((n) => !n.endsWith(BEFORE_RESTORE))
  const before = backups.filter((n) => n.endsWith(BEFORE_RESTORE))
  const old = [
    ...daily.slice(0, Math.max(0, daily.length - BACKUPS_KEPT)),
    ...before.slice(0, Math.max(0, before.length - BEFORE_RESTORE_KEPT)),
  ]
  for (const n of old) rmSync(join(root, n), { recursive: true, force: true })
  for (const n of names.filter((x) => x.startsWith('.partial-'))) {
    try {
      if (Date.now() - statSync(join(root, n)).mtimeMs > PARTIAL_STALE_MS)
        rmSync(join(root, n), { recursive: true, force: true })
    } catch {
      // Gone meanwhile.
    }
  }
}

/** Names in the order they were taken (a day sorts before the restores of that day, which come after its first write). */
function byTime(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The total size of a folder's files (one level deep, as a backup is). */
function sizeOf(dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    bytes += entry.isDirectory() ? sizeOf(path) : statSync(path).size
  }
  return bytes
}

/** What backup `name` holds, read from its database; undefined when it cannot be read. */
function infoOf(root: string, name: string): BackupInfo | undefined {
  const dir = join(root, name)
  try {
    const db = openBackup(join(dir, BACKUP_DB))
    try {
      const profiles = rowsOf(
        'profiles',
        COLUMNS.backupProfile,
        db
          .prepare(
            `SELECT p.id AS id, json_extract(p.data, '$.name') AS name,
          (SELECT count(*) FROM memory_items i WHERE i.profile_id = p.id) AS items
        FROM profiles p WHERE json_valid(p.data) ORDER BY p.pos`,
          )
          .all(),
      ).map((p) => ({ id: p.id, name: typeof p.name === 'string' ? p.name : p.id, items: p.items }))
      const count = (table: string) =>
        rowOf(table, COLUMNS.count, db.prepare(`SELECT count(*) AS n FROM ${table}`).get()).n
      return {
        name,
        kind: name.endsWith(BEFORE_RESTORE) ? 'before-restore' : 'daily',
        at: statSync(join(dir, BACKUP_DB)).mtimeMs,
        bytes: sizeOf(dir),
        profiles,
        items: count('memory_items'),
        sessions: count('sessions'),
      }
    } finally {
      db.close()
    }
  } catch {
    return undefined
  }
}

/** Every backup, newest first, with what each holds. */
export function listBackups(layout: Layout): BackupInfo[] {
  const root = backupsDir(layout)
  let names: string[]
  try {
    names = readdirSync(root).filter((n) => NAME.test(n))
  } catch {
    return []
  }
  return names
    .sort(byTime)
    .reverse()
    .map((n) => infoOf(root, n))
    .filter((b): b is BackupInfo => b !== undefined)
}
