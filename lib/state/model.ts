/**
 * The plugin's data model and its limits: the shapes every other module agrees on (the stored ones are the output
 * types of their schemas, lib/state/schema-state.ts, so a field is written once), and the few pure facts derived
 * from them (whether a profile has content, a memory's size, the counts the diagnostics show). It never reads files,
 * renders text or talks HTTP.
 */

import type * as z from 'zod'
import { itemTally } from './lazy-list.ts'
import type {
  CardExtrasSchema,
  MemoryItemStored,
  MemoryStored,
  MemoryWriteStored,
  ModelChoiceSchema,
  ProfileStored,
  SessionSettingStored,
  ToolSettingsSchema,
  UsedMemoryStored,
  UserLayerStored,
} from './schema-state.ts'

// The limits and closed lists live beside the schemas they bound (limits.ts); every room reads them from here.
export {
  LIMITS,
  MEMORY_LAYERS,
  MEMORY_SOURCES,
  TOOL_NAME,
  TOOL_PROFILES,
  type MemoryLayer,
  type MemorySource,
  type MemoryWriter,
  type ToolProfileName,
} from './limits.ts'

/** One remembered fact with its provenance (its schema, lib/state/schema-state.ts `MemoryItemStored`, says each field). */
export type MemoryItem = z.output<typeof MemoryItemStored>

/**
 * Whether a fact is the user's own: typed by hand, brought in by the user's import, or approved from a suggestion.
 * The background job may propose to replace such a fact, never replace it by itself.
 */
export function isUsersFact(it: MemoryItem): boolean {
  return it.source === 'user' || it.source === 'import' || it.approved === true
}

/** Long-term memory: a rolling summary plus discrete items. */
export type Memory = z.output<typeof MemoryStored>

/** What an imported Character Card carried that a profile has no field for (schema-state.ts `CardExtrasSchema`). */
export type CardExtras = z.output<typeof CardExtrasSchema>

/** A profile's tool profile and its overrides (schema-state.ts `ToolSettingsSchema`). */
export type ToolSettings = z.output<typeof ToolSettingsSchema>

/** One agent profile (schema-state.ts `ProfileStored`). `avatar` is a raster data URL or the empty string. */
export type Profile = z.output<typeof ProfileStored>

/** Which team library a profile comes from, and the tools its files asked for (it runs with at most read-only). */
export type LibraryMark = NonNullable<Profile['library']>

/** A profile's model: a provider route and model id, an optional reasoning effort and temperature. */
export type ModelChoice = z.output<typeof ModelChoiceSchema>

/** One conversation's own settings (schema-state.ts `SessionSettingStored`). An entry with no pin, no note and no
 * memories does not exist. */
export type SessionSetting = z.output<typeof SessionSettingStored>

/** One memory item a request carried, as the model read it: recorded per turn, so the turn head can say which
 * memories shaped it even after the item is edited or deleted. */
export type UsedMemory = z.output<typeof UsedMemoryStored>

/**
 * One recorded change to one memory list (a profile's memory, or a conversation's own memories): who made it, when,
 * from which conversation, and exactly what changed, so that it can be shown and reverted later.
 */
export type MemoryWrite = z.output<typeof MemoryWriteStored>

/**
 * Memory about the user themselves (name, preferences, background): one list shared by every profile whose memory
 * is on, beside each profile's own memory and each conversation's own memories.
 */
export type UserLayer = z.output<typeof UserLayerStored>

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
