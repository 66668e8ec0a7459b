/**
 * Learning from another assistant's data export, as the page and the host both see it: the routes, what an export
 * was found to hold, what the user picks to learn from, and the plan of what learning it costs. Owns these shapes
 * only; reading is lib/learn/export-read.ts, the routes lib/http/learn-routes.ts.
 */
import { API_BASE } from './contract.ts'
import type { FileError } from './import-notes.ts'

/** `POST` the export's bytes (the zip, or conversations.json) to read it; `GET` what the last one read held. */
export const LEARN_EXPORT_PATH = `${API_BASE}/learn/export`

/** `POST` a {@link LearnPick}: the plan of learning it, before anything is spent. */
export const LEARN_PLAN_PATH = `${API_BASE}/learn/plan`

/** The content types an export may be sent as: its zip, its JSON, or bytes the browser could not name. */
export const EXPORT_TYPES = [
  'application/zip',
  'application/x-zip-compressed',
  'application/json',
  'application/octet-stream',
]

/** What the export read holds: its service, its counts and the days it covers (ms; 0 when nothing is dated). */
export interface LearnFound {
  service: 'chatgpt' | 'claude'
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

/** Which memory learns: About you, or a profile's. */
type LearnInto = { user: true } | { profileId: string }

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
