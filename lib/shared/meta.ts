/**
 * The `meta` every state reply carries: where the data lives, counts, the last load error, the data's health (read
 * only, rows set aside, a salvage) and each installed part's diagnostics (diagnostics.ts). Both halves import these
 * declarations; the page reads every diagnostic field as optional, so a page served by an older host still renders.
 * Types only; no behaviour.
 */
import type { ConfigRefusal, LoadWhy, SetAsideWhy, UnwritableCause } from './reasons.ts'
import type { SyncDiagnostics } from './library.ts'
import type {
  CompressStatus,
  MemoryJobStatus,
  MemoryToolStatus,
  ModelChoiceStatus,
  PromptDiagnostics,
  PruneStatus,
  RecallStatus,
  SkillsStatus,
  ToolProfileStatus,
} from './diagnostics.ts'

/** The diagnostics each installed part adds to `meta`, under its key; a part whose host service is missing is absent. */
export interface PartDiagnostics {
  recall: RecallStatus
  injection: PromptDiagnostics
  memoryTool: MemoryToolStatus
  memoryJob: MemoryJobStatus
  compression: CompressStatus
  skills: SkillsStatus
  toolProfiles: ToolProfileStatus
  sessionPrune: PruneStatus
  modelChoice: ModelChoiceStatus
  sync: SyncDiagnostics
}

/**
 * Metadata the host sends with every state: where the data lives, counts, the last fault, and each part's diagnostics
 * (the browser reads every diagnostic field as optional, so a page served by an older host still renders).
 */
export type Meta = MetaBase & { [K in keyof PartDiagnostics]?: Partial<PartDiagnostics[K]> }

/** The part of `meta` every reply carries. */
interface MetaBase {
  /** The data file's name in the data directory (replies never carry the directory's absolute path). */
  dataFile: string
  counts: { profiles: number; sessions: number; memories: number }
  lastError: LoadError | null
  /** The row config was refused (the message names the field); the plugin runs on the defaults. In the host's English
   * for its log and for a page older than the host: the page words {@link MetaBase.configRefusal}. */
  configError?: string | null
  /** The refusal of the row config as data, present when `configError` is. */
  configRefusal?: ConfigRefusal
  /** Memory size (characters) above which the background job compresses it. */
  compressThreshold: number
  /** Characters of memory the prompt carries before it cuts. */
  memoryBudget: number
  /** The store's revision this answer shows; the push channel resumes from it. */
  revision?: number
  /** The health of the data: read-only, rows set aside, what a salvage saved (absent from an older host). */
  data?: DataHealth
}

/**
 * The last load error: when, where the bad file was kept, why as the page words it (`why`), and `message`, the host's
 * English for its log and for a page older than the host.
 */
export interface LoadError {
  message: string
  at: number
  keptAs?: string
  why: LoadWhy
}

/**
 * Why nothing can be saved: a newer version of the plugin made the data, or its directory cannot be written (`cause`,
 * which the page words; `message` is the host's English, with the system's own words, for the log and as a quote).
 */
export type ReadOnlyData =
  | {
      kind: 'newer'
      message: string
      /** A newer version made it and this one cannot read it: the store runs without it (or keeps what it read). */
      unreadable?: true
    }
  | { kind: 'unwritable'; message: string; cause: UnwritableCause }

/** A database row this version's rules refuse: left as it is in the database, left out of the state. */
export interface SetAsideRow {
  table: string
  /** The row's key (`<owner>/<item id>` for memory items and history entries). */
  key: string
  /** Why, as the page words it. */
  why: SetAsideWhy
  /** Why, in the host's English for its log and for a page older than the host. */
  reason: string
  /** In the state all the same, read in the one way it can be (e.g. an active id naming nothing → the first profile). */
  mended?: true
}

/** What the rows of a database that could not be opened came to when they were copied into a new one. */
export interface Salvage {
  saved: number
  /** Rows known lost (counted in the damaged file but unreadable). */
  lost: number
  /** Some table could not even be counted (its first page is damaged): more rows than `lost` may be gone. */
  lostUncounted?: true
  /** The damaged file, kept aside. */
  keptAs: string
}

/**
 * The background integrity check of the data file since this start: still to end, found it sound or damaged (and
 * when), or could not run. Absent where there is nothing to check (no data file yet, or data that is read-only).
 */
export type IntegrityCheck = { state: 'pending' } | { state: 'sound' | 'damaged' | 'not-run'; at: number }

/**
 * The upgrade of the data file this version runs in the background after the start that migrated it (the memory
 * items' columns, then their index): under way, or stopped by a failure (the next start resumes it). Absent when there
 * is none to run.
 */
export type BackgroundUpgrade = 'running' | 'stopped'

/** The data's health, as `meta.data` carries it. */
export interface DataHealth {
  readOnly?: ReadOnlyData
  setAside: SetAsideRow[]
  salvage?: Salvage
  check?: IntegrityCheck
  upgrade?: BackgroundUpgrade
}
