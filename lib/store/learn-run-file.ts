/**
 * A learning run kept on disk beside the data, so a dsh that stops mid-run resumes it where it stood: the run's head
 * and progress (`learn-run.json`: a few hundred bytes, written again after each answered call) and its calls'
 * material (`learn-calls.json`: written once, when the run starts); and where the list of past dsh conversations
 * runs learned is kept (`learn-past.txt`, read and written by learn-past-file.ts). The first two are written whole
 * to a temporary name and renamed over the old one, so a crash leaves the old file or the new one, never half of
 * either, and is readable by the user alone. Reading is bounded (a size cap, then JSON.parse of at most that) and checks every field: a file
 * that is not what this module wrote reads as no run. It lives with the store, the one room that touches the data's
 * files; the run itself is lib/learn/run/runner.ts's. It never calls the model and never writes the memory.
 */
import { readFile, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
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
  facts: number
  failure?: LearnFailure
  /** The process running it, so a second dsh on the same data does not run it too. */
  pid: number
}

/** Bytes of the calls file at most: the most calls a run takes at the extraction's widest excerpt, in UTF-8. */
const CALLS_BYTES = 256 * 1024 * 1024
const HEAD_BYTES = 64 * 1024

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
  const into = v.into as Record<string, unknown> | undefined
  if (into?.user !== true && !str(into?.profileId)) return undefined
  if (!str(v.route?.provider) || !str(v.route.model) || !(SERVICES as readonly unknown[]).includes(v.service))
    return undefined
  return v as RunHead
}

/** The run's calls as this module wrote them; undefined for no file or anything else. */
export async function readCalls(path: string): Promise<RunCall[] | undefined> {
  const v = await readCapped(path, CALLS_BYTES)
  if (!Array.isArray(v)) return undefined
  const ok = v.every(
    (c: Partial<RunCall> | null) =>
      typeof c === 'object' &&
      c !== null &&
      str(c.material) &&
      str(c.title) &&
      count(c.at) &&
      str(c.service) &&
      (c.session === undefined || str(c.session)),
  )
  return ok ? (v as RunCall[]) : undefined
}

/** Remove the calls file of a run that ended (its material is the user's conversations, kept no longer than needed). */
export async function dropCalls(path: string): Promise<void> {
  await rm(path, { force: true })
}
