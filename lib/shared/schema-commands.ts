/**
 * The schema of every command the store accepts (zod 4), one per op, the single source of the commands' types
 * (command-inputs.ts `Command` is their input type) and of their shape rules: known keys only, each field's type and
 * limits. What needs the live state — a target that must exist, a list whose limit depends on the list it writes
 * to, an item the editor started from — is the command's own (lib/commands). Both halves may import it.
 */
import * as z from 'zod'
import { HISTORY_LIMITS, LIMITS, type MemoryItem, type MemoryWrite, type Profile } from '../state/model.ts'
import { isBase64 } from './card-png.ts'
import { CARD_FILE_LIMIT, FILE_FORMATS, TEXT_FILE_LIMIT } from './files.ts'
import { bool, id, list, oneOf, sessionId, strict, text, time } from '../state/schema-kit.ts'
import { targetField as target, type MemoryHistoryEntry } from './memory-target.ts'
import type { FileResult, MergeReport, NameChange } from './import-report.ts'
import { reply, type Replies } from './replies.ts'
import {
  MemoryInput,
  MemoryItemInput,
  ProfileFields,
  SessionSettingInput,
  UsedMemoriesSchema,
  RecordedModelSchema,
  memoryItemList,
} from '../state/schema-state.ts'

/**
 * Op schema `schema` whose reply carries the fields `R` besides the state and the notice (commands.ts derives
 * `HostReplyFields` from them): an op's reply is written beside its schema, and an op that names none answers no
 * fields of its own. `reply` holds nothing at run time, so the schema is the same object.
 */
const answers = <S extends z.ZodType, R>(schema: S, fields: Replies<R>): S & Replies<R> => Object.assign(schema, fields)

/** The items `memory.add` (and `memory.paste`) wrote, the texts already known, the items the new ones replaced, and the
 * replacements that could not apply (texts; the new fact was kept beside the old one). */
interface MemoryAdded {
  added: MemoryItem[]
  duplicates: string[]
  replaced: MemoryItem[]
  unresolved: string[]
}

/** What `state.import` did: profiles imported; a merge reports what it did with the rest, a replace how many
 * conversations it unpinned; `userAdded` (present when the file brought any) counts the user-layer facts it added. */
type StateImported = { imported: number; userAdded?: number } & (MergeReport | { unbound: number; names: NameChange[] })

/** What a team library's pull did: how many of its profiles it added, changed or took away, and the memory items and
 * history of the profiles that left the list, as they were at that moment. */
interface LibraryApplied {
  profiles: number
  gone: { id: string; summary: string; items: MemoryItem[]; history: MemoryWrite[] }[]
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
 * ids removed, the whole order when it is not the one those edits give, and how its history changed: the number of
 * its oldest entries that went and the entries appended after the rest (a pulled fact: none gone, its one entry
 * added), so that a pull checks and writes the entries it brings, not the list's whole history.
 */
const SyncListDelta = strict({
  put: z.array(MemoryItemInput, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  remove: z.array(id, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  order: z.array(id, { error: 'must be an array' }).max(LIMITS.memoryItems).optional(),
  history: strict({
    drop: z
      .number({ error: 'must be a number of entries' })
      .refine((n) => Number.isSafeInteger(n) && n >= 0 && n <= HISTORY_LIMITS.entries, {
        error: `must be a whole number from 0 to ${HISTORY_LIMITS.entries}`,
      }),
    add: z.array(z.unknown(), { error: 'must be an array' }),
  }).optional(),
})

/**
 * What a sync changes of one profile: deletes it, or sets its fields (a whole profile without items) and memory; or,
 * for a team profile (whose fields are its library's), its memory and summary.
 * `seenAt` is the profile's `updatedAt` when the sync read it (absent: it was not there): a profile changed since is
 * refused, so the sync reads again rather than overwrite what was just saved.
 */
const SyncProfileDelta = strict({
  id,
  seenAt: time.optional(),
  delete: z.literal(true).optional(),
  profile: z.unknown().optional(),
  memory: SyncListDelta.optional(),
  summary: text({ limit: LIMITS.summary }).optional(),
})

/** The schema of each op, and the fields its reply carries (`answers`). */
export const COMMAND_SCHEMAS = {
  'profile.create': answers(
    strict({ op: z.literal('profile.create'), profile: ProfileFields.optional() }),
    reply<{ profile: Profile }>(),
  ),
  'profile.update': strict({
    op: z.literal('profile.update'),
    id,
    patch: ProfileFields.extend({ basedOn: basedOn(LIMITS.memoryItems).optional() }),
    /** The user's answer to the model a file suggested (lib/commands/model-suggestion.ts). */
    suggestion: z.enum(['accept', 'dismiss'], { error: 'must be "accept" or "dismiss"' }).optional(),
  }),
  'profile.duplicate': answers(strict({ op: z.literal('profile.duplicate'), id }), reply<{ profile: Profile }>()),
  /** Answers how many conversations were unpinned, and how many casts lost the profile. */
  'profile.delete': answers(
    strict({ op: z.literal('profile.delete'), id }),
    reply<{ unbound: number; uncast: number }>(),
  ),
  'profile.activate': strict({ op: z.literal('profile.activate'), id }),
  'memory.add': answers(
    strict({
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
    reply<MemoryAdded>(),
  ),
  'memory.update': strict({ op: z.literal('memory.update'), target, itemId: id, text: itemText }),
  'memory.remove': strict({ op: z.literal('memory.remove'), target, itemId: id }),
  'memory.clear': strict({ op: z.literal('memory.clear'), target }),
  /** Answers how many items the compression carried over unchanged. */
  'memory.compress': answers(
    strict({
      op: z.literal('memory.compress'),
      profileId: id,
      memory: MemoryInput,
      basedOn: basedOn(LIMITS.memoryItems).optional(),
      sessionId: sessionId.optional(),
    }),
    reply<{ carried: number }>(),
  ),
  'memory.undo': strict({ op: z.literal('memory.undo'), profileId: id }),
  /** Answers newest first, at most 200. */
  'memory.history': answers(
    strict({
      op: z.literal('memory.history'),
      target: target.optional(),
      sessionId: sessionId.optional(),
    }),
    reply<{ entries: MemoryHistoryEntry[] }>(),
  ),
  /** A pasted list of facts, one a line (lib/commands/paste.ts). */
  'memory.paste': answers(
    strict({
      op: z.literal('memory.paste'),
      target,
      text: text({ limit: LIMITS.pastedList, required: true }),
      origin: text({ limit: LIMITS.memoryOrigin, singleLine: true }).optional(),
    }),
    reply<MemoryAdded>(),
  ),
  /** What one call of a learning run found (lib/commands/learn.ts): suggestions carrying the run's id. As `memory.add`,
   * answers the suggestions added and the facts the memory already had or an earlier fact said. */
  'memory.learn': answers(
    strict({
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
    reply<MemoryAdded>(),
  ),
  /** Undo a learning run: every item it brought to the target's memory goes (lib/commands/learn.ts). Answers how many. */
  'memory.unlearn': answers(
    strict({ op: z.literal('memory.unlearn'), target, importId: id }),
    reply<{ removed: number }>(),
  ),
  /** Answers the item the approved suggestion replaced, when it named one. */
  'memory.approve': answers(
    strict({
      op: z.literal('memory.approve'),
      target,
      itemId: id,
      text: itemText.optional(),
      sessionId: sessionId.optional(),
    }),
    reply<{ replaced: MemoryItem[] }>(),
  ),
  /** Approve or dismiss many suggestions of one list in one write (lib/commands/decide.ts): the ticked ones
   * (`itemIds`), those of one learning run or import (`importId`), or, naming neither, every one. Answers how many it
   * decided, the items approvals replaced, and the suggestions dropped because the memory already says them. */
  'memory.decide': answers(
    strict({
      op: z.literal('memory.decide'),
      target,
      verdict: oneOf(['approve', 'dismiss']),
      itemIds: list(id, LIMITS.decideIds, 'ids', () => 'must be a non-empty array of memory item ids')
        .min(1, { error: 'must be a non-empty array of memory item ids' })
        .optional(),
      importId: id.optional(),
      sessionId: sessionId.optional(),
    }),
    reply<{ decided: number; replaced: MemoryItem[] }>(),
  ),
  /** Answers how many items the revert changed back (0: the change is gone already). */
  'memory.revert': answers(
    strict({
      op: z.literal('memory.revert'),
      target,
      entryId: id,
      itemIds: z
        .array(id, { error: 'must be a non-empty array of memory item ids' })
        .min(1, { error: 'must be a non-empty array of memory item ids' })
        .optional(),
      sessionId: sessionId.optional(),
    }),
    reply<{ reverted: number }>(),
  ),
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
  /** Answers how many conversations' settings went. */
  'sessions.clearAll': answers(strict({ op: z.literal('sessions.clearAll') }), reply<{ cleared: number }>()),
  'state.import': answers(
    strict({
      op: z.literal('state.import'),
      payload: z.unknown().optional(),
      mode: z.enum(['merge', 'replace'], { error: 'must be "merge" or "replace"' }),
    }),
    reply<StateImported>(),
  ),
  /** Answers the profiles imported in all, what became of each file, and the user-layer facts the files brought as suggestions. */
  'profiles.importFiles': answers(
    strict({
      op: z.literal('profiles.importFiles'),
      files: fileList(ImportFileSchema),
      ...importChoice,
    }),
    reply<{ imported: number; files: FileResult[]; userAdded: number }>(),
  ),
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
  /** Answers how many profiles the pull changed, added or deleted. */
  'sync.apply': answers(
    strict({
      op: z.literal('sync.apply'),
      profiles: z.array(SyncProfileDelta, { error: 'must be an array' }).max(LIMITS.profiles * 2, {
        error: `must hold at most ${LIMITS.profiles * 2} profiles`,
      }),
      user: SyncListDelta.optional(),
    }),
    reply<{ profiles: number }>(),
  ),
  'library.apply': answers(
    strict({
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
    reply<LibraryApplied>(),
  ),
  /** Answers how many conversations' settings went. */
  'sessions.forget': answers(
    strict({
      op: z.literal('sessions.forget'),
      sessionIds: z.array(sessionId, { error: 'must be an array of session ids' }),
    }),
    reply<{ forgotten: number }>(),
  ),
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
