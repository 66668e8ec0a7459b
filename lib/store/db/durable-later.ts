/**
 * Making an own import's batch, or a turn's record, durable without the event loop waiting for the disk: the batch was
 * committed with synchronous OFF and no automatic checkpoint (Connection.tryBegin's `later`), so its pages are in the
 * WAL, in the system's cache. Here the WAL is synced on libuv's thread pool, and once more than
 * {@link CHECKPOINT_FRAMES} of its pages wait to be copied into the database file the import checkpoints it on its
 * kept thread (store-jobs.ts, store-thread.ts), and the turn ledger writes its next record as every command is, whose
 * commit checkpoints. It never writes a row and never decides what a batch holds.
 *
 * Why both: a sync of the WAL makes the batch as durable as a FULL commit would have (SQLite's FULL in WAL mode is
 * exactly that sync), and the checkpoint keeps the WAL as short as SQLite's own automatic checkpoint keeps it, so a
 * user's command committed meanwhile (FULL, automatic checkpoint on) never meets a long WAL to copy on the loop.
 */
import { open } from 'node:fs/promises'
import { endianness } from 'node:os'
import type { KeptThread } from './store-thread.ts'

/** SQLite's automatic checkpoint runs past 1,000 pages in the WAL; so does this one, on a worker thread. */
const CHECKPOINT_FRAMES = 1000

/**
 * Pages of the WAL not yet copied into the database file, from the wal-index header in `-shm` (SQLite's documented
 * WAL format: `mxFrame`, the last valid frame, at byte 16 of the header; `nBackfill`, the frames checkpointed, at
 * byte 96 of the file), both in the machine's byte order. 0 when there is no `-shm` to read.
 */
async function framesWaiting(file: string): Promise<number> {
  const shm = await open(`${file}-shm`, 'r').catch(() => undefined)
  if (shm === undefined) return 0
  try {
    const { buffer, bytesRead } = await shm.read(Buffer.alloc(100), 0, 100, 0)
    if (bytesRead < 100) return 0
    const u32 = (at: number) => (endianness() === 'LE' ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at))
    return Math.max(0, u32(16) - u32(96))
  } finally {
    await shm.close()
  }
}

/**
 * Sync `file`'s WAL, so that every commit in it is durable, and answer how long it is: the pages waiting to be copied
 * into the database file (0: no WAL). Rejects with the failure of the sync (the commits themselves are done: a
 * failure here means that a power cut could lose them).
 */
export async function syncWal(file: string): Promise<number> {
  // Opened for writing, as some systems sync only a file opened so; nothing is written through it.
  const wal = await open(`${file}-wal`, 'r+').catch((e: unknown) => {
    // No WAL: nothing was written since the database was last closed (or the store writes no file at all).
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  })
  if (wal === undefined) return 0
  try {
    await wal.datasync()
  } finally {
    await wal.close()
  }
  return framesWaiting(file)
}

/** Whether a WAL of `frames` pages is past what SQLite's automatic checkpoint lets one grow to. */
export const walLong = (frames: number): boolean => frames > CHECKPOINT_FRAMES

/**
 * Make every commit in `file`'s WAL durable: synced, and checkpointed on `thread` when long. Resolves once it is; rejects with
 * the failure of the sync (the import stops there, as at a failed write).
 */
export async function makeDurable(file: string, thread: KeptThread): Promise<void> {
  if (!walLong(await syncWal(file))) return
  // The batch is on disk already: a checkpoint that could not run (no thread to be had) leaves the WAL longer, for
  // the next one or the next FULL commit to copy, and stops nothing.
  await thread.run({ kind: 'checkpoint', file }).catch(() => undefined)
}

/**
 * Marks a command of an own import's batch, or a turn's record (never sent over HTTP: a symbol does not survive
 * JSON): a batch made of such commands alone is committed `later`, and the import calls {@link makeDurable} before
 * its next one, the turn ledger {@link syncWal} after each (lib/turn/ledger.ts).
 */
export const DURABLE_LATER = Symbol('agent-profiles: made durable after the commit, off the event loop')

/** Whether every command of `batch` is an own import's, so that the batch may be committed `later`. */
export function allLater(batch: readonly { cmd: unknown }[]): boolean {
  return batch.every((w) => typeof w.cmd === 'object' && w.cmd !== null && DURABLE_LATER in w.cmd)
}
