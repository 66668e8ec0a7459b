/**
 * The plugin's data model and its limits: the shapes every other module agrees on, and the few pure facts derived
 * from them (whether a profile has content, a memory's size, the counts the diagnostics show). It never reads files,
 * renders text or talks HTTP.
 */

import { itemTally } from './lazy-list.ts'

/** Where a memory item came from: typed by the user, saved by the model's tool, mined by the background job,
 * produced by compression, or brought in by an import. */
export type MemorySource = 'user' | 'tool' | 'auto' | 'compress' | 'import'

export const MEMORY_SOURCES: readonly MemorySource[] = ['user', 'tool', 'auto', 'compress', 'import']

/** One remembered fact with its provenance. */
export interface MemoryItem {
  id: string
  text: string
  source: MemorySource
  /** The conversation (session id) it came from, when there is one. */
  sessionId?: string
  /** Milliseconds since the epoch. */
  at: number
  /** Kept verbatim by compression and injected first when the memory budget cuts. */
  pinned?: true
  /** A suggestion (the tool's or the job's fact under ask-first mode): never injected until the user approves it. */
  pending?: true
  /** On a suggestion: the id of the item of the same list it replaces once approved (that item stays until then). */
  replaces?: string
  /** A suggestion the user approved: the fact is the user's now, like one typed by hand. */
  approved?: true
  /** Condensed out of the core by a compression and kept: never in the system prompt's memory half, still listed,
   * searchable and recallable (see lib/memory/recall.ts). */
  archived?: true
  /** Search keys the extraction stored with the fact (names, places, normalised dates, synonyms in both languages),
   * separated by commas or spaces: indexed with the text, never shown to the model as the fact. */
  keys?: string
  /** Where the fact was brought from, for the user to see ("pasted, ChatGPT"; "ChatGPT, 2025-03-14, 'Trip to
   * Qingdao'"): set when it arrives from outside, never shown to the model. */
  origin?: string
  /** The learning run (an import of another assistant's conversations) that brought it: "undo this import" takes
   * away every item carrying its id, approved or not. */
  importId?: string
}

/**
 * Whether a fact is the user's own: typed by hand, brought in by the user's import, or approved from a suggestion.
 * The background job may propose to replace such a fact, never replace it by itself.
 */
export function isUsersFact(it: MemoryItem): boolean {
  return it.source === 'user' || it.source === 'import' || it.approved === true
}

/** Long-term memory: a rolling summary plus discrete items. */
export interface Memory {
  summary: string
  items: MemoryItem[]
}

/**
 * What an imported Character Card carried that a profile has no field for, kept so that a card exported from the
 * profile carries it back out unchanged (interop/card-to-profile.ts keeps it, profile-to-card.ts writes it back).
 * Plain JSON; never rendered into a prompt.
 */
export interface CardExtras {
  /** The card's `spec` as it came: `chara_card_v1`, `chara_card_v2` or `chara_card_v3`. */
  spec: string
  /** The card's `spec_version` as it came ('' for V1). */
  specVersion: string
  /** Card `data` fields the profile does not map (greetings, creator notes, tags, creator, extensions, V3 fields,
   * unknown keys), as they came. */
  data: Record<string, unknown>
  /** Keys beside `data` at the top of the card, as they came, except copies of `data` fields (see `mirror`). */
  top?: Record<string, unknown>
  /** Top-level keys that repeated a `data` field for old readers; exported again as copies of that field. */
  mirror?: string[]
  /** Per profile field, the card fields it was made from, kept while the profile's text is still the one the import
   * gave it (`digest`), because mapping that text back would not give the same card fields. */
  originals?: Record<string, { digest: string; fields: Record<string, unknown> }>
}

/** Which tools a profile's conversations are offered; lib/shared/tool-profiles.ts says what each one allows. */
export type ToolProfileName = 'full' | 'read-only' | 'worker' | 'custom'

export const TOOL_PROFILES: readonly ToolProfileName[] = ['full', 'read-only', 'worker', 'custom']

/** A profile's tool profile and its overrides. `add`/`remove` (tool names) apply only when `profile` is not `full`,
 * after the profile's own rule, and `remove` wins over `add`. */
export interface ToolSettings {
  profile: ToolProfileName
  add: string[]
  remove: string[]
}

/** One agent profile. `avatar` is a raster data URL or the empty string. */
export interface Profile {
  id: string
  name: string
  emoji: string
  avatar: string
  role: string
  personality: string
  speakingStyle: string
  rules: string
  memoryEnabled: boolean
  memory: Memory
  createdAt: number
  updatedAt: number
  /** Present on profiles imported from a Character Card: what the card carried beyond these fields. */
  card?: CardExtras
  /** The tools its conversations get; absent means `full` (every tool the host offers, unchanged). */
  tools?: ToolSettings
  /** `ask`: facts from the tool and the job wait for the user's approval (suggestions); absent or `auto`: stored at once. */
  memoryMode?: MemoryMode
  /** The model its conversations' turns run on; absent means the conversation's model (the composer's), as before. */
  model?: ModelChoice
  /**
   * A model (with its effort and temperature) a file brought: never used for a turn; it becomes `model` only when the
   * user accepts it in the editor's Model section, and is gone when they dismiss it.
   */
  suggestedModel?: ModelChoice
  /**
   * Set on a team profile: the read-only team library it comes from (lib/sync/library.ts). Its fields are the
   * library's to change (a pull request in the team's repository); its memory is the user's own.
   */
  library?: LibraryMark
}

/** Which team library a profile comes from, and the tools its files asked for (it runs with at most read-only). */
export interface LibraryMark {
  /** The library's id (a short key of its remote and branch). */
  id: string
  /** The name the user gave the library (or one made from its remote). */
  name: string
  /** The tool settings the library's files asked for, when they asked for more than the profile runs with. */
  asks?: ToolSettings
  /** The model the library's files name: offered as `suggestedModel` when it first arrives or changes. */
  model?: ModelChoice
}

/**
 * A profile's model: a provider route and model id as the host lists them (`ctx.llm.listProviders()`,
 * `listModels(provider)`), with an optional reasoning effort (an id the model's adapter offers) and temperature.
 */
export interface ModelChoice {
  provider: string
  model: string
  reasoningEffort?: string
  temperature?: number
}

/** How a profile takes the facts its tool and background job bring. */
export type MemoryMode = 'auto' | 'ask'

export const MEMORY_MODES: readonly MemoryMode[] = ['auto', 'ask']

/** One conversation's own settings. An entry with no pin, no note and no memories does not exist. */
export interface SessionSetting {
  /** Pinned profile, or null to follow the global default. */
  profileId: string | null
  /** Extra instructions for this conversation only. */
  note: string
  /** Conversation-only memories. */
  memories: MemoryItem[]
  /** Incognito: the conversation still reads memory but writes none (the tool refuses, the job skips it). */
  incognito?: true
  /** When the user last asked this conversation to take the current memory (⚙ panel), in ms since the epoch: under
   * cache-stable memory a running conversation otherwise keeps the memory text it started with. */
  memoryRefreshedAt?: number
  /** Profiles the user added to this conversation's cast (quick switcher), in order: `@all` asks each of them. */
  cast?: string[]
}

/** Which memory list an injected item came from: the profile's own, or the conversation's. */
export type MemoryLayer = 'user' | 'profile' | 'conversation'

export const MEMORY_LAYERS: readonly MemoryLayer[] = ['user', 'profile', 'conversation']

/** One memory item a request carried, as the model read it: recorded per turn, so the turn head can say which
 * memories shaped it even after the item is edited or deleted. */
export interface UsedMemory {
  id: string
  text: string
  layer: MemoryLayer
  /** Sent by recall (the late runtime context of that turn), not by the system prompt's memory half. */
  recalled?: true
  /** On a recalled item: when it was saved (ms since the epoch). */
  at?: number
}

/** Who made a memory write: someone typing (settings page, ⚙ panel), the model's tool, the background job, a
 * compression, an import, or an undo (a revert of an earlier write, or the undo of a compression). */
export type MemoryWriter = MemorySource | 'undo'

export const MEMORY_WRITERS: readonly MemoryWriter[] = [...MEMORY_SOURCES, 'undo']

/**
 * One recorded change to one memory list (a profile's memory, or a conversation's own memories): who made it, when,
 * from which conversation, and exactly what changed, so that it can be shown and reverted later.
 */
export interface MemoryWrite {
  id: string
  at: number
  who: MemoryWriter
  /** The conversation that caused it (the tool's or the job's conversation, the ⚙ panel's), when there is one. */
  sessionId?: string
  added: MemoryItem[]
  removed: MemoryItem[]
  /** Items that changed in place (text or pin): as they were and as they became. */
  edited: { before: MemoryItem; after: MemoryItem }[]
  /** The summary, when it changed. */
  summary?: { before: string; after: string }
  /** The write this one reverts. */
  reverts?: string
}

/**
 * Memory about the user themselves (name, preferences, background): one list shared by every profile whose memory
 * is on, beside each profile's own memory and each conversation's own memories.
 */
export interface UserLayer {
  items: MemoryItem[]
}

/** The key of the user layer's history list; a profile id cannot hold a `:`, a conversation's key starts `s:`. */
export const USER_HISTORY = 'u:'

/** Where a memory history lives in `State.history`: a profile's id, `s:` and a conversation's session id, or `u:`. */
export function historyKey(target: { profileId: string } | { sessionId: string } | { user: true }): string {
  if ('user' in target) return USER_HISTORY
  return 'profileId' in target ? target.profileId : `s:${target.sessionId}`
}

/** True when the memory list `target` names has a recorded write: the page shows its history heading only then. */
export function hasHistory(
  state: Pick<State, 'history'>,
  target: { profileId: string } | { sessionId: string } | { user: true },
): boolean {
  return (state.history?.[historyKey(target)]?.length ?? 0) > 0
}

/**
 * How much history is kept. Per list the oldest entries go first once it holds `entries` entries or `chars`
 * characters of JSON (the newest entry always stays, however large: an import of a whole memory must stay
 * revertible); conversation-memory lists past `conversations` go least recently written first. Worst case about
 * 200 profiles × 100 KB + 500 × 20 KB = 30 MB; a typical profile's list holds its last 100 writes in 20–60 KB.
 */
export const HISTORY_LIMITS = {
  entries: 100,
  chars: 100_000,
  conversationEntries: 20,
  conversationChars: 20_000,
  conversations: 500,
} as const

/**
 * Session id → that conversation's own settings: the reads every part may make. The store holds them in an immutable
 * map (lib/state/sessions.ts makes and changes it; a user's 100,000 conversations would make a copied record cost
 * ~100 ms per pin), so this names only what reading needs and keeps this module free of any package.
 */
export interface Sessions extends Iterable<[string, SessionSetting]> {
  readonly size: number
  get(key: string): SessionSetting | undefined
  has(key: string): boolean
  keys(): IterableIterator<string>
  values(): IterableIterator<SessionSetting>
  /** The settings as a plain object, as JSON.stringify writes them. */
  toJSON(): Record<string, SessionSetting>
}

/** Everything the store persists. */
export interface State {
  version: 1
  activeId: string
  profiles: Profile[]
  sessions: Sessions
  /** Per profile id, the memory it had before its last compression, for `memory.undo`. Never exported. */
  memoryUndo?: Record<string, { memory: Memory; at: number }>
  /** Per memory list ({@link historyKey}), its recorded writes, oldest first, bounded by {@link HISTORY_LIMITS}. Never exported. */
  history?: Record<string, MemoryWrite[]>
  /** The user layer; absent when it holds nothing. Exported only when the user asks. */
  user?: UserLayer
}

/** The portable export file. Never carries conversation settings. */
export interface Envelope {
  format: 'dsh-agent-profiles'
  version: 1
  exportedAt: string
  activeId: string
  profiles: Profile[]
  /** The user layer, present when the export was asked to include it. */
  user?: UserLayer
}

/** The four fields that make a profile say something; a profile with all four empty injects nothing. */
export const CONTENT_FIELDS = ['role', 'personality', 'speakingStyle', 'rules'] as const

/** Field limits. A value over a limit is refused with an error naming the field and the limit. */
export const LIMITS = {
  profiles: 200,
  name: 40,
  emoji: 16,
  /** Characters of data URL. */
  avatar: 400_000,
  role: 4_000,
  personality: 4_000,
  speakingStyle: 4_000,
  rules: 8_000,
  summary: 8_000,
  /** Items of one profile's memory, core and archive together. */
  memoryItems: 10_000,
  memoryItem: 1_000,
  /** Characters of one item's search keys. */
  memoryKeys: 300,
  /** Characters of a pasted list of facts: ChatGPT keeps at most a few hundred memories of a line or two each. */
  pastedList: 200_000,
  /** Characters of one item's origin (where it was brought from). */
  memoryOrigin: 160,
  note: 4_000,
  sessionMemories: 1_000,
  /** Items of the user layer. */
  userItems: 2_000,
  /** Suggestion ids one bulk decision (`memory.decide`) may name: a page's ticked rows, never a whole archive. */
  decideIds: 500,
  sessions: 100_000,
  /** Characters of JSON of a profile's `card` extras. */
  card: 200_000,
  /** Tool names in each of a profile's `tools.add` and `tools.remove`. */
  toolOverrides: 100,
  /** Characters of one tool name. */
  toolName: 64,
  /** Characters of a model choice's provider id, model id and reasoning effort id. */
  modelId: 128,
  /** The highest temperature a profile may ask for (the OpenAI-compatible range is 0–2). */
  temperature: 2,
  /** Profiles in one conversation's cast (each answers `@all` in turn). */
  cast: 8,
} as const

/** What a tool name may look like (the function-name alphabet of the model APIs, plus the `.`/`:` some hosts use). */
export const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/

/** Raster avatars only: SVG can carry script. */
export const AVATAR_PREFIX = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/

/** True when a profile has something to say to the model. */
export function hasContent(p: Pick<Profile, (typeof CONTENT_FIELDS)[number]>): boolean {
  return CONTENT_FIELDS.some((f) => p[f].trim() !== '')
}

/** Characters of a memory as the compression threshold counts them: the summary plus the text of every item of the
 * core (archived items are out of the prompt, so they never make it grow). */
export function memoryChars(m: Memory): number {
  return m.items.reduce((n, it) => (it.archived === true ? n : n + it.text.length), m.summary.length)
}

/**
 * The user layer's share of the memory budget: at most this fraction of it while the profile's and the
 * conversation's memories need the rest (what they leave unused, the user layer may take).
 */
const USER_SHARE = 1 / 3

/** The user layer's share of a memory budget, in characters. */
export function userShare(budget: number): number {
  return Math.floor(Math.max(0, budget) * USER_SHARE)
}

const NO_ITEMS: readonly MemoryItem[] = Object.freeze([])

/** The user layer's items (the same empty list whenever it is absent, so a render keyed on it is reused). */
export function userItemsOf(state: Pick<State, 'user'>): readonly MemoryItem[] {
  return state.user?.items ?? NO_ITEMS
}

/** What the settings page counts: profiles, conversations with their own settings, and profile memory items. */
export function countsOf(state: State): { profiles: number; sessions: number; memories: number } {
  return {
    profiles: state.profiles.length,
    sessions: state.sessions.size,
    // Counted from the rows for a memory still on disk (lazy-list.ts): Diagnostics never reads every item.
    memories: state.profiles.reduce((n, p) => n + itemTally(p.memory.items).items, 0),
  }
}
