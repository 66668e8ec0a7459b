/**
 * What each part of the host reports about itself for the settings page's diagnostics (meta.ts carries them under
 * each part's key): the background runs and why one was skipped or failed, injection, the memory tool, skills, tool
 * profiles, models, recall and the pass that forgets conversations. Types only; no behaviour.
 */
import type { ModelUnavailable, FailReason, SkipReason, Warning } from './reasons.ts'
import type { MessageValue } from './notices.ts'
import type { ToolSize } from './tool-profiles.ts'
import type { UnavailableDetail } from './models.ts'

/** What the pass that forgets conversations the host no longer has did last (meta `sessionPrune`). */
export interface PruneStatus {
  lastRun: number | null
  /** Conversations missing from the last listing, forgotten if the next one lacks them too. */
  pending: number
  forgotten: number
  skipped: string | null
}

/** Why a line of a background answer was not kept. */
export type DropReason =
  /** "Nothing new" in any wording, bulleted or not. */
  | 'nothing'
  /** A line that introduces others: a heading, or a line ending in a colon ("以下是新的长期事实："). */
  | 'preface'
  /** A remark about the answer itself ("注：以上为新增事实，已去重。"). */
  | 'note'
  /** Any other line that is not a bullet: the protocol keeps only bullets. */
  | 'prose'
  /** Code fences and horizontal rules: wrappers around the answer. */
  | 'fence'
  /** JSON, tags, tables, control characters. */
  | 'markup'
  | 'secret'
  | 'too-long'
  /** Already known, or said twice in the answer (compared normalized). */
  | 'duplicate'
  /** Past the number of facts one run may keep. */
  | 'over-limit'

/** Dropped lines counted by reason; reasons that did not occur are absent. */
export type Dropped = Partial<Record<DropReason, number>>

/** Which job ran, on what, when and for how long. */
interface RunStamp {
  job: 'extract' | 'compress'
  /** Conversation (extraction) or profile (compression) it worked on. */
  sessionId?: string
  profileId?: string
  at: number
  ms: number
}

/** What one background run came to, whatever its outcome. */
interface RunFigures {
  /** Profile its facts went to (extraction). */
  profileId?: string
  /** Items written. */
  added?: number
  /** Of those, how many replaced a known fact (which left the prompt and stays in the history). */
  replaced?: number
  sentChars?: number
  sentTokens?: number
  /** Why it was skipped or how it failed; for a run that dropped lines, which ones. For the log, in English: the
   * page says `skip` or `failure` instead. */
  reason?: string
  /** Lines of the answer not kept, by reason (absent when none were dropped). */
  dropped?: Dropped
}

/**
 * One background run: a skipped run says why and a failed one how, each as a key the page words
 * (lib/shared/reasons.ts) with the values of its wording; a failed call also carries the provider's own text
 * (`detail`), which the page quotes after its sentence and never in place of it.
 */
export type RunRecord = RunStamp & RunResult

/** The values a reason's wording uses (a profile's name, a size). */
type ReasonParams = Readonly<Record<string, MessageValue>>

/** What a run came to: its outcome, with the reason a skipped or failed one must give. */
export type RunResult = RunFigures &
  (
    | { outcome: 'stored' | 'nothing-new'; skip?: undefined; failure?: undefined }
    | { outcome: 'skipped'; skip: SkipReason; failure?: undefined; params?: ReasonParams }
    | { outcome: 'failed'; failure: FailReason; skip?: undefined; params?: ReasonParams; detail?: string }
  )

/**
 * Whether a part runs: `missing` names the host service it needs and this dsh profile lacks (as dsh names it: `llm`),
 * the one reason the page words; `reason` is the host's English for its log.
 */
interface Availability {
  available: boolean
  reason?: string
  missing?: string
}

/** What the diagnostics show about extraction. */
export interface MemoryJobStatus extends Availability {
  enabled: boolean
  everyTurns: number
  excerptChars: number
  /** Conversations being mined right now. */
  running: string[]
  totals: { runs: number; stored: number; failed: number; coalesced: number }
  runs: RunRecord[]
}

/** What the diagnostics show about compression. */
export interface CompressStatus extends Availability {
  threshold: number
  running: string[]
  totals: { runs: number; compressed: number; failed: number }
  runs: RunRecord[]
}

/** What the diagnostics show about the tool. */
export interface MemoryToolStatus extends Availability {
  /** Conversations the tool is offered in right now. */
  offeredIn: number
  saved: number
  duplicates: number
  refused: number
  /** `memory_search` calls since load. */
  searches?: number
  lastRefusal?: { at: number; message: string }
}

/** What the settings page shows about injection. */
export interface PromptDiagnostics {
  /** Assemblies served by each layer since load: a conversation's own section, the global fallback, a subagent's. */
  assemblies: { conversation: number; global: number; subagent: number }
  /** Per conversation (session id): the last rendered injection. */
  sessions: Record<string, { profileId: string; chars: number; tokens: number; memoryCut: boolean; at: number }>
  /** Agents that currently carry their own sections. */
  agents: number
  /** Degradations since load (missing services, failed registrations), each once, the latest 20. */
  degraded: Warning[]
}

/** What the diagnostics show about the skill channel. */
export interface SkillsStatus {
  available: boolean
  reason?: string
  /** Skills the catalog lists right now. */
  listed: number
  /** Successful loads since the plugin started. */
  loaded: number
  /** `list`/`get` calls that degraded to "no such skill". */
  failures: number
  lastFailure?: { at: number; message: string }
}

/** What the settings page and the diagnostics read. */
export interface ToolProfileStatus extends Availability {
  /** The tools the host offers, measured, per agent preset (or `host` without presets); the default preset first. */
  catalogue: Array<{ source: string; tools: ToolSize[] }>
  /** Conversations whose tools are narrowed right now. */
  narrowed: number
  /** Calls refused since load. */
  refused: number
  lastRefusal?: { at: number; tool: string; profileId: string }
  /** Tools a conversation registered for itself, which a tool profile leaves in place. */
  kept: string[]
  /** Degradations since load, each once, the latest 20. */
  degraded: Warning[]
}

/** What the diagnostics show about profiles' models. */
export interface ModelChoiceStatus {
  available: boolean
  reason?: string
  /** Conversations this process decided a model for. */
  conversations: number
  /** Turns answered on the profile's model, on the user's pick, on a fallback; routes written into the composer. */
  totals: { profile: number; user: number; fallback: number; synced: number }
  lastFallback?: {
    at: number
    sessionId: string
    wanted: { provider: string; model: string }
    used: { provider: string; model: string }
    why: ModelUnavailable
    reason: string
  } & UnavailableDetail
  /** Degradations since load, each once, the latest 20. */
  degraded: Warning[]
}

/** What the diagnostics show about recall and its index. */
export interface RecallStatus extends Availability {
  /** Characters of recall per turn (config `recallBudget`; 0: recall is off). */
  budget: number
  /** The search index: rows, bytes on disk, when it was last rebuilt from the rows, and where it lives (`memory` for a
   * database opened read-only, whose index this process built for itself). */
  index: {
    items: number
    bytes: number
    rebuiltAt: number | null
    mode: 'disk' | 'memory'
    /** While its items are re-termed in the background (their search terms changed): how many are done so far. */
    reterm?: { done: number; total: number }
  }
  /**
   * The latest recall: when, how long it took, for which conversation, how many items and characters it sent, and how
   * that turn's memory budget was spent: the core's characters (the memory half of the system prompt), what that left
   * recall, and how many items it ranked. The last three are absent from an older host.
   */
  last: {
    at: number
    ms: number
    sessionId: string
    items: number
    chars: number
    core?: number
    budget?: number
    considered?: number
  } | null
  /** Since load: recalls run, recalls that sent something, items sent. */
  totals: { recalls: number; sent: number; items: number }
}
