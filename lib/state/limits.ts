/**
 * The limits of every stored field and the closed lists of values a stored field takes (memory sources, tool
 * profiles, memory modes and layers, the writers of a memory change), which the schemas of lib/state/schema-state.ts
 * are built from and every room checks against. Values only: it imports nothing.
 */

/** Where a memory item came from: typed by the user, saved by the model's tool, mined by the background job,
 * produced by compression, or brought in by an import. */
export type MemorySource = 'user' | 'tool' | 'auto' | 'compress' | 'import'

export const MEMORY_SOURCES: readonly MemorySource[] = ['user', 'tool', 'auto', 'compress', 'import']

/** Which tools a profile's conversations are offered; lib/shared/tool-profiles.ts says what each one allows. */
export type ToolProfileName = 'full' | 'read-only' | 'worker' | 'custom'

export const TOOL_PROFILES: readonly ToolProfileName[] = ['full', 'read-only', 'worker', 'custom']

/** How a profile takes the facts its tool and background job bring. */
export type MemoryMode = 'auto' | 'ask'

export const MEMORY_MODES: readonly MemoryMode[] = ['auto', 'ask']

/** Which memory list an injected item came from: the profile's own, or the conversation's. */
export type MemoryLayer = 'user' | 'profile' | 'conversation'

export const MEMORY_LAYERS: readonly MemoryLayer[] = ['user', 'profile', 'conversation']

/** Who made a memory write: someone typing (settings page, ⚙ panel), the model's tool, the background job, a
 * compression, an import, or an undo (a revert of an earlier write, or the undo of a compression). */
export type MemoryWriter = MemorySource | 'undo'

export const MEMORY_WRITERS: readonly MemoryWriter[] = [...MEMORY_SOURCES, 'undo']

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
