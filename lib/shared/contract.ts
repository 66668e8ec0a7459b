/**
 * The contract between the two halves: every type and constant the browser and the host's routes exchange — the
 * commands the browser sends, the state and `meta` the routes answer, the diagnostics each part reports, the file
 * shapes of an import. Both halves import these declarations, so renaming a field fails the typecheck of both.
 * The commands' types are their schemas' (schema-commands.ts), so a type and the rule that checks it cannot drift;
 * commands.ts types each op's reply from these names, at the browser's end and the route's.
 * Types and constants only; no `node:` import, no behaviour.
 */
import type { SyncDiagnostics } from './library.ts'
import type * as z from 'zod'
import type {
  MemoryItem,
  MemoryLayer,
  MemoryWrite,
  ModelChoice,
  Profile,
  SessionSetting,
  State,
  UsedMemory,
} from '../state/model.ts'
import type { ToolSize } from './tool-profiles.ts'
import type { MessageValue, Notice } from './notices.ts'
import type {
  ConfigRefusal,
  FailReason,
  FailureKind,
  LoadWhy,
  ModelUnavailable,
  SetAsideWhy,
  SkipReason,
  UnwritableCause,
  Warning,
} from './reasons.ts'
import type { FileError, ImportNote } from './import-notes.ts'
import type { COMMAND_SCHEMAS, CommandInput, ImportFileSchema, MemoryTarget } from './schema-commands.ts'
import type {
  MemoryInput as MemoryInputSchema,
  MemoryItemInput as MemoryItemInputSchema,
  ProfileFields,
} from './schema-state.ts'

export type { Notice }
export type { FailReason, FailureKind, ModelUnavailable, SkipReason }
export { CARD_FILE_LIMIT, FILE_FORMATS } from './files.ts'
export type { MemoryTarget } from './schema-commands.ts'

/** How the `memory_save` result starts when the facts await the user's approval (ask-first mode). */
export const PENDING_LEAD = '已提交给用户确认'

/** How the `memory_save` refusal starts in an incognito conversation (the model reads it; the page says its own). */
export const INCOGNITO_LEAD = '用户为本对话开启了无痕模式'

/** What the `memory_save` refusal says after the profile's name when the profile's memory is off. */
export const MEMORY_OFF_MARK = '关闭了长期记忆，用户选择不保存记忆'

/** Base path of the host half's routes. */
export const API_BASE = '/__ap'

/** Our namespace under a card's `extensions`. */
export const EXTENSION_KEY = 'dsh_agent_profiles'

/** The fields a caller may set on a profile; ids and times belong to the store. */
export const EDITABLE_FIELDS = [
  'name',
  'emoji',
  'avatar',
  'role',
  'personality',
  'speakingStyle',
  'rules',
  'memoryEnabled',
  'memoryMode',
  'memory',
  'tools',
  'model',
] as const
export type EditableField = (typeof EDITABLE_FIELDS)[number]
/** A validated set of changes to a profile; `model: null` removes the profile's model (back to the conversation's). */
export type ProfilePatch = Partial<Pick<Profile, Exclude<EditableField, 'model'>>> & { model?: ModelChoice | null }

/** The formats a file may be given as. */
export type FileFormat = ImportFile['format']

/** One file as the command takes it: text, or base64 bytes (PNG cards); `avatar` is an already shrunk picture. */
export type ImportFile = z.input<typeof ImportFileSchema>

/** The memory list a layer names for a conversation (`sessionId`) on a profile (`profileId`). */
export function layerTarget(layer: MemoryLayer, profileId: string, sessionId: string): MemoryTarget {
  return layer === 'user' ? { user: true } : layer === 'conversation' ? { sessionId } : { profileId }
}

/** The layer a memory list belongs to. */
export function targetLayer(target: MemoryTarget): MemoryLayer {
  return 'user' in target ? 'user' : 'profileId' in target ? 'profile' : 'conversation'
}

/** A history entry as `memory.history` answers it: with the list it belongs to and the entries that reverted it. */
export type MemoryHistoryEntry = MemoryWrite & { target: MemoryTarget; revertedBy?: string[] }

/** A memory item as a caller gives it: the store fills a missing id, source, time and conversation. */
export type MemoryItemInput = z.input<typeof MemoryItemInputSchema>

/** A memory as a caller gives it. */
export type MemoryInput = z.input<typeof MemoryInputSchema>

/** Profile fields as a caller gives them (create, update). */
export type ProfileInput = z.input<typeof ProfileFields>

/**
 * A `profile.update` patch. With `basedOn` (the memory item ids the editor started from), `memory.items` is merged
 * into the items saved meanwhile rather than replacing them (see `rebaseItems`), and an omitted `memory.summary`
 * keeps the saved one.
 */
export type ProfileUpdate = z.input<(typeof COMMAND_SCHEMAS)['profile.update']>['patch']

/** Every command the store accepts, as its schema takes it (schema-commands.ts). Arguments arrive untrusted (HTTP,
 * tools) and are checked by the op's schema before the command runs. */
export type Command = CommandInput

/** A profile as the browser sees it: `avatar` is '' or an avatar URL, never a data URL. */
export type WireProfile = Profile

/**
 * A profile as every state reply carries it: what the lists, the switcher and the turn heads show, never its texts,
 * tool settings or memory (200 profiles at their limits would make every reply megabytes). A page that shows or edits
 * any of those fetches the profile whole (`GET /__ap/profile/<id>`); `updatedAt` moves with every save of the profile,
 * so a copy fetched earlier is current while its `updatedAt` is the head's. Every field here is paid 200 times in every
 * reply: with 200 profiles at their limits (40-character names) the heads take about 57 KB of the 64 KB a reply may.
 */
export interface ProfileHead {
  id: string
  name: string
  emoji: string
  /** '' or an avatar URL, as in {@link WireProfile}. */
  avatar: string
  updatedAt: number
  /** Memory items awaiting the user's approval (ask-first mode); present when there are any. */
  pending?: number
  /** The model id the profile brings, cut to HEAD_MODEL_CHARS (profile-head.ts; whole, with its provider and controls,
   * in the whole profile); absent: the conversation's model. */
  model?: string
  /** The name of the team library a team profile comes from (read-only in the page); absent: the user's own. */
  library?: string
}

/**
 * State as the browser sees it: each profile as its {@link ProfileHead}. In place of `memoryUndo` (a full copy of each
 * compressed profile's previous memory, which only the host reads) it carries `undo`: profile id → when the
 * compression that `memory.undo` can revert ran. The history is not in it: `memory.history` reads one list at a time. In place of
 * the conversation settings (100,000 of them would make every reply
 * megabytes) it carries `pins` (profile id → how many conversations pin it) and `conversations` (how many have
 * settings); one conversation's settings come from `GET /__ap/session/<id>` (see {@link WireSession}).
 */
export type WireState = Omit<State, 'memoryUndo' | 'sessions' | 'history' | 'user' | 'profiles'> & {
  profiles: ProfileHead[]
  undo?: Record<string, number>
  /** How many items the user layer holds; the items come from `GET /__ap/user` (see {@link UserReply}). */
  userItems: number
  pins: Record<string, number>
  /** How many conversations have settings of their own. */
  conversations: number
}

/** One conversation as the browser sees it: its own settings (null when it has none) and the profile it uses now. */
export interface WireSession {
  sessionId: string
  setting: SessionSetting | null
  /** The profile in effect now: the pin when it names an existing profile, else the global default. */
  profileId: string
  pinned: boolean
  /** Its own memories have recorded writes; absent: none yet. */
  history?: true
}

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
export type ReasonParams = Readonly<Record<string, MessageValue>>

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
export interface Availability {
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

/** `GET /__ap/models`: the host's providers, each with its models and each model's reasoning efforts. */
export interface ModelCatalog {
  providers: Array<{
    id: string
    name: string
    models: Array<{ id: string; name: string; efforts: Array<{ id: string; name: string }>; defaultEffort?: string }>
  }>
  /** Providers whose list could not be read, or the model service missing altogether. */
  failures: ModelListFailure[]
}

/**
 * Why the picker lacks models: a provider whose list could not be read (`detail`: the host's words, quoted on the
 * page), or a host with no model service (`llm`) running, which lists none.
 */
export type ModelListFailure = { provider: string; detail: string } | { missing: 'llm' }

/**
 * Which model answered one turn: the profile's (`profile`), the user's composer pick (`user`), the conversation's own
 * (`conversation`, the profile brings none), or the conversation's in place of a profile's the host no longer offers
 * (`fallback`, with the model wanted and why it was not used).
 */
export type TurnModel = {
  provider: string
  model: string
  source: 'profile' | 'user' | 'conversation' | 'fallback'
  wanted?: { provider: string; model: string }
  /** Why the wanted model was not used (see {@link ModelUnavailable}), and the host's English for its log. */
  why?: ModelUnavailable
  reason?: string
} & UnavailableDetail

/**
 * One way an imported profile differs from the profile already there under its id, as data the browser words: the
 * field, and for a name, a memory or a model what a user compares at a glance (the two names, the two item counts, the
 * two models — '' for "the conversation's model"). `mine` is the profile already there, `theirs` the file's.
 */
export type ClashDiff =
  | { field: 'name' | 'model'; mine: string; theirs: string }
  | { field: 'memory'; mine: number; theirs: number }
  | { field: 'emoji' | 'avatar' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memoryEnabled' | 'tools' }

/**
 * An imported profile whose id, or (when no id matches) name, is taken by one with other content: which one it clashed
 * with, and what differs. `id` is the profile already there (the one a `replace` names).
 */
export interface ImportClash {
  id: string
  /** The imported profile's name. */
  name: string
  /** The name of the profile already there. */
  existing: string
  differs: ClashDiff[]
  /** The clash is by name: the file's profile has an id of its own (a card, a Markdown file). */
  byName?: boolean
  /** The name the file's profile is kept under beside the one there (a conflict waiting for the user's choice). */
  keepAs?: string
}

/** An imported profile renamed: its name was a word of the plugin (`所有人`, `all`…) or another profile's. */
export interface NameChange {
  id: string
  from: string
  to: string
  why: 'reserved' | 'taken'
}

/**
 * What the page says beside a {@link ModelUnavailable}: the effort refused (`effort`), and the host's or the
 * provider's own text of a refusal or a refused call (`refused`, `call-failed`), which the page quotes after its own
 * sentence, never in place of it.
 */
export interface UnavailableDetail {
  effort?: string
  detail?: string
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
  index: { items: number; bytes: number; rebuiltAt: number | null; mode: 'disk' | 'memory' }
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
export interface MetaBase {
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

/** One backup the user can restore, and what it holds. */
export interface BackupInfo {
  /** `2026-12-01` (the day's copy) or `<timestamp>-before-restore` (the data a restore replaced). */
  name: string
  kind: 'daily' | 'before-restore'
  /** When it was taken (ms). */
  at: number
  /** Size on disk, avatars included. */
  bytes: number
  profiles: { id: string; name: string; items: number }[]
  /** Memory items in all (the user layer's too). */
  items: number
  sessions: number
}

/** What `GET /__ap/backups` answers. */
export interface BackupsReply {
  backups: BackupInfo[]
}

/** The data's health, as `meta.data` carries it. */
export interface DataHealth {
  readOnly?: ReadOnlyData
  setAside: SetAsideRow[]
  salvage?: Salvage
}

/** What a route that changes the data answers (a command, a restore): the state after it and the `meta` with it. */
export interface StateReply {
  state: WireState
  meta: Meta
}

/**
 * What `POST /__ap/command` answers for every op: the state after it, its `meta` and the command's notice. The fields
 * each op adds to it are in shared/commands.ts (`ReplyOf`).
 */
export interface CommandReply extends StateReply {
  notice: Notice
}

/** What a merge did with each incoming profile that was not simply added; every clash says what differs. */
export interface MergeReport {
  /** Kept beside the one there under a new id (`from` was taken by the profile named `existing`). */
  renamed: ({ from: string; to: string } & Omit<ImportClash, 'id'>)[]
  /** Incoming profiles identical to one already there (`id` is the one there), not imported again. */
  unchanged: { id: string; name: string }[]
  replaced: ImportClash[]
  /** Incoming profiles left out under `ask`: same id (or, with an id of their own, name) as an existing one, other content. */
  conflicts: ImportClash[]
  /** Imported profiles renamed, as each arrived (the import report says so). */
  names: NameChange[]
}

/** What became of one file of `profiles.importFiles`. */
export interface FileResult extends Omit<MergeReport, 'renamed' | 'names'> {
  name: string
  imported: number
  /** Ids of the profiles it added or replaced, in order. */
  profileIds: string[]
  warnings: ImportNote[]
  error?: FileError
}

/** What `POST /__ap/preview` answers. */
export interface PreviewReply {
  text: string
  chars: number
  tokens: number
}

/** One change as the browser hears it. Every list is of ids; an empty list means nothing of that kind changed. */
export interface Change {
  /** Profiles added or changed. */
  profiles: string[]
  /** Of those, the ones whose memory changed (saved by the user, the model, or the background job). */
  memory: string[]
  /** Profiles removed. */
  removed: string[]
  /** The profile ids in list order, present when a profile was added, removed or moved. */
  order?: string[]
  /** The new global default, present when it changed. */
  activeId?: string
  /** Conversations whose settings changed (a pin, a note, a conversation memory), or were forgotten. */
  sessions: string[]
  /** Per profile, when its last compression ran (what `memory.undo` reverts), present when that changed. */
  undo?: Record<string, number>
  /** The state's pins per profile and count of conversations with settings, present when conversations changed. */
  pins?: Record<string, number>
  conversations?: number
  /** The user layer's item count, present when the user layer changed (the page fetches `GET /__ap/user`). */
  user?: number
}

/**
 * One event of the push channel. `change`: a saved change, its `id` the store revision it made. `reload`: the page
 * asked to resume from a revision the channel no longer remembers (or from another run of the host), so it must
 * load the state afresh.
 */
export type LiveEvent = { kind: 'change'; revision: number; change: Change } | { kind: 'reload'; revision: number }

/** `GET /__ap/turns/<sessionId>`: which profile answered each turn, and how many memory items each turn's requests
 * carried (turns recorded since that was kept). */
export interface TurnsReply {
  turns: Record<number, string>
  memories: Record<number, number>
  /** Which model answered each turn this host process ran (absent on a host without the model part). */
  models?: Record<number, TurnModel>
}

/** `GET /__ap/turns/<sessionId>?turn=N`: the memory items turn N's requests carried, null when none were recorded. */
export interface TurnMemoriesReply {
  turn: number
  memories: UsedMemory[] | null
}

/** A deleted profile as the turns it answered still show it: its look when it was deleted, and when that was. */
export interface RetiredProfile {
  id: string
  name: string
  emoji: string
  /** The avatar's raster data URL, or '' when it had none. */
  avatar: string
  at: number
}

/** What `GET /__ap/user` answers: the user layer's items and its share of the memory budget, in characters. */
export interface UserReply {
  items: MemoryItem[]
  /** Characters of the memory budget the user layer may use while the rest of memory needs it. */
  share: number
  budget: number
  /** The layer has recorded writes; absent: none yet. */
  history?: true
}

/** How many items a profile's memory holds in all (core and archive), how many of them are archived, how many are
 * suggestions. */
export interface MemoryCounts {
  items: number
  archived: number
  pending: number
}

/** Items one `GET /__ap/memory/search` answers at most, and by default. */
export const SEARCH_PAGE = { max: 200, default: 50 } as const

/** Characters of a search query at most. */
export const SEARCH_QUERY_CHARS = 200

/**
 * Different words a memory-list search looks for at most (each costs a pass over the list), counted after those
 * another word of the query already holds are dropped.
 */
export const SEARCH_QUERY_WORDS = 8

/**
 * What `GET /__ap/memory/search?layer=&owner=&q=&source=&archived=&pending=&offset=&limit=` answers: the window
 * `[offset, offset + limit)` of the items of one memory list that match, and how many match in all. Without `q`
 * newest first; with `q` best match first.
 */
export interface MemorySearchReply {
  items: MemoryItem[]
  total: number
  offset: number
  limit: number
  revision: number
}

/**
 * What `GET /__ap/profile/<id>` answers: the profile whole (its memory carrying only the core items: archived ones
 * come from the search route) with its head and the store revision it was read at, or
 * (for one deleted since) how it looked. With `?head` a profile answers with its head alone.
 */
export type ProfileReply =
  | {
      profile: WireProfile
      head: ProfileHead
      revision: number
      memoryCounts: MemoryCounts
      /** Its memory has recorded writes (`memory.history` has something to show); absent: none yet. Here, not in
       * the head: every head field is paid 200 times in every state reply. */
      history?: true
    }
  | { head: ProfileHead }
  | { retired: RetiredProfile }
