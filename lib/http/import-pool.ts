/**
 * Import work off the host's event loop: one worker thread (import-worker.ts) that parses large request bodies and
 * reads the files of `profiles.importFiles`, fed from a queue one job at a time, each job (and each file of a body)
 * under a limit of the processor time its thread spends (job-limit.ts: a runaway parse is killed with its thread and
 * reported as too slow) and the thread under memory limits (a file that would eat the host's memory ends the thread,
 * not the host). The host's loop only copies bytes to and from it, so every page and conversation keeps being
 * answered while a 20 MB card is read.
 *
 * Started on the first job, not with the plugin: a host that never imports (headless has no routes at all) never
 * starts a thread. Where no thread can start (the worker file is missing), the work runs on the calling thread as
 * before, said once in the log. It never touches the store; what it reads, the import command merges.
 */
import { Worker, isMarkedAsUntransferable, type ResourceLimits } from 'node:worker_threads'
import { randomUUID } from 'node:crypto'
import { readFile, type FileRead } from '../commands/file-read.ts'
import { packedBuffers, packRead } from '../commands/packed-items.ts'
import type { OpContext } from '../commands/kit.ts'
import { READ_FILES } from '../shared/files.ts'
import { LIMITS } from '../state/model.ts'
import { errorText } from '../shared/errors.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { readExport, type ExportRead } from '../learn/export-read.ts'
import {
  HeldConversations,
  holdConversations,
  PartPacker,
  type HeldRead,
  type PackedPart,
} from '../learn/export-parts.ts'
import { EXPORT_LIMITS } from '../learn/conversation.ts'
import { entryScript } from '../runtime/entry-script.ts'
import { StoreError } from '../shared/errors.ts'
import { cpuLimit, wallLimit, type JobLimit, type Overrun } from './job-limit.ts'

/** A job for the worker: a body to parse as JSON, one file argument to read, or another assistant's data export. */
export type WorkerJob =
  | { id: number; kind: 'json'; bytes: Uint8Array }
  | { id: number; kind: 'file'; file: unknown; index: number }
  | { id: number; kind: 'export'; bytes: Uint8Array }

/**
 * The worker's answer to one job. A body that is an import also gives, before its answer, the command with its files
 * left out (`head`: each file's name and format only) and each file as read (`read`), so the files' contents never
 * cross back to the event loop, and a file that stops the worker costs that file and the ones after it only. An
 * export's conversations come first as they are read, packed as text in parts (export-parts.ts) the host keeps as
 * text, then its answer.
 */
export type WorkerAnswer =
  | { id: number; kind: 'json'; ok: true; value: unknown; reads?: FileRead[] }
  | { id: number; kind: 'json'; ok: false; message: string }
  | { id: number; kind: 'file'; read: FileRead }
  | { id: number; kind: 'head'; value: Record<string, unknown> }
  | { id: number; kind: 'read'; read: FileRead }
  | { id: number; kind: 'export'; read: ExportRead }
  | { id: number; kind: 'part'; part: PackedPart }

/** What the worker says once its script has loaded. */
export const READY = 'ready'

/** How a parse of a body ended. */
export type ParseOutcome = { ok: true; value: unknown } | { ok: false; message: string }

/**
 * Longest one job, or one file of a body, may run, in processor time of the worker's thread (job-limit.ts: a loaded
 * machine does not make a file too slow; a wall-clock limit several times this stands behind it). The largest
 * accepted file (a 20 MB PNG card) reads in about 0.1 s on a 2-core machine and every hostile file of issue #29 in
 * far less; a job that has spent this much is a parse gone wrong. The thread is then terminated, but `terminate()`
 * cannot interrupt a native JSON.parse (it returns when the parse does: 4 s for 8 million objects, measured), so what
 * bounds a parse is the body's shape, capped before it is parsed (the fence, lib/http/body-shape.ts), and each
 * file's, counted before it is parsed (lib/interop/bounds.ts).
 */
const JOB_TIME_LIMIT_MS = 10_000

/**
 * How long a fresh thread may take to load its script before the job's own limit starts. The job's limit is the
 * file's: on a busy machine a thread's start took over 1.5 s, and counting it made a small file "too slow".
 */
const START_LIMIT_MS = 30_000

/**
 * Memory of the worker's heap. A 48 MB body (the command cap) parses into about 100 MB of strings; what a file adds
 * while read (card JSON within its 4 M characters, Markdown within 1 MB) is far less than that again.
 */
export const WORKER_LIMITS: ResourceLimits = {
  maxOldGenerationSizeMb: 384,
  maxYoungGenerationSizeMb: 48,
  stackSizeMb: 4,
}

/**
 * How long the worker stays after its last job. Then it is ended, and with it the memory its last file took (a 24 MB
 * body's strings stayed held by an idle worker, 68 MB); the next import starts a new one, which takes tens of ms.
 */
const IDLE_MS = 2_000

/**
 * Longest the read of a data export may run, in processor time as a job's limit: a 200 MB export took over 60 s on a
 * loaded 2-core machine (bench/learn), and it is read conversation by conversation, so unlike one JSON.parse the
 * thread can be stopped between them.
 */
const EXPORT_TIME_LIMIT_MS = 180_000

/** Jobs that may wait: 200 files a command (its limit) for several commands at once; beyond, imports are refused. */
const QUEUE_LIMIT = 1_000

/** Options of {@link ImportPool}: limits tests can lower, the worker file tests can change. */
export interface PoolOptions {
  /** The processor time of one job (JOB_TIME_LIMIT_MS). */
  timeLimitMs?: number
  /** The time limit of reading a data export (EXPORT_TIME_LIMIT_MS). */
  exportTimeLimitMs?: number
  idleMs?: number
  resourceLimits?: ResourceLimits
  /** The worker's script; by default import-worker.js beside the running bundle (or .ts beside this source). */
  script?: URL
  log?: { warn(message: string): void }
}

interface Pending {
  job: WorkerJob
  /** Transferred to the worker (a body's bytes), not copied. */
  transfer: ArrayBuffer[]
  /** Where an export's conversations go as their parts arrive (kept as text). */
  held?: HeldConversations
  settle(answer: WorkerAnswer): void
}

/** One import worker and its queue. */
export class ImportPool {
  readonly #timeLimit: number
  readonly #exportTimeLimit: number
  readonly #idleMs: number
  readonly #limits: ResourceLimits
  readonly #script: URL
  readonly #log: { warn(message: string): void }
  readonly #queue: Pending[] = []
  #worker: Worker | undefined
  #running:
    | {
        pending: Pending
        timer: JobLimit
        head?: Record<string, unknown>
        reads: FileRead[]
      }
    | undefined
  /** The current worker has loaded its script (its READY arrived). */
  #ready = false
  #nextId = 1
  #closed = false
  #idle: NodeJS.Timeout | undefined
  /** False once the worker could not be started: the work runs on the calling thread from then on. */
  #available = true

  constructor(options: PoolOptions = {}) {
    this.#timeLimit = options.timeLimitMs ?? JOB_TIME_LIMIT_MS
    this.#exportTimeLimit = options.exportTimeLimitMs ?? EXPORT_TIME_LIMIT_MS
    this.#idleMs = options.idleMs ?? IDLE_MS
    this.#limits = options.resourceLimits ?? WORKER_LIMITS
    this.#script = options.script ?? entryScript('import-worker', import.meta.url)
    this.#log = options.log ?? console
  }

  /** Whether jobs run in the worker thread (false once its script could not be started: on the calling thread). */
  get offThread(): boolean {
    return this.#available
  }

  /** Whether a worker thread is up now (between a job and IDLE_MS after the last one). */
  get threadUp(): boolean {
    return this.#worker !== undefined
  }

  /** Parse a request body as JSON in the worker; its bytes are handed over, not copied (the caller must not reuse them). */
  async parseJson(bytes: Buffer): Promise<ParseOutcome> {
    if (!this.#available) return answerOf(here({ id: 0, kind: 'json', bytes }))
    // Handed over when the bytes are the whole of a memory Node lets go (a large body's own); else copied once, as a
    // pooled buffer's memory would go with its neighbours'.
    const whole =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !isMarkedAsUntransferable(bytes.buffer)
    const own = whole ? bytes : new Uint8Array(bytes)
    return answerOf(await this.#run({ id: this.#nextId++, kind: 'json', bytes: own }, [own.buffer as ArrayBuffer]))
  }

  /** Read the file arguments of an import, one job each, in order. */
  async readFiles(files: readonly unknown[]): Promise<FileRead[]> {
    if (!this.#available) return files.map((f, i) => readFile(f, i, readContext()))
    if (this.#queue.length + files.length > QUEUE_LIMIT) {
      throw new StoreError(
        'locked',
        `the importer already has ${this.#queue.length} files waiting; import again in a moment`,
      )
    }
    const answers = await Promise.all(
      files.map((file, index) => this.#run({ id: this.#nextId++, kind: 'file', file, index }, [])),
    )
    return answers.map((a, i) => (a.kind === 'file' ? a.read : cutShort(files[i], i, note('unreadable'))))
  }

  /**
   * Read a ChatGPT or Claude data export in the worker (lib/learn/export-read.ts): its conversations, held as text
   * (lib/learn/export-parts.ts), or why it cannot be read. The bytes are handed over, not copied (the caller must not
   * reuse them).
   */
  async readExport(bytes: Uint8Array): Promise<HeldRead> {
    if (!this.#available) return heldRead(readExport(bytes))
    const whole =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !isMarkedAsUntransferable(bytes.buffer)
    const own = whole ? bytes : new Uint8Array(bytes)
    const sent = new HeldConversations()
    const job: WorkerJob = { id: this.#nextId++, kind: 'export', bytes: own }
    const answer = await this.#run(job, [own.buffer as ArrayBuffer], sent)
    if (answer.kind !== 'export') throw new Error('import worker: an export job answered as another kind')
    return heldRead(answer.read, sent)
  }

  /** Stop the worker; jobs still waiting end as failed. */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#idle)
    for (const p of this.#queue.splice(0)) p.settle(failed(p.job, 'closed'))
    const running = this.#running
    if (running !== undefined) {
      running.timer.stop()
      this.#running = undefined
      running.pending.settle(failed(running.pending.job, 'closed'))
    }
    const worker = this.#worker
    this.#worker = undefined
    await worker?.terminate()
  }

  #run(job: WorkerJob, transfer: ArrayBuffer[], held?: HeldConversations): Promise<WorkerAnswer> {
    return new Promise((resolve) => {
      const pending = { job, transfer, settle: resolve, ...(held === undefined ? {} : { held }) }
      if (this.#closed) return resolve(failed(job, 'closed'))
      this.#queue.push(pending)
      this.#next()
    })
  }

  /** Start the next waiting job when the worker is free. */
  #next(): void {
    if (this.#running !== undefined || this.#closed) return
    const pending = this.#queue.shift()
    if (pending === undefined) return this.#endWhenIdle()
    clearTimeout(this.#idle)
    const worker = this.#worker ?? this.#start()
    const limit = this.#limitOf(pending.job)
    // A thread still loading gets its start on top, in wall time (no job runs yet); READY starts the job's own limit.
    this.#running = {
      pending,
      timer: this.#ready ? this.#timer(worker, limit) : wallLimit(START_LIMIT_MS + limit, (o) => this.#lost(o)),
      reads: [],
    }
    worker.ref()
    worker.postMessage(pending.job, pending.transfer)
  }

  /** End the worker once it has had no job for IDLE_MS. */
  #endWhenIdle(): void {
    clearTimeout(this.#idle)
    if (this.#worker === undefined) return
    this.#idle = setTimeout(() => {
      const worker = this.#worker
      if (this.#running !== undefined || worker === undefined) return
      this.#worker = undefined
      void worker.terminate()
    }, this.#idleMs)
    this.#idle.unref()
  }

  /** The time limit of what `worker` does next: a job, or the next file of a body. */
  #timer(worker: Worker, limit = this.#timeLimit): JobLimit {
    return cpuLimit(worker, limit, (o) => this.#lost(o))
  }

  #start(): Worker {
    const worker = new Worker(this.#script, { resourceLimits: this.#limits, stdout: false, stderr: false })
    worker.on('message', (answer: WorkerAnswer | typeof READY) => {
      if (answer === READY) {
        if (worker !== this.#worker) return
        this.#ready = true
        // READY comes before any answer, so the job out has its start on top of its own limit: restart that.
        const running = this.#running
        if (running !== undefined) {
          running.timer.stop()
          running.timer = this.#timer(worker, this.#limitOf(running.pending.job))
        }
        return
      }
      const running = this.#running
      if (worker !== this.#worker || running === undefined || running.pending.job.id !== answer.id) return
      if (answer.kind === 'part') return void running.pending.held?.take(answer.part)
      if (answer.kind === 'head' || answer.kind === 'read') {
        if (answer.kind === 'head') running.head = answer.value
        else running.reads.push(answer.read)
        // Each file of a body has the time limit to itself.
        running.timer.stop()
        running.timer = this.#timer(worker)
        return
      }
      running.timer.stop()
      this.#running = undefined
      // An idle worker must not keep the host process alive.
      worker.unref()
      if (answer.kind === 'export') running.pending.settle(answer)
      else
        running.pending.settle(
          running.head !== undefined
            ? { id: answer.id, kind: 'json', ok: true, value: running.head, reads: running.reads }
            : answer,
        )
      this.#next()
    })
    worker.on('error', (e: Error & { code?: string }) => {
      if (worker !== this.#worker) return
      // An error before its script loaded is a script that cannot run, not a file's fault.
      if (!this.#ready) return this.#unavailable(e)
      this.#lost(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crashed', e)
    })
    worker.on('exit', () => {
      if (worker === this.#worker) this.#lost('crashed')
    })
    this.#worker = worker
    this.#ready = false
    return worker
  }

  /** The time limit of a job: an export's own, every other job's per file. */
  #limitOf(job: WorkerJob): number {
    return job.kind === 'export' ? this.#exportTimeLimit : this.#timeLimit
  }

  /** The worker's script could not start (missing from dist/, say): this job and every later one run here. */
  #unavailable(error: Error): void {
    this.#available = false
    this.#worker = undefined
    this.#log.warn(
      `agent-profiles: the import worker ${this.#script.href} could not start (${errorText(error)}); imports are read on the host's event loop`,
    )
    const running = this.#running
    this.#running = undefined
    running?.timer.stop()
    for (const p of [...(running === undefined ? [] : [running.pending]), ...this.#queue.splice(0)])
      p.settle(here(p.job))
  }

  /**
   * The worker is gone or must go (a job went past its time limit, ran out of memory, or the thread died): fail its
   * job, go on.
   */
  #lost(why: Overrun | 'memory' | 'crashed', error?: Error): void {
    const worker = this.#worker
    this.#worker = undefined
    if (worker !== undefined) void worker.terminate()
    const running = this.#running
    this.#running = undefined
    if (running !== undefined) {
      running.timer.stop()
      if (why === 'crashed')
        this.#log.warn(
          `agent-profiles: the import worker stopped while reading a file${error === undefined ? '' : `: ${errorText(error)}`}`,
        )
      running.pending.settle(
        running.head === undefined
          ? failed(running.pending.job, why)
          : cutBody(running.pending.job.id, running.head, running.reads, why),
      )
    }
    this.#next()
  }
}

/** Why the worker could not finish a job: past a time limit, out of memory, its thread died, or the pool closed. */
type Unfinished = Overrun | 'memory' | 'crashed' | 'closed'

/**
 * The refusal a file or an export gets for why: a limit of processor time says so (the time a slow machine gives
 * other processes is not the file's), a limit of wall time says the read did not finish within it.
 */
function refusal(why: Unfinished): ImportNote {
  if (why === 'memory') return note('tooBig')
  if (typeof why === 'string') return note('unreadable')
  return note(why.clock === 'cpu' ? 'tooSlow' : 'notFinished', { seconds: Math.round(why.ms / 100) / 10 })
}

/**
 * A body whose files the worker stopped in: the files read stand, the one it stopped at is failed by why, and the
 * ones after it are named as not reached (the user imports them again).
 */
function cutBody(id: number, head: Record<string, unknown>, reads: FileRead[], why: Unfinished): WorkerAnswer {
  const files = head.files as unknown[]
  if (reads.length >= files.length) return { id, kind: 'json', ok: true, value: head, reads }
  const stopped = cutShort(files[reads.length], reads.length, refusal(why))
  const rest = files.slice(reads.length + 1).map((f, i) => cutShort(f, reads.length + 1 + i, note('notReached')))
  return { id, kind: 'json', ok: true, value: head, reads: [...reads, stopped, ...rest] }
}

/** The outcome of a job the worker could not finish. */
function failed(job: WorkerJob, why: Unfinished): WorkerAnswer {
  if (job.kind === 'export')
    return { id: job.id, kind: 'export', read: { ok: false, error: { ...refusal(why), field: 'file' } } }
  if (job.kind === 'file') return { id: job.id, kind: 'file', read: cutShort(job.file, job.index, refusal(why)) }
  const seconds = typeof why === 'string' ? 0 : Math.round(why.ms / 100) / 10
  const message =
    why === 'memory'
      ? 'the body needs more memory to parse than a request may use'
      : typeof why === 'string'
        ? 'the body could not be parsed'
        : why.clock === 'cpu'
          ? `parsing the body used over ${seconds} s of processor time`
          : `the body was not parsed within ${seconds} s`
  return { id: job.id, kind: 'json', ok: false, message }
}

/**
 * The context files are read in, on whichever thread: the time of reading, and random ids for the memory items a file
 * brings without one (as the store makes its own: unique, never derived from the file).
 */
function readContext(): OpContext {
  return { now: Date.now(), newId: (prefix) => `${prefix}-${randomUUID().slice(0, 12)}` }
}

/**
 * An export read as the host keeps it: its conversations as text, those its parts brought (`sent`) before the
 * worker's answer (which then holds none), and those the read holds itself (read on this thread), packed here.
 */
function heldRead(read: ExportRead, sent?: HeldConversations): HeldRead {
  if (!read.ok) return read
  const { service, conversations } = read.export
  return { ok: true, export: { service, conversations: holdConversations(conversations, sent) } }
}

/** A parse job's answer as the route takes it: an import's files already read ride with it (READ_FILES). */
function answerOf(answer: WorkerAnswer): ParseOutcome {
  if (answer.kind !== 'json') throw new Error('import worker: a json job answered as a file')
  if (!answer.ok) return { ok: false, message: answer.message }
  if (answer.reads !== undefined) Object.assign(answer.value as object, { [READ_FILES]: answer.reads })
  return { ok: true, value: answer.value }
}

/** A body the worker reads the files of while it parses it: an import whose file list the command would take. */
function isImport(v: unknown): v is { files: unknown[] } & Record<string, unknown> {
  const o = v as { op?: unknown; files?: unknown } | null
  return (
    typeof o === 'object' &&
    o !== null &&
    o.op === 'profiles.importFiles' &&
    Array.isArray(o.files) &&
    o.files.length > 0 &&
    o.files.length <= LIMITS.profiles
  )
}

/** A file argument as the command's head carries it: what names it in its outcome, without its content. */
function stub(file: unknown): { name?: unknown; format?: unknown } {
  const o = typeof file === 'object' && file !== null ? (file as Record<string, unknown>) : {}
  return { name: typeof o.name === 'string' ? o.name.slice(0, 255) : undefined, format: o.format }
}

/**
 * The worker's handling of one job, posting as it goes: a body that is an import gives its head, then each file as
 * read, then its answer; any other job its answer alone. `post` is given, with an answer, the buffers it may hand
 * over instead of copying (an own file's packed items, packed-items.ts): the worker no longer uses them.
 */
export function work(job: WorkerJob, post: (answer: WorkerAnswer, transfer?: ArrayBuffer[]) => void): void {
  if (job.kind === 'export') {
    const packer = new PartPacker((part) => post({ id: job.id, kind: 'part', part }))
    const read = readExport(job.bytes, EXPORT_LIMITS, (c) => packer.add(c))
    if (read.ok) packer.flush()
    return post({ id: job.id, kind: 'export', read })
  }
  const answer = here(job)
  if (answer.kind === 'file' && job.kind === 'file') {
    const read = packOwn(job.file, answer.read)
    return post({ ...answer, read }, packedBuffers(read))
  }
  if (answer.kind !== 'json' || !answer.ok || !isImport(answer.value)) return post(answer)
  const { files, ...rest } = answer.value
  post({ id: job.id, kind: 'head', value: { ...rest, files: files.map(stub) } })
  const ctx = readContext()
  files.forEach((file, index) => {
    const read = packOwn(file, readFile(file, index, ctx))
    post({ id: job.id, kind: 'read', read }, packedBuffers(read))
  })
  post({ id: job.id, kind: 'json', ok: true, value: null })
}

/**
 * The read of a file the user marked as their own with its memory items as bytes to hand over (packed-items.ts): only
 * such a file may be large, and decoding its items, as objects or even as text, would hold the host's event loop for
 * the whole file at once.
 */
function packOwn(file: unknown, read: FileRead): FileRead {
  return typeof file === 'object' && file !== null && (file as { own?: unknown }).own === true ? packRead(read) : read
}

/** A file the worker could not finish reading (or did not reach), as its outcome. */
function cutShort(file: unknown, index: number, why: ImportNote): FileRead {
  const o = typeof file === 'object' && file !== null ? (file as Record<string, unknown>) : {}
  const name = typeof o.name === 'string' ? o.name : `files[${index}]`
  const format = o.format === 'markdown' || o.format === 'envelope' ? o.format : 'card'
  return { name, format, warnings: [], error: { ...why, field: 'file' } }
}

/** A job done on this thread: the worker's own work (import-worker.ts), and the fallback when no worker can start. */
function here(job: WorkerJob): WorkerAnswer {
  if (job.kind === 'export') return { id: job.id, kind: 'export', read: readExport(job.bytes) }
  if (job.kind === 'file') return { id: job.id, kind: 'file', read: readFile(job.file, job.index, readContext()) }
  try {
    return { id: job.id, kind: 'json', ok: true, value: JSON.parse(new TextDecoder().decode(job.bytes)) as unknown }
  } catch (e) {
    return { id: job.id, kind: 'json', ok: false, message: errorText(e) }
  }
}
