/**
 * A damaged page met while the store runs: how to tell SQLite's words for it, the mark that makes the next open check
 * the file whole (and so keep it aside and salvage every readable row, open.ts), and the refusal a read or a command
 * that met it answers with. It never reads or writes a row and never decides when the check runs
 * (background-check.ts does).
 */
import { writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { errorText } from '../../shared/errors.ts'
import { sqliteCode } from './connection.ts'
import { StoreError } from '../../shared/errors.ts'

/** SQLite's result codes for a file whose pages are not what they should be. */
const SQLITE_CORRUPT = 11
const SQLITE_NOTADB = 26

/** The file beside `databaseFile` that says damage was found in it: the next open checks it whole. */
export function checkDueFile(databaseFile: string): string {
  return `${databaseFile}.check-due`
}

/** Mark `databaseFile` for the full check at the next open, saying what was found; never throws. */
export function markCheckDue(databaseFile: string, detail: string): void {
  try {
    writeFileSync(checkDueFile(databaseFile), `${new Date().toISOString()} ${detail}\n`, { mode: 0o600 })
  } catch {
    // The store still says it (lastError, the log); the next open's check then relies on reading the damage.
  }
}

/** Whether `e` is SQLite finding a damaged page ("database disk image is malformed", "file is not a database"). */
export function isDamage(e: unknown): boolean {
  if (e === null || typeof e !== 'object') return false
  const code = sqliteCode(e)
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) return true
  return code === undefined && /disk image is malformed/i.test(errorText(e))
}

/**
 * The refusal of a read or command that met a damaged page of `databaseFile` while reading (or, `done` 'saved',
 * writing) `what`: nothing was changed; the page words it from its rule (what is damaged, and what happens next).
 */
export function damagedRefusal(
  databaseFile: string,
  what: string,
  e: unknown,
  done: 'read' | 'saved' = 'read',
): StoreError {
  const message = `${what} could not be ${done}: ${basename(databaseFile)} is damaged (${errorText(e)}); nothing was changed. It is checked now, and at the next start it is kept aside and every readable row is saved`
  return Object.assign(new StoreError('io', message), { rule: 'data.damaged' as const })
}
