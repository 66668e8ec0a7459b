/**
 * Learning from another assistant's data export, as the page and the host both see it: the bytes and content types an
 * export may be sent as, what an export was found to hold, what the user picks to learn from (its schema, read at the
 * door of `POST /__ap/learn/plan`), and the plan of what learning it costs. Owns these shapes only; reading is
 * lib/learn/export-read.ts, the routes' entries are in wire-table.ts and their handlers in lib/http/routes-learn.ts.
 */
import * as z from 'zod'
import type { FileError } from './import-notes.ts'
import { id, oneOf, strict, text, time } from '../state/schema-kit.ts'

/**
 * Bytes of an export file (the zip, or conversations.json sent alone): a heavy user's ChatGPT export of years of daily
 * use reaches 100–200 MB with its pictures. A body declared larger is refused before a byte is read.
 */
export const EXPORT_FILE_BYTES = 256 * 1024 * 1024

/** The content types an export may be sent as: its zip, its JSON, or bytes the browser could not name. */
export const EXPORT_TYPES = [
  'application/zip',
  'application/x-zip-compressed',
  'application/json',
  'application/octet-stream',
]

/** What the export read holds: its service, its counts and the days it covers (ms; 0 when nothing is dated). */
export interface LearnFound {
  service: 'chatgpt' | 'claude' | 'dsh'
  conversations: number
  messages: number
  from: number
  to: number
}

/** The answer of reading an export: what it holds, or why it cannot be read (worded by the page); none read yet: neither. */
export interface LearnExportReply {
  found?: LearnFound
  refused?: FileError
}

/** Characters of a workspace's path a past-conversations read may name (within the settings body cap, in any script). */
const CWD_CHARS = 1024

/**
 * `POST /__ap/learn/past`: read the user's own past dsh conversations to learn from, those of one workspace (its
 * folder, as the sessions name it) or, without `cwd`, of every workspace. The days are picked afterwards, as for an
 * export.
 */
export const LearnPastBody = strict({ cwd: text({ limit: CWD_CHARS, required: true, singleLine: true }).optional() })

/**
 * What reading the past conversations found, the workspaces there are to pick from (their folders), and how many of
 * those picked the host could not read (left out; the rest are learned from).
 */
export interface LearnPastReply extends LearnExportReply {
  workspaces: string[]
  unread: number
}

/** Which memory learns: About you, or a profile's. */
export type LearnInto = { user: true } | { profileId: string }

/** Characters of the word a pick may name, and of a model's provider or name. */
const PICK_WORD_CHARS = 200
const MODEL_CHARS = 200

/** `{user: true}` or `{profileId}`: the one field a pick must name. */
const into = z.custom<LearnInto>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    (((v as Record<string, unknown>).user === true && Object.keys(v).length === 1) ||
      (id.safeParse((v as Record<string, unknown>).profileId).success && Object.keys(v).length === 1)),
  { error: 'must be {"user": true} or {"profileId": …}' },
)

/** `POST /__ap/learn/plan` (and the run's start): a {@link LearnPick}, each field refused naming it and its limit. */
export const LearnPickBody = strict({
  from: time.optional(),
  to: time.optional(),
  word: text({ limit: PICK_WORD_CHARS }).optional(),
  into,
  model: strict({
    provider: text({ limit: MODEL_CHARS, required: true, singleLine: true }),
    model: text({ limit: MODEL_CHARS, required: true, singleLine: true }),
  }).optional(),
})

/** What to learn from: the conversations of a day range (ms, inclusive; absent: open) and naming a word. */
export interface LearnPick {
  from?: number
  to?: number
  word?: string
  into: LearnInto
  /** The model the calls go to; absent: dsh's default model. */
  model?: { provider: string; model: string }
}

/** What learning a pick costs: the conversations picked, their messages, the model calls and the tokens. */
export interface LearnPlanReply {
  conversations: number
  messages: number
  calls: number
  /** Tokens the requests send, the extraction's system prompt included. */
  inputTokens: number
  /** The most the answers may take. */
  outputTokens: number
}

/**
 * Where a learning run stands: `running` (calls go out one after another), `paused` (by the user, or by a dsh that
 * stopped mid-run until it starts again), `failed` (a model call or its answer failed, or the memory that learns is
 * gone or remembers nothing now; resuming retries the call that failed), `canceled`, `done`.
 */
export type LearnRunState = 'running' | 'paused' | 'failed' | 'canceled' | 'done'

/** Why a run stopped by itself: the model call, its answer, the memory that learns, the disk. */
export type LearnFailure = 'model' | 'answer' | 'target' | 'disk'

/** A learning run as the page shows it. */
export interface LearnRunStatus {
  /** The run's id, which every suggestion it brought carries ("undo this import"). */
  id: string
  state: LearnRunState
  into: LearnInto
  service: 'chatgpt' | 'claude' | 'dsh'
  /** Model calls answered, of `total`. */
  done: number
  total: number
  /**
   * Conversations done (every call of theirs answered), of those the run learns: what the bar counts. A run kept by
   * a version of before has none; the page counts its calls then.
   */
  conversations?: { done: number; total: number }
  /** Suggestions the run added so far. */
  facts: number
  failure?: LearnFailure
}

/** The learning run of this data, the last one when none runs; none yet: no `run`. */
export interface LearnRunReply {
  run?: LearnRunStatus
}

/** `POST /__ap/learn/control`: pause, resume or cancel the run. */
export const LearnControlBody = strict({ action: oneOf(['pause', 'resume', 'cancel']) })
