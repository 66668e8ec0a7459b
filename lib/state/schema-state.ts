/**
 * The schemas of every stored shape (zod 4): a memory item as a caller or a row gives it, a memory, a profile's
 * fields, its tool settings, model choice and Character Card extras, a whole profile, a conversation's settings, the
 * memory items one turn carried, one memory write; and each shape as the store holds it once its provenance is filled
 * in (`*Stored`), whose output types are the stored types of lib/state/model.ts (written here once, never beside).
 * Shape and limits only, from lib/state/limits.ts: what needs the live state (a pin naming an existing profile) or
 * the disk or node (an avatar's image signature) is lib/validate's; a policy (the provenance an item gets when it
 * comes without one) is the commands' (lib/provenance/provenance.ts). Both halves may import it.
 */
import * as z from 'zod'
import {
  LIMITS,
  MEMORY_LAYERS,
  MEMORY_MODES,
  MEMORY_SOURCES,
  MEMORY_WRITERS,
  TOOL_NAME,
  TOOL_PROFILES,
} from './limits.ts'
import { anyRecord, bool, id, kind, list, oneOf, sessionId, strict, text, time } from './schema-kit.ts'

/**
 * One memory item as it arrives: only `text` is required; the provenance (`id`, `source`, `at`, `sessionId`) a
 * caller leaves out is the command's to fill (`sessionId: null` says "from no conversation").
 */
export const MemoryItemInput = strict({
  id: id.optional(),
  text: text({ limit: LIMITS.memoryItem, required: true }),
  /** Where it came from: typed by the user, saved by the model's tool, mined by the background job, produced by
   * compression, or brought in by an import. */
  source: oneOf(MEMORY_SOURCES).optional(),
  /** Milliseconds since the epoch. */
  at: time.optional(),
  /** Kept verbatim by compression and injected first when the memory budget cuts. */
  pinned: bool.optional(),
  /** A suggestion (the tool's or the job's fact under ask-first mode): never injected until the user approves it. */
  pending: bool.optional(),
  /** On a suggestion: the id of the item of the same list it replaces once approved (that item stays until then). */
  replaces: id.optional(),
  /** A suggestion the user approved: the fact is the user's now, like one typed by hand. */
  approved: bool.optional(),
  /** Condensed out of the core by a compression and kept: never in the system prompt's memory half, still listed,
   * searchable and recallable (see lib/memory/recall.ts). */
  archived: bool.optional(),
  /** Search keys the extraction stored with the fact (names, places, normalised dates, synonyms in both languages),
   * separated by commas or spaces: indexed with the text, never shown to the model as the fact. */
  keys: text({ limit: LIMITS.memoryKeys }).optional(),
  /** Where the fact was brought from, for the user to see ("pasted, ChatGPT"; "ChatGPT, 2025-03-14, 'Trip to
   * Qingdao'"): set when it arrives from outside, never shown to the model. */
  origin: text({ limit: LIMITS.memoryOrigin }).optional(),
  /** The learning run (an import of another assistant's conversations) that brought it: "undo this import" takes
   * away every item carrying its id, approved or not. */
  importId: id.optional(),
  /** The conversation (session id) it came from, when there is one. */
  sessionId: sessionId.nullable().optional(),
})

/** A flag as stored: `true`, or left out. */
const flag = z.literal(true)

/** One remembered fact with its provenance, as stored (lib/state/model.ts `MemoryItem`). */
export const MemoryItemStored = MemoryItemInput.extend({
  id,
  source: oneOf(MEMORY_SOURCES),
  at: time,
  sessionId: sessionId.optional(),
  pinned: flag.optional(),
  pending: flag.optional(),
  approved: flag.optional(),
  archived: flag.optional(),
})

/** A list of memory items within `limit` (their ids are checked unique once filled in, lib/provenance/provenance.ts). */
export const memoryItemList = (limit: number) => list(MemoryItemInput, limit, 'items')

/** A memory as it arrives: summary and items, both optional. */
export const MemoryInput = strict({
  summary: text({ limit: LIMITS.summary }).optional(),
  items: memoryItemList(LIMITS.memoryItems).optional(),
})

/** Long-term memory as stored: a rolling summary plus discrete items. */
export const MemoryStored = strict({
  summary: text({ limit: LIMITS.summary }),
  items: z.array(MemoryItemStored),
})

/** One list of tool names: distinct names, within the count and length limits. */
const toolNames = list(
  z
    .string({ error: (iss) => `must be a string (got ${kind(iss.input)})` })
    .max(LIMITS.toolName, {
      error: (iss) => `is ${(iss.input as string).length} characters, over the limit of ${LIMITS.toolName}`,
    })
    .regex(TOOL_NAME, {
      error: 'must be a tool name: letters, digits, "_", "-", "." or ":", starting with a letter, digit or "_"',
    }),
  LIMITS.toolOverrides,
  'names',
  (v) => `must be an array of tool names (got ${kind(v)})`,
).check((ctx) => {
  const seen = new Set<string>()
  ctx.value.forEach((name, i) => {
    if (seen.has(name)) ctx.issues.push({ code: 'custom', input: ctx.value, path: [i], message: `repeats "${name}"` })
    seen.add(name)
  })
})

/**
 * A profile's tool settings (lib/state/model.ts `ToolSettings`); absent lists are empty. `add`/`remove` (tool names)
 * apply only when `profile` is not `full`, after the profile's own rule, and `remove` wins over `add`.
 */
export const ToolSettingsSchema = strict({
  /** Which tools its conversations are offered; lib/shared/tool-profiles.ts says what each one allows. */
  profile: oneOf(TOOL_PROFILES, true),
  add: toolNames.default([]),
  remove: toolNames.default([]),
})

const modelId = text({ limit: LIMITS.modelId, singleLine: true, required: true })

/**
 * A profile's model choice: a provider route and model id as the host lists them (`ctx.llm.listProviders()`,
 * `listModels(provider)`), with an optional reasoning effort (an id the model's adapter offers) and temperature.
 */
export const ModelChoiceSchema = strict({
  provider: modelId,
  model: modelId,
  reasoningEffort: modelId.optional(),
  temperature: z
    .number({ error: (iss) => `must be a number (got ${kind(iss.input)})` })
    .refine((t) => t >= 0 && t <= LIMITS.temperature, {
      error: (iss) => `is ${String(iss.input)}, outside 0 to ${LIMITS.temperature}`,
      params: { limit: LIMITS.temperature },
    })
    .optional(),
})

/**
 * The Character Card extras an imported profile keeps: the documented shape; the content is the card's own. What an
 * imported card carried that a profile has no field for, kept so that a card exported from the profile carries it
 * back out unchanged (interop/card-to-profile.ts keeps it, profile-to-card.ts writes it back). Plain JSON; never
 * rendered into a prompt.
 */
export const CardExtrasSchema = strict({
  /** The card's `spec` as it came: `chara_card_v1`, `chara_card_v2` or `chara_card_v3`. */
  spec: text({ limit: 40, singleLine: true, required: true }),
  /** The card's `spec_version` as it came ('' for V1). */
  specVersion: text({ limit: 40, singleLine: true }),
  /** Card `data` fields the profile does not map (greetings, creator notes, tags, creator, extensions, V3 fields,
   * unknown keys), as they came. */
  data: anyRecord,
  /** Keys beside `data` at the top of the card, as they came, except copies of `data` fields (see `mirror`). */
  top: anyRecord.optional(),
  /** Top-level keys that repeated a `data` field for old readers; exported again as copies of that field. */
  mirror: z.array(z.string(), { error: 'must be a list of key names' }).optional(),
  /** Per profile field, the card fields it was made from, kept while the profile's text is still the one the import
   * gave it (`digest`), because mapping that text back would not give the same card fields. */
  originals: z
    .record(z.string(), strict({ digest: text({ limit: 64, singleLine: true }), fields: anyRecord }), {
      error: (iss) => `must be an object (got ${kind(iss.input)})`,
    })
    .optional(),
})

/**
 * The fields a caller may set on a profile, each optional (a patch), in the order they are checked. `avatar` is
 * only typed here: its image rules need the bytes (lib/validate/state.ts `avatar`). `model: null` removes the model.
 */
export const ProfileFields = strict({
  name: text({ limit: LIMITS.name, singleLine: true, required: true }).optional(),
  emoji: text({ limit: LIMITS.emoji, singleLine: true, graphemes: true }).optional(),
  avatar: z.string({ error: (iss) => `must be a data URL or "" (got ${kind(iss.input)})` }).optional(),
  role: text({ limit: LIMITS.role }).optional(),
  personality: text({ limit: LIMITS.personality }).optional(),
  speakingStyle: text({ limit: LIMITS.speakingStyle }).optional(),
  rules: text({ limit: LIMITS.rules }).optional(),
  memoryEnabled: bool.optional(),
  /** `ask`: facts from the tool and the job wait for the user's approval (suggestions); absent or `auto`: stored at
   * once. */
  memoryMode: oneOf(MEMORY_MODES).optional(),
  memory: MemoryInput.optional(),
  /** The tools its conversations get; absent means `full` (every tool the host offers, unchanged). */
  tools: ToolSettingsSchema.optional(),
  /** The model its conversations' turns run on; absent means the conversation's model (the composer's), as before. */
  model: ModelChoiceSchema.nullable().optional(),
})

/**
 * Which team library a profile comes from (lib/sync/library.ts), and the tools its files asked for (it runs with at
 * most read-only). Its fields are the library's to change (a pull request in the team's repository); its memory is
 * the user's own.
 */
const LibraryMarkSchema = strict({
  /** The library's id (a short key of its remote and branch). */
  id,
  /** The name the user gave the library (or one made from its remote). */
  name: text({ limit: LIMITS.name, singleLine: true, required: true }),
  /** The tool settings the library's files asked for, when they asked for more than the profile runs with. */
  asks: ToolSettingsSchema.optional(),
  /** The model the library's files name: offered as `suggestedModel` when it first arrives or changes. */
  model: ModelChoiceSchema.optional(),
})

/** A complete profile as stored or exported: the fields (see lib/validate/state.ts for which must be present), its
 * id, times and card extras. */
export const ProfileRecord = ProfileFields.extend({
  id,
  createdAt: time,
  updatedAt: time,
  card: z.unknown().optional(),
  /**
   * A model (with its effort and temperature) a file brought: never used for a turn; it becomes `model` only when the
   * user accepts it in the editor's Model section, and is gone when they dismiss it.
   */
  suggestedModel: ModelChoiceSchema.optional(),
  library: LibraryMarkSchema.optional(),
})

/** One agent profile as stored (lib/state/model.ts `Profile`). `avatar` is a raster data URL or the empty string. */
export const ProfileStored = ProfileRecord.extend({
  memory: MemoryStored,
  /** Present on profiles imported from a Character Card: what the card carried beyond these fields. */
  card: CardExtrasSchema.optional(),
  model: ModelChoiceSchema.optional(),
}).required({
  name: true,
  emoji: true,
  avatar: true,
  role: true,
  personality: true,
  speakingStyle: true,
  rules: true,
  memoryEnabled: true,
})

/** A conversation's cast: distinct profile ids, in order, at most LIMITS.cast. */
const CastSchema = list(id, LIMITS.cast, 'profiles', () => 'must be an array of profile ids').check((ctx) => {
  ctx.value.forEach((pid, i) => {
    if (ctx.value.indexOf(pid) < i)
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [i], message: `names "${pid}" twice` })
  })
})

/** A conversation's settings as stored: whether its pin and cast name existing profiles is the store's to check. */
export const SessionSettingInput = strict({
  /** Pinned profile, or null to follow the global default. */
  profileId: id.nullable().optional(),
  /** Extra instructions for this conversation only. */
  note: text({ limit: LIMITS.note }).optional(),
  /** Conversation-only memories. */
  memories: memoryItemList(LIMITS.sessionMemories).optional(),
  /** Incognito: the conversation still reads memory but writes none (the tool refuses, the job skips it). */
  incognito: bool.optional(),
  /** When the user last asked this conversation to take the current memory (⚙ panel), in ms since the epoch: under
   * cache-stable memory a running conversation otherwise keeps the memory text it started with. */
  memoryRefreshedAt: time.optional(),
  /** Profiles the user added to this conversation's cast (quick switcher), in order: `@all` asks each of them. */
  cast: CastSchema.optional(),
})

/** One conversation's own settings as stored (lib/state/model.ts `SessionSetting`). An entry with no pin, no note
 * and no memories does not exist. */
export const SessionSettingStored = SessionSettingInput.extend({
  memories: z.array(MemoryItemStored),
  incognito: flag.optional(),
}).required({ profileId: true, note: true })

/** One memory item a request carried, as the model read it: recorded per turn, so the turn head can say which
 * memories shaped it even after the item is edited or deleted. */
export const UsedMemoryStored = strict({
  /** Which memory list it came from: the user layer, the profile's own, or the conversation's. */
  layer: oneOf(MEMORY_LAYERS),
  id,
  text: text({ limit: LIMITS.memoryItem }),
  /** Sent by recall (the late runtime context of that turn), not by the system prompt's memory half. */
  recalled: flag.optional(),
  /** On a recalled item: when it was saved (ms since the epoch). */
  at: time.optional(),
})

/** The memory items one turn's requests carried (`turn.record`): at most every item one request can hold. */
export const UsedMemoriesSchema = list(
  UsedMemoryStored.extend({ recalled: bool.optional() }).transform(({ recalled, ...used }) =>
    recalled === true ? { ...used, recalled: true as const } : used,
  ),
  LIMITS.memoryItems + LIMITS.sessionMemories + LIMITS.userItems,
  'items',
  () => 'must be an array of {id, text, layer}',
)

const finite = z
  .number({ error: (iss) => `must be a number (got ${kind(iss.input)})` })
  .refine(Number.isFinite, { error: 'must be a finite number' })

/**
 * The model one turn's latest request went out on (`turn.record`), with the parameters that shape the answer: what
 * the host sent, not only what a profile asks (the host may set a temperature or a token limit of its own).
 */
export const RecordedModelSchema = strict({
  provider: modelId,
  model: modelId,
  reasoningEffort: modelId.optional(),
  temperature: finite.optional(),
  maxTokens: finite.refine((n) => Number.isSafeInteger(n) && n > 0, { error: 'must be a positive integer' }).optional(),
})

/** The model and parameters of one turn's latest request, as the turn's record and the ledger keep them. */
export type RecordedModel = z.output<typeof RecordedModelSchema>

const before = <T extends z.ZodType>(item: T) => strict({ before: item, after: item })

/** One recorded memory write, as stored. */
export const MemoryWriteInput = strict({
  /** Who made it: someone typing (settings page, ⚙ panel), the model's tool, the background job, a compression, an
   * import, or an undo (a revert of an earlier write, or the undo of a compression). */
  who: oneOf(MEMORY_WRITERS),
  id,
  at: time,
  added: memoryItemList(LIMITS.memoryItems).optional(),
  removed: memoryItemList(LIMITS.memoryItems).optional(),
  edited: z.array(before(MemoryItemInput), { error: 'must be an array' }).optional(),
  /** The conversation that caused it (the tool's or the job's conversation, the ⚙ panel's), when there is one. */
  sessionId: sessionId.optional(),
  /** The summary, when it changed. */
  summary: before(text({ limit: LIMITS.summary })).optional(),
  /** The write this one reverts. */
  reverts: id.optional(),
})

/**
 * One recorded change to one memory list as stored (lib/state/model.ts `MemoryWrite`): who made it, when, from which
 * conversation, and exactly what changed, so that it can be shown and reverted later.
 */
export const MemoryWriteStored = MemoryWriteInput.extend({
  added: z.array(MemoryItemStored),
  removed: z.array(MemoryItemStored),
  /** Items that changed in place (text or pin): as they were and as they became. */
  edited: z.array(before(MemoryItemStored)),
})

/** One profile's undo copy of its memory before a compression. */
export const UndoEntryInput = strict({ memory: MemoryInput, at: time })

/** The user layer as it arrives. */
export const UserLayerInput = strict({ items: memoryItemList(LIMITS.userItems).optional() })

/**
 * Memory about the user themselves (name, preferences, background) as stored (lib/state/model.ts `UserLayer`): one
 * list shared by every profile whose memory is on, beside each profile's own memory and each conversation's own.
 */
export const UserLayerStored = strict({ items: z.array(MemoryItemStored) })

/** The keys of a data file or a bare state being imported (each value has its own rule, checked in context). */
export const STATE_FILE_KEYS = strict({
  version: z.unknown().optional(),
  activeId: z.unknown().optional(),
  profiles: z.unknown().optional(),
  sessions: z.unknown().optional(),
  memoryUndo: z.unknown().optional(),
  history: z.unknown().optional(),
  user: z.unknown().optional(),
})

/** The keys of an export envelope (each value has its own rule, checked in context). */
export const ENVELOPE_KEYS = strict({
  format: z.unknown().optional(),
  version: z.unknown().optional(),
  exportedAt: z.unknown().optional(),
  activeId: z.unknown().optional(),
  profiles: z.unknown().optional(),
  user: z.unknown().optional(),
})
