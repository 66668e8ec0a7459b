/**
 * When this machine last pushed to its personal repository, and what (the commit and its subject), kept in a small
 * file beside the clone (`<clone>.push.json`) so that the page and Diagnostics still say it after dsh restarts. The
 * file is written atomically (write-file-atomic: a crash of dsh leaves the old record or the new one, never half of
 * one), readable by the user alone, and names the remote and branch it is about: after the settings change to another
 * repository the record of the old one is not shown. Read once at start within a size cap and a schema; a file that
 * is too large, not JSON or breaks the schema is refused with a log line naming the file and the rule, and the sync
 * goes on as if nothing had been pushed yet. It never throws into the engine and never touches the clone.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import writeFileAtomic from 'write-file-atomic'
import { z } from 'zod'
import { FILE_MODE } from '../store/db/private-files.ts'
import { REMOTE_LIMIT } from '../shared/sync.ts'
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'

/** The most bytes the record file may hold: a record is a few hundred bytes; more is not ours. */
const RECORD_BYTES = 4_096
/** The most characters of a pushed commit's subject kept (a commit message of this plugin's is one short line). */
const SUBJECT_CHARS = 200

const Record = z.strictObject({
  at: z.number().int().positive().max(8.64e15),
  commit: z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/),
  subject: z.string().max(SUBJECT_CHARS),
  remote: z.string().max(REMOTE_LIMIT),
  branch: z.string().max(REMOTE_LIMIT),
})

/** A push as the page shows it: when, which commit, its subject. */
export interface PushRecord {
  at: number
  commit: string
  subject: string
}

/** The last push of one clone's remote and branch, read at start and written after each push. */
export class LastPush {
  readonly file: string
  readonly #where: { remote: string; branch: string }
  readonly #log: Pick<Log, 'warn'>
  #record: PushRecord | undefined

  constructor(clone: { dir: string; remote: string; branch: string }, log: Pick<Log, 'warn'>) {
    this.file = `${clone.dir}.push.json`
    this.#where = { remote: clone.remote, branch: clone.branch }
    this.#log = log
    try {
      this.#record = this.#read()
    } catch (e) {
      log.warn(`agent-profiles: sync: the last push record ${this.file} is refused (${errorText(e)}); it is ignored`)
    }
  }

  /** The last push this machine made to the remote and branch (undefined: none known). */
  get record(): PushRecord | undefined {
    return this.#record
  }

  /** Keep `record` as the last push (shown at once; the file is written before this answers, a failure logged). */
  async pushed(record: PushRecord): Promise<void> {
    const r = { ...record, subject: record.subject.slice(0, SUBJECT_CHARS) }
    this.#record = r
    try {
      // No fsync: the record only tells the user something, and a flush here, after every push, would contend with
      // the store's own synchronous commits on the same disk. The rename keeps it whole across a crash of dsh; after
      // a power loss an empty file is refused at start like any bad record, and the next push writes it again.
      await writeFileAtomic(this.file, `${JSON.stringify({ ...r, ...this.#where })}\n`, {
        fsync: false,
        mode: FILE_MODE,
      })
    } catch (e) {
      this.#log.warn(`agent-profiles: sync: the last push could not be recorded in ${this.file}: ${errorText(e)}`)
    }
  }

  /** The record in the file (undefined: no file, or one about another remote or branch); throws naming the rule. */
  #read(): PushRecord | undefined {
    let fd: number
    try {
      fd = openSync(this.file, 'r')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw e
    }
    let text: string
    try {
      const size = fstatSync(fd).size
      if (size > RECORD_BYTES) throw new Error(`it is ${size} bytes, over the limit of ${RECORD_BYTES}`)
      const buf = Buffer.alloc(size)
      const got = readSync(fd, buf, 0, size, 0)
      text = buf.subarray(0, got).toString('utf8')
    } finally {
      closeSync(fd)
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new Error('it is not JSON')
    }
    const r = Record.safeParse(value)
    if (!r.success) {
      const issue = r.error.issues[0]
      throw new Error(`${issue?.path.join('.') || 'the record'}: ${issue?.message ?? 'malformed'}`)
    }
    const { remote, branch, ...record } = r.data
    return remote === this.#where.remote && branch === this.#where.branch ? record : undefined
  }
}
