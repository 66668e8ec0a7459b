/**
 * The schema of every command the store accepts (zod 4), one per op, the single source of the commands' types
 * (contract.ts `Command` is their input type) and of their shape rules: known keys only, each field's type and
 * limits. What needs the live state — a target that must exist, a list whose limit depends on the list it writes
 * to, an item the editor started from — is the command's own (lib/commands). Both halves may import it.
 */
import * as z from 'zod'
import { LIMITS } from '../state/model.ts'
import { isBase64 } from './card-png.ts'
import { CARD_FILE_LIMIT, FILE_FORMATS, TEXT_FILE_LIMIT } from './files.ts'
import { bool, id, list, oneOf, sessionId, strict, text, time } from './schema-kit.ts'
import {
  MemoryInput,
  MemoryItemInput,
  ProfileFields,
  SessionSettingInput,
  UsedMemoriesSchema,
  RecordedModelSchema,
  memoryItemList,
} from './schema-state.ts'

/** The three forms of a memory target, each with its own keys. */
const TARGETS = {
  profile: strict({ profileId: id }),
  session: strict({ sessionId }),
  user: strict({ user: z.literal(true) }),
}

/** Where a memory operation writes: a profile's own memory, one conversation's memories, or the user layer. */
export type MemoryTarget = z.output<(typeof TARGETS)[keyof typeof TARGETS]>

/** The target of a memory command as its schema types it; which of the three forms it is decides how it is checked
 * (see {@link targetSchemaOf}), so a refusal names the field of that form. */
const target = z.custom<MemoryTarget>(() => true)

/** The form a memory target takes by the keys it has, or undefined when it is none of them. */
export function targetSchemaOf(t: Record<string, unknown>): (typeof TARGETS)[keyof typeof TARGETS] | undefined {
  if (t.profileId !== undefined && t.sessionId === undefined) return TARGETS.profile
  if (t.sessionId !== undefined && t.profileId === undefined) return TARGETS.session
  return t.user === true ? TARGETS.user : undefined
}

/** Ids an editor or a compression started from, at most `limit`. */
const basedOn = (limit: number) => list(id, limit, 'ids', () => 'must be an array of memory item ids')

/** A memory text a command sets. */
const itemText = text({ limit: LIMITS.memoryItem, required: true })

/** One file of `profiles.importFiles`: text, or base64 bytes (PNG cards); `avatar` is an already shrunk picture. */
export const ImportFileSchema = strict({
  name: text({ limit: 255, singleLine: true, required: true }),
  format: oneOf(FILE_FORMATS),
  text: z
    .string({ error: 'must be a string' })
    .max(TEXT_FILE_LIMIT, {
      error: (iss) => `is ${(iss.input as string).length} characters, over the limit of ${TEXT_FILE_LIMIT}`,
    })
    .optional(),
  data: z
    .string({ error: 'must be base64' })
    .refine(isBase64, { error: 'must be base64' })
    .refine((d) => Math.floor((d.length * 3) / 4) <= CARD_FILE_LIMIT, {
      error: (iss) =>
        `is about ${Math.floor(((iss.input as string).length * 3) / 4)} bytes, over the limit of ${CARD_FILE_LIMIT}`,
      params: { limit: CARD_FILE_LIMIT },
    })
    .optional(),
  avatar: z.string().optional(),
  /** The user said this file is their own (an export of theirs): it may bring up to OWN_FILE_BOUNDS, not FILE_BOUNDS. */
  own: bool.optional(),
}).refine((f) => (f.text === undefined) !== (f.data === undefined), { error: 'must carry either text or data' })

/** The choice of an import between keeping both profiles of a clash and asking, and the ids it replaces. */
const importChoice = {
  conflicts: z.enum(['keep-both', 'ask'], { error: 'must be "keep-both" or "ask"' }).optional(),
  replace: z
    .array(id, { error: `must be a list of at most ${LIMITS.profiles} profile ids` })
    .max(LIMITS.profiles, { error: `must be a list of at most ${LIMITS.profiles} profile ids` })
    .optional(),
}

/** The list of files of an import: at least one, at most the profile limit. */
const fileList = <S extends z.ZodType>(file: S) =>
  list(file, LIMITS.profiles, 'files', () => 'must be a non-empty list of files').min(1, {
    error: 'must be a non-empty list of files',
  })

/** `profiles.importFiles` whose files the import worker read already: the list is checked for its count alone. */
export const READ_IMPORT_SCHEMA = strict({
  op: z.literal('profiles.importFiles'),
  files: fileList(z.unknown()),
  ...importChoice,
})

/**
 * What a sync changes in one memory list: items put (replacing the item of the same id in place, else appended),
 * ids removed, the whole order when it is not the one those edits give, and the list's whole history.
 */
const SyncListDelta = strict({
  put: z.array(MemoryItemInput, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  remove: z.array(id, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  order: z.array(id, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  history: z.array(z.unknown(), { error: 'must be an array' }).optional(),
})

/**
 * What a sync changes of one profile: deletes it, or sets its fields (a whole profile without items) and memory.
 * `seenAt` is the profile's `updatedAt` when the sync read it (absent: it was not there): a profile changed since is
 * refused, so the sync reads again rather than overwrite what was just saved.
 */
const SyncProfileDelta = strict({
  id,
  seenAt: time.optional(),
  delete: z.literal(true).optional(),
  profile: z.unknown().optional(),
  memory: SyncListDelta.optional(),
})

/** The schema of each op. */
export const COMMAND_SCHEMAS = {
  'profile.create': strict({ op: z.literal('profile.create'), profile: ProfileFields.optional() }),
  'profile.update': strict({
    op: z.literal('profile.update'),
    id,
    patch: ProfileFields.extend({ basedOn: basedOn(LIMITS.memoryItems).optional() }),
    /** The user's answer to the model a file suggested (lib/commands/model-suggestion.ts). */
    suggestion: z.enum(['accept', 'dismiss'], { error: 'must be "accept" or "dismiss"' }).optional(),
  }),
  'profile.duplicate': strict({ op: z.literal('profile.duplicate'), id }),
  'profile.delete': strict({ op: z.literal('profile.delete'), id }),
  'profile.activate': strict({ op: z.literal('profile.activate'), id }),
  'memory.add': strict({
    op: z.literal('memory.add'),
    target,
    items: z
      .array(
        MemoryItemInput.pick({ text: true, source: true, sessionId: true, keys: true, origin: true }).extend({
          replaces: id.optional(),
        }),
        {
          error: 'must be a non-empty array',
        },
      )
      .min(1, { error: 'must be a non-empty array' }),
    /** The profile that answered the conversation the facts come from (its rules decide whether they are proposed). */
    from: id.optional(),
  }),
  'memory.update': strict({ op: z.literal('memory.update'), target, itemId: id, text: itemText }),
  'memory.remove': strict({ op: z.literal('memory.remove'), target, itemId: id }),
  'memory.clear': strict({ op: z.literal('memory.clear'), target }),
  'memory.compress': strict({
    op: z.literal('memory.compress'),
    profileId: id,
    memory: MemoryInput,
    basedOn: basedOn(LIMITS.memoryItems).optional(),
    sessionId: sessionId.optional(),
  }),
  'memory.undo': strict({ op: z.literal('memory.undo'), profileId: id }),
  'memory.history': strict({
    op: z.literal('memory.history'),
    target: target.optional(),
    sessionId: sessionId.optional(),
  }),
  /** A pasted list of facts, one a line (lib/commands/paste.ts). */
  'memory.paste': strict({
    op: z.literal('memory.paste'),
    target,
    text: text({ limit: LIMITS.pastedList, required: true }),
    origin: text({ limit: LIMITS.memoryOrigin, singleLine: true }).optional(),
  }),
  /** What one call of a learning run found (lib/commands/learn.ts): suggestions carrying the run's id. */
  'memory.learn': strict({
    op: z.literal('memory.learn'),
    target,
    importId: id,
    items: z
      .array(
        MemoryItemInput.pick({ text: true, keys: true, origin: true, at: true }).extend({ replaces: id.optional() }),
        { error: 'must be a non-empty array' },
      )
      .min(1, { error: 'must be a non-empty array' }),
  }),
  /** Undo a learning run: every item it brought to the target's memory goes (lib/commands/learn.ts). */
  'memory.unlearn': strict({ op: z.literal('memory.unlearn'), target, importId: id }),
  'memory.approve': strict({
    op: z.literal('memory.approve'),
    target,
    itemId: id,
    text: itemText.optional(),
    sessionId: sessionId.optional(),
  }),
  'memory.revert': strict({
    op: z.literal('memory.revert'),
    target,
    entryId: id,
    itemIds: z
      .array(id, { error: 'must be a non-empty array of memory item ids' })
      .min(1, { error: 'must be a non-empty array of memory item ids' })
      .optional(),
    sessionId: sessionId.optional(),
  }),
  'session.set': strict({
    op: z.literal('session.set'),
    sessionId,
    patch: SessionSettingInput.pick({ profileId: true, note: true, memories: true, cast: true }).extend({
      basedOn: basedOn(LIMITS.sessionMemories).optional(),
      incognito: z.boolean({ error: 'must be true or false' }).optional(),
    }),
  }),
  'user.set': strict({
    op: z.literal('user.set'),
    items: memoryItemList(LIMITS.userItems),
    basedOn: basedOn(LIMITS.userItems).optional(),
  }),
  'session.clear': strict({ op: z.literal('session.clear'), sessionId }),
  'session.refreshMemory': strict({ op: z.literal('session.refreshMemory'), sessionId }),
  'sessions.clearAll': strict({ op: z.literal('sessions.clearAll') }),
  'state.import': strict({
    op: z.literal('state.import'),
    payload: z.unknown().optional(),
    mode: z.enum(['merge', 'replace'], { error: 'must be "merge" or "replace"' }),
  }),
  'profiles.importFiles': strict({
    op: z.literal('profiles.importFiles'),
    files: fileList(ImportFileSchema),
    ...importChoice,
  }),
  'state.restoreDefaults': strict({ op: z.literal('state.restoreDefaults') }),
  'turn.record': strict({
    op: z.literal('turn.record'),
    sessionId,
    turn: z
      .number({ error: 'must be a non-negative integer' })
      .refine((n) => Number.isSafeInteger(n) && n >= 0, { error: 'must be a non-negative integer' }),
    profileId: id,
    memories: UsedMemoriesSchema.optional(),
    model: RecordedModelSchema.optional(),
  }),
  'sync.apply': strict({
    op: z.literal('sync.apply'),
    profiles: z.array(SyncProfileDelta, { error: 'must be an array' }).max(LIMITS.profiles * 2, {
      error: `must hold at most ${LIMITS.profiles * 2} profiles`,
    }),
    user: SyncListDelta.optional(),
  }),
  'library.apply': strict({
    op: z.literal('library.apply'),
    library: strict({ id, name: text({ limit: LIMITS.name, singleLine: true, required: true }) }),
    profiles: z.array(z.unknown(), { error: 'must be an array' }).max(LIMITS.profiles, {
      error: `must hold at most ${LIMITS.profiles} profiles`,
    }),
    remove: z.literal(true).optional(),
    /** The memory history kept aside for profiles arriving now (each entry checked by the command). */
    history: z
      .array(strict({ id, entries: z.array(z.unknown(), { error: 'must be an array' }) }), {
        error: 'must be an array',
      })
      .max(LIMITS.profiles, { error: `must hold at most ${LIMITS.profiles} profiles` })
      .optional(),
  }),
  'sessions.forget': strict({
    op: z.literal('sessions.forget'),
    sessionIds: z.array(sessionId, { error: 'must be an array of session ids' }),
  }),
} as const

/** Every op the store accepts. */
export type Op = keyof typeof COMMAND_SCHEMAS

/** A command as a caller gives it, by op. */
export type CommandInput<K extends Op = Op> = { [P in K]: z.input<(typeof COMMAND_SCHEMAS)[P]> }[K]
/** A command once its schema accepted it, by op. */
export type CommandOf<K extends Op> = z.output<(typeof COMMAND_SCHEMAS)[K]>

/** Whether `op` names a command (an own key of the table, never an inherited one). */
export function isOp(op: unknown): op is Op {
  return typeof op === 'string' && Object.hasOwn(COMMAND_SCHEMAS, op)
}
