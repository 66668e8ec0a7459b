/**
 * What the slow saves of bench/long-history.bench.ts's `memory.add` line are: each save is put in one of three kinds,
 *  - the first command into a profile since the store opened: the profile's list of items and its history are on
 *    disk until then (lib/state/lazy-list.ts), and a command that changes a list reads it whole (its items checked,
 *    their compared texts made, its history's entries read): at 9,975 items a profile, hundreds of milliseconds;
 *  - a save whose commit checkpointed the WAL (SQLite's automatic checkpoint, past 1,000 pages: it copies them into
 *    the database file and syncs it), seen in the wal-index header of `-shm` (SQLite's documented WAL format:
 *    `nBackfill`, the frames copied, at byte 96, which the checkpoint moves up);
 *  - every other save;
 * and each kind's count, median and slowest is printed, at the small and the long history, so a tail says which it is.
 */
import { openSync, readSync, closeSync } from 'node:fs'
import { endianness } from 'node:os'
import { performance } from 'node:perf_hooks'
import { median } from '../test/support/stats.ts'

type Kind = 'first' | 'checkpoint' | 'other'

/** Frames of `file`'s WAL copied into the database file so far (0 when there is no `-shm`). */
function backfilled(file: string): number {
  let fd: number
  try {
    fd = openSync(`${file}-shm`, 'r')
  } catch {
    return 0
  }
  try {
    const b = Buffer.alloc(100)
    if (readSync(fd, b, 0, 100, 0) < 100) return 0
    return endianness() === 'LE' ? b.readUInt32LE(96) : b.readUInt32BE(96)
  } finally {
    closeSync(fd)
  }
}

/** The saves of one checkout at one size, by kind. */
export class AddKinds {
  readonly #file: string
  readonly #touched = new Set<string>()
  readonly #times = new Map<Kind, number[]>()

  constructor(file: string) {
    this.#file = file
  }

  /** Time `save`, a command into `profile`, and file it under its kind. */
  async time(profile: string, save: () => Promise<unknown>): Promise<number> {
    const before = backfilled(this.#file)
    const started = performance.now()
    await save()
    const ms = performance.now() - started
    const first = !this.#touched.has(profile)
    this.#touched.add(profile)
    const kind: Kind = first ? 'first' : backfilled(this.#file) > before ? 'checkpoint' : 'other'
    this.#times.set(kind, [...(this.#times.get(kind) ?? []), ms])
    return ms
  }

  /** Each kind's count, median and slowest: `first 10: p50 … slowest …`. */
  summary(): string {
    return (['first', 'checkpoint', 'other'] as const)
      .map((k) => {
        const t = this.#times.get(k) ?? []
        const name = { first: 'first into a profile', checkpoint: 'checkpointed the WAL', other: 'the others' }[k]
        return t.length === 0
          ? `${name} 0`
          : `${name} ${t.length}: p50 ${median(t).toFixed(2)} ms, slowest ${Math.max(...t).toFixed(2)} ms`
      })
      .join('; ')
  }
}
