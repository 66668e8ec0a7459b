/**
 * The data is the user's alone: every folder of it 0700 and every file 0600, whatever the process's umask (memory
 * holds what the user told an assistant about themselves; another account on the machine has no business reading
 * it). It owns the modes: folders made with 0700, files made by SQLite (which takes the umask's default) or copied
 * narrowed to 0600 once made, and the data directory, database files, avatar and backup folders an older version
 * left 0755 / 0644 narrowed when the database is opened for writing. It never creates a file and never throws: a
 * mode that cannot be changed (another owner, a read-only disk) is left as it is.
 */
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs'

/** The mode of a folder of the data. */
export const DIR_MODE = 0o700
/** The mode of a file of the data. */
export const FILE_MODE = 0o600

/** Make folder `dir` (and any missing parent) 0700; an existing one is left as it is (see {@link narrow}). */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE })
}

/**
 * Take the group's and others' access away from `path` (a folder keeps its owner's bits: 0755 becomes 0700, a
 * data directory shared on purpose keeps no more than its owner's); nothing when it is absent or cannot be changed.
 */
function narrow(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700)
  } catch {
    // Absent, another user's, or a read-only disk: nothing to narrow, or nothing this process may change.
  }
}

/** Make file `path`, just written (by SQLite or a copy), 0600; nothing when it cannot be changed. */
export function privateFile(path: string): void {
  try {
    chmodSync(path, FILE_MODE)
  } catch {
    // Another user's, or a read-only disk.
  }
}

/** Narrow each of `paths` that exists (see {@link narrow}). */
export function narrowAll(paths: readonly string[]): void {
  for (const p of paths) if (existsSync(p)) narrow(p)
}
