/**
 * What a caller gives the store, as the commands' schemas take it (schema-commands.ts, schema-state.ts): a command,
 * a profile's patch and an imported file. The types are the schemas' input types, so a type and the
 * rule that checks it cannot drift. Types and constants only; no `node:` import, no behaviour.
 */
import type * as z from 'zod'
import type { ModelChoice, Profile } from '../state/model.ts'
import type { COMMAND_SCHEMAS, CommandInput, ImportFileSchema } from './schema-commands.ts'

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

/** A field a caller may set on a profile. */
export type EditableField = (typeof EDITABLE_FIELDS)[number]

/** A validated set of changes to a profile; `model: null` removes the profile's model (back to the conversation's). */
export type ProfilePatch = Partial<Pick<Profile, Exclude<EditableField, 'model'>>> & { model?: ModelChoice | null }

/** The formats a file may be given as. */
export type FileFormat = ImportFile['format']

/** One file as the command takes it: text, or base64 bytes (PNG cards); `avatar` is an already shrunk picture. */
export type ImportFile = z.input<typeof ImportFileSchema>

/**
 * A `profile.update` patch. With `basedOn` (the memory item ids the editor started from), `memory.items` is merged
 * into the items saved meanwhile rather than replacing them (see `rebaseItems`), and an omitted `memory.summary`
 * keeps the saved one.
 */
export type ProfileUpdate = z.input<(typeof COMMAND_SCHEMAS)['profile.update']>['patch']

/** Every command the store accepts, as its schema takes it (schema-commands.ts). Arguments arrive untrusted (HTTP,
 * tools) and are checked by the op's schema before the command runs. */
export type Command = CommandInput
