/**
 * The background import of a large file of the user's own (an export of theirs, confirmed on the page): the file,
 * read off the event loop by the import worker, is written in bounded batches, each an ordinary store command and so
 * its own transaction, with a pause between them in which turns, pages and other commands go on. Owns the batching,
 * the progress and the one-at-a-time rule; it never reads a file (lib/http/import-pool.ts does: the items of each
 * profile arrive as bytes, parsed here one profile at a time, see lib/commands/packed-items.ts) and never decides
 * what a merge does with a profile (lib/commands/transfer.ts does, through `profiles.importFiles`).
 *
 * The batches, per profile of the file: `profiles.importFiles` with that one profile, which decides as the import of
 * the whole file would (unchanged, kept beside under a new id or name, waiting for the user's choice, or replacing
 * the one the user chose) and writes it with the first batch of its memory items; then batches that append the rest
 * of its items in order, written from the bytes they came in on the store's kept thread (import-append.ts: the host's
 * event loop never decodes them), or as `sync.apply` commands where they came as objects or that thread leaves one. A batch is sized by time (batch-size.ts): as many items as hold the event
 * loop about 10 ms on the machine as loaded as it is now. Each is committed without the event loop waiting for the disk,
 * and synced off it before the next begins (db/durable-later.ts). The batch that completes a profile's memory leaves
 * its list on disk, as a start would (lists-on-disk.ts): the import holds no profile's whole list once it is in. The
 * user layer the file brings comes last, as suggestions.
 *
 * What a crash or a failed write leaves — whole profiles imported so far, nothing rolled back, nothing resumed:
 * every batch is one transaction, so the data on disk is always the state after some whole batch. The import only
 * adds profiles (a profile the user chose to replace is written whole, in one batch), so nothing the user had
 * before is ever touched by a half-done import. The profile being written when the process died keeps the items
 * of the batches that committed (a run from the start of its list, in the file's order); importing the file again
 * finds it under the same id with other content and asks, and "replace" completes it. A write that fails (a full
 * disk) stops the import there, with the report of what was written and why it stopped.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { performance } from 'node:perf_hooks'
import { DURABLE_LATER, makeDurable } from './db/durable-later.ts'
import { KeptThread } from './db/store-thread.ts'
import { BatchSize, threadCpuMs } from './batch-size.ts'
import type { FileResult } from '../shared/import-report.ts'
import type { OwnImportResult, OwnImportStatus } from '../shared/own-import.ts'
import { READ_FILES } from '../shared/files.ts'
import type { FileRead } from '../commands/file-read.ts'
import type { MergeChoice } from '../commands/transfer.ts'
import { freePacked, itemCount, packedBuffers, takeProfile, type PackedItems } from '../commands/packed-items.ts'
import { appendOff, appending, itemsOf, knownWhole, type Appending, type ImportItems } from './import-append.ts'
import { notice } from '../commands/kit.ts'
import type { MemoryItem, Profile } from '../state/model.ts'
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'
import type { ProfileStore } from './store.ts'
import { startFill } from './filling.ts'
import { StoreError } from '../shared/errors.ts'
import { LISTS_ON_DISK } from './lists-on-disk.ts'

/**
 * Memory items the first batch writes, before the cost of one is known: a few milliseconds on a quiet machine. The
 * batches after it are sized from what the ones before cost (batch-size.ts).
 */
export const ITEMS_PER_BATCH = 50

/** Characters of memory text one batch writes at most: a batch of long items is cut by size, not count. */
const CHARS_PER_BATCH = 256 * 1024

/** What a background import needs: the file as the worker read it, and the merge choice of the command. */
export interface OwnImportJob {
  read: FileRead
  choice: MergeChoice
}

/**
 * The first run of `length` items from `from` that fits one batch of at most `count` items (at least one item);
 * `size(k)`: item k's characters (its text, or its JSON's bytes when it came as bytes).
 */
function batchEnd(length: number, size: (k: number) => number, from: number, count: number): number {
  let chars = 0
  let end = from
  while (end < length && end - from < count) {
    chars += size(end)
    if (chars > CHARS_PER_BATCH && end > from) break
    end++
  }
  return end
}

/** The background imports of one store: at most one runs; the last one's status stays until the next starts. */
export class OwnImports {
  readonly #store: ProfileStore
  readonly #log: Log | undefined
  #status: OwnImportStatus = { state: 'idle', id: 0, file: '', done: 0, total: 0 }
  #closed = false
  #running: Promise<void> | undefined
  /** Items the next batch may write, learned from the batches before it. */
  #size = new BatchSize(ITEMS_PER_BATCH)
  /** The thread of the running import's checkpoints (db/durable-later.ts), ended with the import. */
  #checkpoints = new KeptThread()

  constructor(store: ProfileStore, log?: Log) {
    this.#store = store
    this.#log = log
  }

  /** How the current (or last) import is going. */
  status(): OwnImportStatus {
    return this.#status
  }

  /**
   * Refuse (`conflict`, rule `import.running`) while an import runs: two large imports at once would only slow each
   * other and every turn, and the user could not tell which report is whose.
   */
  assertFree(): void {
    if (this.#status.state !== 'running') return
    const e = new StoreError(
      'conflict',
      `a large file ("${this.#status.file}") is being imported; import again once it is done`,
      'files',
    )
    e.rule = 'import.running'
    throw e
  }

  /** Start importing `job` in the background and answer its first status; refused as {@link assertFree} says. */
  start(job: OwnImportJob): OwnImportStatus {
    this.assertFree()
    if (this.#closed) throw new StoreError('io', 'the profile store is closed')
    const profiles = job.read.incoming?.profiles ?? []
    const total = profiles.reduce((n, _p, i) => n + 1 + itemCount(job.read, i), 0) + (job.read.incoming?.user ? 1 : 0)
    this.#status = { state: 'running', id: this.#status.id + 1, file: job.read.name, done: 0, total }
    this.#running = this.#run(job)
      .catch((e: unknown) => {
        // Never into the host: a failure is the import's status, and the log's.
        this.#log?.warn(`agent-profiles: import of a large file failed: ${errorText(e)}`)
      })
      .finally(() => this.#checkpoints.close())
    return this.#status
  }

  /** Stop after the batch being written (the profiles written so far stay), and wait for it. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#running
  }

  /** Wait until the import running now (if any) is over: for specs and the benchmark. */
  async settled(): Promise<OwnImportStatus> {
    await this.#running
    return this.#status
  }

  #progress(units: number, report: FileResult, userAdded: number): void {
    const s = this.#status
    this.#status = { ...s, done: Math.min(s.total, s.done + units), result: resultOf(report, userAdded) }
  }

  async #run({ read, choice }: OwnImportJob): Promise<void> {
    const report: FileResult = {
      name: read.name,
      imported: 0,
      profileIds: [],
      warnings: [...read.warnings],
      unchanged: [],
      replaced: [],
      conflicts: [],
    }
    let userAdded = 0
    const fail = (e: unknown) => {
      const error =
        e instanceof StoreError ? { code: e.code, message: e.message } : { code: 'io', message: errorText(e) }
      this.#status = { ...this.#status, state: 'failed', error, result: resultOf(report, userAdded) }
    }
    if (read.error !== undefined || read.incoming === undefined) {
      report.error = read.error ?? { key: 'unreadable', field: 'file' }
      this.#status = { ...this.#status, state: 'done', result: resultOf(report, 0) }
      return
    }
    const buffers = packedBuffers(read)
    try {
      for (let i = 0; i < read.incoming.profiles.length; i++) {
        if (this.#closed) throw new StoreError('io', 'the profile store closed before the import was done')
        // Items the worker sent as bytes are parsed one profile at a time, as its batches are written.
        await this.#profile(read, takeProfile(read, i), choice, report)
      }
      const user = read.incoming.user
      if (user !== undefined && !this.#closed) {
        const r = await this.#timed(0, () =>
          this.#store.command({
            op: 'profiles.importFiles',
            files: [{}],
            [READ_FILES]: [{ name: read.name, format: read.format, incoming: { profiles: [], user }, warnings: [] }],
            [DURABLE_LATER]: true,
          }),
        )
        userAdded = r.userAdded
        this.#progress(1, report, userAdded)
      }
      this.#status = { ...this.#status, state: 'done', done: this.#status.total, result: resultOf(report, userAdded) }
    } catch (e) {
      fail(e)
    } finally {
      freePacked(buffers)
    }
  }

  /**
   * One profile of the file: its decision and first items in one batch, then the rest of its items in batches. The
   * batch that completes its memory has the store keep the list on disk (lists-on-disk.ts): the first when it holds
   * every item, or may (a profile the user chose to replace is written whole; which one is the merge's to decide, so
   * with any replace chosen the first batch asks, and a profile that goes on has its first items read back once).
   */
  async #profile(
    read: FileRead,
    taken: { profile: Profile; packed?: PackedItems },
    choice: MergeChoice,
    report: FileResult,
  ): Promise<void> {
    const first = await this.#first(read, taken.profile, choice, report)
    if (first === undefined) return
    // Its growth by the batches below sets off no background work on its whole memory (its compression).
    const filled = startFill(this.#store, first.target.id)
    try {
      const items = itemsOf(taken)
      // Its items parsed for the first batch are let go here: the rest go to the rows from their bytes.
      delete (taken as { profile?: Profile }).profile
      await this.#rest(first.target, items, first.keep, report)
    } finally {
      filled()
    }
    await nextTurn()
  }

  /**
   * The profile's decision and first batch; what the rest needs when it was added (its id, the items written, and
   * the contents it answers to once whole), else undefined.
   */
  async #first(
    read: FileRead,
    p: Profile,
    choice: MergeChoice,
    report: FileResult,
  ): Promise<{ target: Appending; keep: number } | undefined> {
    const items = p.memory.items
    const keep = batchEnd(items.length, (k) => items[k]!.text.length, 0, this.#size.next())
    const whole = keep >= items.length || choice.replace.size > 0
    const r = await this.#timed(keep, () =>
      this.#store.command({
        op: 'profiles.importFiles',
        files: [{}],
        conflicts: choice.conflicts,
        replace: [...choice.replace],
        [READ_FILES]: [{ name: read.name, format: read.format, incoming: { profiles: [p] }, warnings: [], keep }],
        [DURABLE_LATER]: true,
        ...(whole ? { [LISTS_ON_DISK]: true } : {}),
      }),
    )
    const one = r.files[0]!
    if (one.error !== undefined) {
      // A profile the store cannot keep (past the profile limit, say) ends the import here, said in the file's report.
      report.error = one.error
      throw new StoreError('invalid', `the profile "${p.name}" could not be imported (${one.error.key})`, 'file')
    }
    report.imported += one.imported
    report.profileIds.push(...one.profileIds)
    report.warnings.push(...one.warnings)
    report.unchanged.push(...one.unchanged)
    report.replaced.push(...one.replaced)
    report.conflicts.push(...one.conflicts)
    const added = one.imported > 0 && one.replaced.length === 0 ? one.profileIds[0] : undefined
    this.#progress(1 + (added === undefined ? items.length : keep), report, 0)
    if (added === undefined) return undefined
    return { target: appending(this.#store.state, added, p), keep }
  }

  /**
   * The items of `target` from `from` on, appended in batches: from their bytes on the store's kept thread
   * (import-append.ts), or through `sync.apply` where they came as objects or that thread leaves a batch to the host.
   */
  async #rest(target: Appending, items: ImportItems, from: number, report: FileResult): Promise<void> {
    while (from < items.length) {
      await nextTurn()
      if (this.#closed) throw new StoreError('io', 'the profile store closed before the import was done')
      const end = batchEnd(items.length, items.size, from, this.#size.next())
      const off = await appendOff(this.#store, this.#checkpoints, target, items, from, end)
      if (off.done === 'written') {
        // Sized by how long the batch held the database's write lock, which every command of the host waits for.
        if (end - from >= this.#size.next() / 2) this.#size.took({ items: end - from, wallMs: off.ms, cpuMs: off.ms })
        await makeDurable(this.#store.file, this.#checkpoints)
      } else if (
        off.done === 'gone' ||
        !(await this.#timed(end - from, () => this.#append(target.id, items.parse(from, end), end === items.length)))
      )
        // The user deleted the profile meanwhile: the rest of its memory has nowhere to go, and is not wanted.
        return this.#progress(items.length - from, report, 0)
      this.#progress(end - from, report, 0)
      from = end
    }
    knownWhole(this.#store, target)
  }

  /**
   * Run one batch of `count` items, size the next from what it cost (a batch under half the size asked for, the end
   * of a profile's items, says little about the cost per item and is not learned from), and wait until the batch is
   * on disk: so a power cut loses at most the batch just written.
   */
  async #timed<T>(count: number, write: () => Promise<T>): Promise<T> {
    const wall = performance.now()
    const cpu = threadCpuMs()
    const result = await write()
    if (count >= this.#size.next() / 2)
      this.#size.took({ items: count, wallMs: performance.now() - wall, cpuMs: threadCpuMs() - cpu })
    await makeDurable(this.#store.file, this.#checkpoints)
    return result
  }

  /**
   * Append `items` to profile `id`, as one batch; false when the profile is gone. The user may edit the profile
   * meanwhile (it is theirs as soon as it arrives): `sync.apply` refuses a profile changed since it was read, so it is
   * read again and the items appended to what the user saved. `last`: the batch completes the profile's memory, whose
   * list the store then keeps on disk.
   */
  async #append(id: string, items: MemoryItem[], last: boolean): Promise<boolean> {
    for (let tries = 0; ; tries++) {
      const seen = this.#store.state.profiles.find((q) => q.id === id)
      if (seen === undefined) return false
      try {
        await this.#store.command({
          op: 'sync.apply',
          profiles: [{ id, seenAt: seen.updatedAt, memory: { put: items } }],
          [DURABLE_LATER]: true,
          ...(last ? { [LISTS_ON_DISK]: true } : {}),
        })
        return true
      } catch (e) {
        if (!(e instanceof StoreError && e.code === 'conflict') || tries >= 5) throw e
      }
    }
  }
}

/** A report so far as the command's reply would word it. */
function resultOf(report: FileResult, userAdded: number): OwnImportResult {
  const failed = report.error === undefined ? 0 : 1
  return {
    imported: report.imported,
    files: [{ ...report }],
    userAdded,
    notice: notice('files.imported', {
      count: report.imported,
      files: 1 - failed,
      unchanged: report.unchanged.length,
      conflicts: report.conflicts.length,
      userAdded,
      failed,
      warned: report.warnings.length > 0 ? 1 : 0,
    }),
  }
}
