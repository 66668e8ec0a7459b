/**
 * A learning run kept on disk beside the data, so a dsh that stops mid-run resumes it where it stood: the run's head
 * and progress (`learn-run.json`: a few hundred bytes, written again after each answered call) and its calls'
 * material (`learn-calls.json`: written once, when the run starts); and where the list of past dsh conversations
 * runs learned is kept (`learn-past.txt`, read and written by learn-past-file.ts). Both are written to a temporary
 * name and renamed over the old one, so a crash leaves the old file or the new one, never half of either, and are
 * readable by the user alone. The calls (up to 5,000 of 6,000 characters: 30 million characters, up to 90 MB as
 * UTF-8) are written and read a line a call, a piece at a time, the host's loop free between two pieces: made in one
 * piece, their JSON held the loop for half a second at rest and stood beside the calls as a second copy, three times
 * their size in bytes. Reading is bounded (a size cap, then a line at a time) and checks every field and that the
 * calls are those of the head's run: a file that is not what this module wrote for that run reads as no calls. It
 * lives with the store, the one room that touches the data's files; the run itself is lib/learn/run/runner.ts's. It
 * never calls the model and never writes the memory.
 */
import { createReadStream, type ReadStream } from 'node:fs'
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import writeFileAtomic from 'write-file-atomic'
import { syncDir } from './db/avatars.ts'
import { FILE_MODE, makePrivateDir } from './db/private-files.ts'
import type { LearnFailure, LearnInto, LearnRunState } from '../shared/learn.ts'
import type { ExportService } from '../learn/conversation.ts'

/** One call of a run: its material, and what its facts say of where they came from. */
export interface RunCall {
  material: string
  service: ExportService
  title: string
  /** When the conversation took place (ms; 0 when the export does not say). */
  at: number
  /** The past dsh conversation (session id) it reads, for a run over the user's own past conversations. */
  session?: string
  /**
   * Which of the run's conversations it reads (0 for the first one that has calls, then 1, …): the page counts
   * conversations done, not calls. Calls a run kept before this was written have none.
   */
  conversation?: number
}

/** A run's head and progress. */
export interface RunHead {
  id: string
  into: LearnInto
  /** The model its calls go to. */
  route: { provider: string; model: string }
  service: ExportService
  state: LearnRunState
  /** Calls answered: the next call to send is `calls[next]`. */
  next: number
  total: number
  /**
   * The run's conversations that have calls, and how many of them are done (every call answered): what the page
   * shows. A head written before these were kept has neither, and the page shows calls instead.
   */
  conversations?: number
  conversationsDone?: number
  facts: number
  failure?: LearnFailure
  /** The process running it, so a second dsh on the same data does not run it too. */
  pid: number
}

/** Bytes of the calls file at most: the most calls a run takes at the extraction's widest excerpt, in UTF-8. */
const CALLS_BYTES = 256 * 1024 * 1024
const HEAD_BYTES = 64 * 1024
/** Characters of the calls file written in one piece (a few milliseconds of JSON on an idle machine). */
const PIECE_CHARS = 200_000

/** The files of the run of the data in `dataFile`'s directory, and the list of past conversations runs learned. */
export function runFiles(dataFile: string): RunFiles {
  const dir = dirname(dataFile)
  return {
    head: join(dir, 'learn-run.json'),
    calls: join(dir, 'learn-calls.json'),
    learned: join(dir, 'learn-past.txt'),
  }
}

/** Where a run is kept (see {@link runFiles}). */
export interface RunFiles {
  head: string
  calls: string
  learned: string
}

/** Write `text` to `path` whole: a private temporary file, flushed, renamed over it, the rename made durable. */
export async function writeWhole(path: string, text: string): Promise<void> {
  // A fresh home has no data directory until the first save: the run may come first.
  makePrivateDir(dirname(path))
  await writeFileAtomic(path, text, { fsync: true, mode: FILE_MODE })
  await syncDir(dirname(path))
}

/** The JSON of `path` when it exists and is within `cap` bytes; undefined otherwise. */
async function readCapped(path: string, cap: number): Promise<unknown> {
  try {
    if ((await stat(path)).size > cap) return undefined
    return JSON.parse(await readFile(path, 'utf8')) as unknown
  } catch {
    return undefined
  }
}

const STATES: readonly LearnRunState[] = ['running', 'paused', 'failed', 'canceled', 'done']
/** The sources a kept run may name (a head naming another is not ours to resume). */
const SERVICES: readonly ExportService[] = ['chatgpt', 'claude', 'dsh']
const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
const str = (v: unknown): v is string => typeof v === 'string'

/** The run's head as this module wrote it; undefined for no file or anything else. */
export async function readHead(path: string): Promise<RunHead | undefined> {
  const v = (await readCapped(path, HEAD_BYTES)) as Partial<RunHead> | undefined
  if (typeof v !== 'object' || v === null || !str(v.id) || !STATES.includes(v.state as LearnRunState)) return undefined
  if (!count(v.next) || !count(v.total) || !count(v.facts) || !count(v.pid) || v.next > v.total) return undefined
  if (!conversationsOk(v)) return undefined
  const into = v.into as Record<string, unknown> | undefined
  if (into?.user !== true && !str(into?.profileId)) return undefined
  if (!str(v.route?.provider) || !str(v.route.model) || !(SERVICES as readonly unknown[]).includes(v.service))
    return undefined
  return v as RunHead
}

/** Whether a head's conversation counts are both absent (a head of before they were kept) or both counts in order. */
function conversationsOk(v: Partial<RunHead>): boolean {
  if (v.conversations === undefined && v.conversationsDone === undefined) return true
  return count(v.conversations) && count(v.conversationsDone) && v.conversationsDone <= v.conversations
}

/** Whether `c` is a call as this module writes it. */
function isCall(c: Partial<RunCall> | null): c is RunCall {
  return (
    typeof c === 'object' &&
    c !== null &&
    str(c.material) &&
    str(c.title) &&
    count(c.at) &&
    str(c.service) &&
    (c.session === undefined || str(c.session)) &&
    (c.conversation === undefined || count(c.conversation))
  )
}

/**
 * Write run `run`'s calls to `path`: its first line names the run and how many calls it holds, then a line a call,
 * written to a private temporary file a piece at a time (the loop turns while the disk writes each), flushed, and
 * renamed over the old file, the rename made durable. A temporary file a killed dsh left is removed first (it holds
 * the user's words, kept no longer than needed); one another dsh is writing at that moment fails its rename, and
 * that start is refused (one run per data).
 */
export async function writeCalls(path: string, run: string, calls: readonly RunCall[]): Promise<void> {
  const dir = dirname(path)
  makePrivateDir(dir)
  await dropTemporaries(path)
  const temp = `${path}.${process.pid}.tmp`
  const file = await open(temp, 'w', FILE_MODE)
  try {
    let piece = `${JSON.stringify({ run, total: calls.length })}\n`
    for (const call of calls) {
      const line = `${JSON.stringify(call)}\n`
      if (piece.length + line.length > PIECE_CHARS) {
        await file.write(piece)
        piece = ''
      }
      piece += line
    }
    await file.write(piece)
    await file.sync()
  } catch (error) {
    await file.close()
    await rm(temp, { force: true })
    throw error
  }
  await file.close()
  await rename(temp, path)
  await syncDir(dir)
}

/** Remove the temporary files of calls files a write left behind. */
async function dropTemporaries(path: string): Promise<void> {
  const name = basename(path)
  const left = (await readdir(dirname(path))).filter((f) => f.startsWith(`${name}.`) && f.endsWith('.tmp'))
  await Promise.all(left.map((f) => rm(join(dirname(path), f), { force: true })))
}

/**
 * Run `run`'s calls as this module wrote them (`total` of them), read a line at a time; undefined for no file, a file
 * past the cap, one of another run, or anything else.
 */
export async function readCalls(path: string, run: string, total: number): Promise<RunCall[] | undefined> {
  let input: ReadStream | undefined
  try {
    if ((await stat(path)).size > CALLS_BYTES) return undefined
    input = createReadStream(path, { encoding: 'utf8' })
    const lines = createInterface({ input, crlfDelay: Infinity })
    const calls: RunCall[] = []
    let named = false
    for await (const line of lines) {
      if (!named) {
        const head = JSON.parse(line) as { run?: unknown; total?: unknown } | null
        if (head?.run !== run || head.total !== total) return undefined
        named = true
        continue
      }
      const call = JSON.parse(line) as Partial<RunCall> | null
      if (calls.length === total || !isCall(call)) return undefined
      calls.push(call)
    }
    return named && calls.length === total ? calls : undefined
  } catch {
    return undefined
  } finally {
    input?.destroy()
  }
}

/** Remove the calls file of a run that ended (its material is the user's conversations, kept no longer than needed). */
export async function dropCalls(path: string): Promise<void> {
  await rm(path, { force: true })
  await dropTemporaries(path).catch(() => undefined)
}
