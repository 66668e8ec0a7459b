/**
 * The plugin's data model and its limits: the shapes every other module agrees on, and the few pure facts derived
 * from them (whether a profile has content, a memory's size, the counts the diagnostics show). It never reads files,
 * renders text or talks HTTP.
 */

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
}

/** One conversation's own settings. An entry with no pin, no note and no memories does not exist. */
export interface SessionSetting {
  /** Pinned profile, or null to follow the global default. */
  profileId: string | null
  /** Extra instructions for this conversation only. */
  note: string
  /** Conversation-only memories. */
  memories: MemoryItem[]
}

/**
 * Session id → that conversation's own settings: the reads every part may make. The store holds them in an immutable
 * map (lib/store/sessions.ts makes and changes it; a user's 100,000 conversations would make a copied record cost
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
}

/** The portable export file. Never carries conversation settings. */
export interface Envelope {
  format: 'dsh-agent-profiles'
  version: 1
  exportedAt: string
  activeId: string
  profiles: Profile[]
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
  memoryItems: 500,
  memoryItem: 1_000,
  note: 4_000,
  sessionMemories: 200,
  sessions: 100_000,
  /** Characters of JSON of a profile's `card` extras. */
  card: 200_000,
  /** Tool names in each of a profile's `tools.add` and `tools.remove`. */
  toolOverrides: 100,
  /** Characters of one tool name. */
  toolName: 64,
} as const

/** What a tool name may look like (the function-name alphabet of the model APIs, plus the `.`/`:` some hosts use). */
export const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/

/** Raster avatars only: SVG can carry script. */
export const AVATAR_PREFIX = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/

/** True when a profile has something to say to the model. */
export function hasContent(p: Pick<Profile, (typeof CONTENT_FIELDS)[number]>): boolean {
  return CONTENT_FIELDS.some((f) => p[f].trim() !== '')
}

/** Characters of a memory as the compression threshold counts them: the summary plus every item's text. */
export function memoryChars(m: Memory): number {
  return m.items.reduce((n, it) => n + it.text.length, m.summary.length)
}

/** What the settings page counts: profiles, conversations with their own settings, and profile memory items. */
export function countsOf(state: State): { profiles: number; sessions: number; memories: number } {
  return {
    profiles: state.profiles.length,
    sessions: state.sessions.size,
    memories: state.profiles.reduce((n, p) => n + p.memory.items.length, 0),
  }
}
