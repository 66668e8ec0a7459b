/**
 * The schemas of every stored shape (zod 4): a memory item as a caller or a row gives it, a memory, a profile's
 * fields, its tool settings, model choice and Character Card extras, a whole profile, a conversation's settings, the
 * memory items one turn carried, one memory write. Shape and limits only, from lib/state/model.ts LIMITS: what needs
 * the live state (a pin naming an existing profile) or the disk or node (an avatar's image signature) is
 * lib/validate's; a policy (the provenance an item gets when it comes without one) is the commands'
 * (lib/store/db/provenance.ts). Both halves may import it.
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
} from '../state/model.ts'
import { anyRecord, bool, id, kind, list, oneOf, sessionId, strict, text, time } from './schema-kit.ts'

/**
 * One memory item as it arrives: only `text` is required; the provenance (`id`, `source`, `at`, `sessionId`) a
 * caller leaves out is the command's to fill (`sessionId: null` says "from no conversation").
 */
export const MemoryItemInput = strict({
  id: id.optional(),
  text: text({ limit: LIMITS.memoryItem, required: true }),
  source: oneOf(MEMORY_SOURCES).optional(),
  at: time.optional(),
  pinned: bool.optional(),
  pending: bool.optional(),
  replaces: id.optional(),
  approved: bool.optional(),
  archived: bool.optional(),
  keys: text({ limit: LIMITS.memoryKeys }).optional(),
  origin: text({ limit: LIMITS.memoryOrigin }).optional(),
  importId: id.optional(),
  sessionId: sessionId.nullable().optional(),
})

/** A list of memory items within `limit` (their ids are checked unique once filled in, lib/store/db/provenance.ts). */
export const memoryItemList = (limit: number) => list(MemoryItemInput, limit, 'items')

/** A memory as it arrives: summary and items, both optional. */
export const MemoryInput = strict({
  summary: text({ limit: LIMITS.summary }).optional(),
  items: memoryItemList(LIMITS.memoryItems).optional(),
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

/** A profile's tool settings (lib/state/model.ts `ToolSettings`); absent lists are empty. */
export const ToolSettingsSchema = strict({
  profile: oneOf(TOOL_PROFILES, true),
  add: toolNames.default([]),
  remove: toolNames.default([]),
})

const modelId = text({ limit: LIMITS.modelId, singleLine: true, required: true })

/** A profile's model choice: provider and model ids, an optional reasoning effort and temperature. */
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

/** The Character Card extras an imported profile keeps: the documented shape; the content is the card's own. */
export const CardExtrasSchema = strict({
  spec: text({ limit: 40, singleLine: true, required: true }),
  specVersion: text({ limit: 40, singleLine: true }),
  data: anyRecord,
  top: anyRecord.optional(),
  mirror: z.array(z.string(), { error: 'must be a list of key names' }).optional(),
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
  memoryMode: oneOf(MEMORY_MODES).optional(),
  memory: MemoryInput.optional(),
  tools: ToolSettingsSchema.optional(),
  model: ModelChoiceSchema.nullable().optional(),
})

/** A complete profile as stored or exported: the fields (see lib/validate/state.ts for which must be present), its
 * id, times and card extras. */
export const ProfileRecord = ProfileFields.extend({
  id,
  createdAt: time,
  updatedAt: time,
  card: z.unknown().optional(),
  suggestedModel: ModelChoiceSchema.optional(),
  library: strict({
    id,
    name: text({ limit: LIMITS.name, singleLine: true, required: true }),
    asks: ToolSettingsSchema.optional(),
    model: ModelChoiceSchema.optional(),
  }).optional(),
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
  profileId: id.nullable().optional(),
  note: text({ limit: LIMITS.note }).optional(),
  memories: memoryItemList(LIMITS.sessionMemories).optional(),
  incognito: bool.optional(),
  memoryRefreshedAt: time.optional(),
  cast: CastSchema.optional(),
})

/** The memory items one turn's requests carried (`turn.record`): at most every item one request can hold. */
export const UsedMemoriesSchema = list(
  strict({
    layer: oneOf(MEMORY_LAYERS),
    id,
    text: text({ limit: LIMITS.memoryItem }),
    recalled: bool.optional(),
    at: time.optional(),
  }).transform(({ recalled, ...used }) => (recalled === true ? { ...used, recalled: true as const } : used)),
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
  who: oneOf(MEMORY_WRITERS),
  id,
  at: time,
  added: memoryItemList(LIMITS.memoryItems).optional(),
  removed: memoryItemList(LIMITS.memoryItems).optional(),
  edited: z.array(before(MemoryItemInput), { error: 'must be an array' }).optional(),
  sessionId: sessionId.optional(),
  summary: before(text({ limit: LIMITS.summary })).optional(),
  reverts: id.optional(),
})

/** One profile's undo copy of its memory before a compression. */
export const UndoEntryInput = strict({ memory: MemoryInput, at: time })

/** The user layer as stored. */
export const UserLayerInput = strict({ items: memoryItemList(LIMITS.userItems).optional() })

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
