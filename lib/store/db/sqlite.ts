/**
 * node:sqlite for the store, loaded without the one warning Node prints when it loads ("ExperimentalWarning: SQLite
 * is an experimental feature"): our use of it is deliberate, and the line on every start reads as a fault to a user.
 * Only that warning is dropped, and only while this module loads node:sqlite; every other warning, of Node or of
 * another plugin, is printed as before. It owns nothing else: the rest of lib/store/db does everything with it.
 */
import type * as Sqlite from 'node:sqlite'

/** True for Node's warning about loading node:sqlite. */
function isSqliteWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const type =
    warning instanceof Error
      ? warning.name
      : typeof typeOrOptions === 'string'
        ? typeOrOptions
        : (typeOrOptions as { type?: unknown } | undefined)?.type
  const text = warning instanceof Error ? warning.message : warning
  return type === 'ExperimentalWarning' && text.includes('SQLite')
}

/**
 * Load node:sqlite with that warning filtered. Loaded at run time on purpose: a static import of a builtin is
 * evaluated before any module of the bundle runs, so no filter could be in place in time. Loaded synchronously on
 * purpose too: an awaited import would make every module that reaches this one wait on it, and Node 22 aborts the
 * whole process (a V8 check, not an error) when a thread is ended while such a module graph is still being evaluated
 * — which the store's and the import's worker threads are, on a timeout or a close.
 */
function load(): typeof Sqlite {
  const emit = process.emitWarning
  const filtered = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    if (isSqliteWarning(warning, rest[0])) return
    Reflect.apply(emit, process, [warning, ...rest])
  }
  process.emitWarning = filtered as typeof process.emitWarning
  try {
    return process.getBuiltinModule('node:sqlite')
  } finally {
    if (process.emitWarning === filtered) process.emitWarning = emit
  }
}

const sqlite = load()

/** node:sqlite's synchronous database. */
export const DatabaseSync = sqlite.DatabaseSync
/** An open database. */
export type DatabaseSync = Sqlite.DatabaseSync
/** A prepared statement. */
export type StatementSync = Sqlite.StatementSync
/** A value of a column as a statement reads it. */
export type SQLOutputValue = Sqlite.SQLOutputValue
