/**
 * Waiting for the database's write lock while another dsh process holds it: between tries on the event loop, never
 * in SQLite's busy wait (node:sqlite waits synchronously, which would stop this whole process, its pages and its
 * turns, for as long as the other process writes). It never takes the lock itself; the database's `tryBegin` does.
 */
import { performance } from 'node:perf_hooks'
import { BUSY_TIMEOUT_MS } from './db/connection.ts'
import { StoreError } from '../shared/errors.ts'

/** While another process holds the write lock, a batch tries again after 1, 2, 3… ms, at most this many apart. */
const LOCK_RETRY_MS = 1
const LOCK_RETRY_MAX_MS = 20

/**
 * Wait before try number `tries` + 1 (1, 2, 3…) for the lock; throws StoreError `io` once the writer has waited since
 * `since` (performance.now()) for longer than the busy timeout.
 */
export async function lockPause(since: number, tries: number): Promise<void> {
  if (performance.now() - since > BUSY_TIMEOUT_MS)
    throw new StoreError(
      'io',
      `another dsh process held the profile database's write lock for over ${BUSY_TIMEOUT_MS / 1000} s`,
    )
  await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MAX_MS, tries * LOCK_RETRY_MS)))
}

/** Open `db`'s write transaction once no other process holds the lock (see {@link lockPause}). */
export async function beginWhenFree(db: { tryBegin(): boolean }): Promise<void> {
  const since = performance.now()
  for (let tries = 1; !db.tryBegin(); tries++) await lockPause(since, tries)
}
