/**
 * Backups the user can restore: one copy of the database a day (`VACUUM INTO`, taken after the first write of the
 * day), with the avatar files it names, in `<stem>.backups/<YYYY-MM-DD>/`, the newest BACKUPS_KEPT kept; and the
 * copy of the current data taken before a restore (`<timestamp>-before-restore`). A backup is built in a `.partial-`
 * directory and renamed into place whole, so a process killed meanwhile leaves no half backup, only a partial
 * directory that is never listed and is removed later. It owns the names, the listing (what each backup holds) and
 * the pruning; the copy itself and the restore run on the open database (database.ts), when the store says so.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { DatabaseSync } from './sqlite.ts'
import { pathToFileURL } from 'node:url'
import { randomBytes } from 'node:crypto'
import type { BackupInfo } from '../../shared/contract.ts'
import { AVATAR_FILE } from './avatars.ts'
import { stamp } from './copies.ts'
import type { Layout } from './layout.ts'

/** Daily backups kept; the oldest go first. Copies taken before a restore count among them. */
export const BACKUPS_KEPT = 7

/** The database's file name inside a backup, and its avatars folder. */
export const BACKUP_DB = 'profiles.sqlite'
const BACKUP_AVATARS = 'avatars'

/** A backup's name: a day, or the moment a restore replaced the data. Nothing else is ever opened as one. */
const NAME = /^\d{4}-\d\d-\d\d(?:T\d\d-\d\d-\d\d-\d{3}Z-before-restore)?$/

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
  return `${stamp(now)}-before-restore`
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
 * Make backup `name`: `copy(path)` writes the database there (VACUUM INTO), then the avatar files it names are
 * linked (or copied) beside it, and the whole folder is renamed into place. Returns false when a backup of that name
 * exists already (another process took it first). Throws when it cannot be made; nothing is left then.
 */
export function makeBackup(layout: Layout, name: string, copy: (path: string) => void): boolean {
  const root = backupsDir(layout)
  const target = join(root, name)
  if (existsSync(target)) return false
  mkdirSync(root, { recursive: true })
  const partial = join(root, `.partial-${name}-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    mkdirSync(join(partial, BACKUP_AVATARS), { recursive: true })
    const file = join(partial, BACKUP_DB)
    copy(file)
    for (const avatar of avatarsNamed(file)) {
      const from = join(layout.avatarDir, avatar)
      const to = join(partial, BACKUP_AVATARS, avatar)
      // Avatar files never change once written (named by their content), so a hard link is a true copy.
      try {
        linkSync(from, to)
      } catch {
        if (existsSync(from)) copyFileSync(from, to)
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
    prune(root)
  }
}

/** Put the avatar files of backup `name` back beside the database (those missing; they never change once written). */
export function restoreAvatars(layout: Layout, name: string): void {
  const from = join(backupsDir(layout), name, BACKUP_AVATARS)
  if (!existsSync(from)) return
  mkdirSync(layout.avatarDir, { recursive: true })
  for (const avatar of readdirSync(from)) {
    if (!AVATAR_FILE.test(avatar) || existsSync(join(layout.avatarDir, avatar))) continue
    copyFileSync(join(from, avatar), join(layout.avatarDir, avatar))
  }
}

/** The avatar files the profiles of a database name. */
function avatarsNamed(file: string): string[] {
  const db = openBackup(file)
  try {
    const rows = db
      .prepare("SELECT DISTINCT json_extract(data, '$.avatarFile') AS f FROM profiles WHERE json_valid(data)")
      .all() as { f: unknown }[]
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

/** Keep the newest BACKUPS_KEPT backups, and remove partial ones long abandoned. Never throws. */
function prune(root: string): void {
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return
  }
  const kept = names.filter((n) => NAME.test(n)).sort(byTime)
  for (const n of kept.slice(0, Math.max(0, kept.length - BACKUPS_KEPT)))
    rmSync(join(root, n), { recursive: true, force: true })
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
      const profiles = (
        db
          .prepare(
            `SELECT p.id AS id, json_extract(p.data, '$.name') AS name,
          (SELECT count(*) FROM memory_items i WHERE i.profile_id = p.id) AS items
        FROM profiles p WHERE json_valid(p.data) ORDER BY p.pos`,
          )
          .all() as { id: string; name: unknown; items: number }[]
      ).map((p) => ({ id: p.id, name: typeof p.name === 'string' ? p.name : p.id, items: Number(p.items) }))
      const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n)
      return {
        name,
        kind: name.endsWith('-before-restore') ? 'before-restore' : 'daily',
        at: statSync(join(dir, BACKUP_DB)).mtimeMs,
        bytes: sizeOf(dir),
        profiles,
        items: count('SELECT count(*) AS n FROM memory_items'),
        sessions: count('SELECT count(*) AS n FROM sessions'),
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
