/**
 * Putting a backup's rows in place of the data: the backup checked first (a refused one changes nothing on disk), the
 * current data kept as a "before restore" backup, then every row replaced in one transaction. It owns that order and
 * the undoing of its own steps when one fails (the copy and the avatar files it added are taken away, a backup is
 * never removed); it never touches the live snapshot (live-store.ts reloads from what it answers).
 */
import { rmSync } from 'node:fs'
import { backupFile, beforeRestoreName, refusalOf, removeBackup, restoreAvatars } from './db/backups.ts'
import type { Database } from './db/database.ts'
import type { Layout } from './db/layout.ts'
import type { Loaded } from './db/load.ts'
import { SCHEMA_VERSION } from './db/schema.ts'
import { takeBackup } from './daily-backup.ts'
import { beginWhenFree } from './write-lock.ts'
import { storedValuesAt } from './stored-values.ts'
import { StoreError } from '../shared/errors.ts'

/** The file of the backup `name`, or the refusal naming the field when there is none. */
export function backupToRestore(layout: Layout, name: string): string {
  const file = backupFile(layout, name)
  if (file === undefined) throw new StoreError('not-found', `name: there is no backup "${name}"`, 'name')
  return file
}

/**
 * Replace `db`'s rows with those of the backup `name` at `file`, keeping the data as it was in a new backup first;
 * the data then read back, for the store to take. `floor`: the revision the restored data must start above.
 */
export async function restoreRows(
  layout: Layout,
  db: Database,
  backup: { name: string; file: string },
  floor: number,
): Promise<Loaded | undefined> {
  const refused = refusalOf(backup.file, SCHEMA_VERSION)
  if (refused !== undefined) throw refused
  const copy = beforeRestoreName(Date.now())
  let added: string[] = []
  // On a worker thread like the daily one (the caller holds the queue, so nothing of this process commits meanwhile).
  const made = await takeBackup(layout, copy)
  try {
    added = restoreAvatars(layout, backup.name)
    await db.restoreFrom({ file: backup.file, floor, begin: () => beginWhenFree(db) })
  } catch (e) {
    if (made) removeBackup(layout, copy)
    for (const f of added) rmSync(f, { force: true })
    throw e
  }
  return db.loadAll(Date.now(), storedValuesAt)
}
