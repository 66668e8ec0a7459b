/**
 * The plugin's configuration: its schema (zod 4, the plugin's own dependency: the host's schema library may only be
 * imported as a type from an out-of-tree plugin), the defaults it gives, and the validation of the Loader row's
 * `config` with errors that name the field. It never reads the row (lib/index.ts does).
 */

import * as z from 'zod'
import type { ConfigRefusal } from '../shared/reasons.ts'
import { ConfigError } from './errors.ts'

/** What an option accepts, as a refusal of it says (its rule, and the bounds or choices the rule names). */
type Accepts = Omit<ConfigRefusal, 'code' | 'field'>

/**
 * What each option of the schema accepts, registered where the option is made from the same bounds as its English,
 * so that the refusal the page words cannot say other than the log.
 */
const ACCEPTS = z.registry<Accepts>()

/** A field's refusal words: what it accepts, and what it got. */
const got = (accepts: string) => (iss: { input?: unknown }) => `must be ${accepts}, got ${JSON.stringify(iss.input)}`

/** An integer from `min` to `max`, `fallback` when absent. */
function integer(min: number, max: number, fallback: number) {
  const error = got(`an integer from ${min} to ${max}`)
  return z
    .number({ error })
    .int({ error })
    .min(min, { error })
    .max(max, { error })
    .default(fallback)
    .register(ACCEPTS, { rule: 'config.integer', min, limit: max })
}

/** A boolean, `fallback` when absent. */
const flag = (fallback: boolean) =>
  z.boolean({ error: 'must be true or false' }).default(fallback).register(ACCEPTS, { rule: 'config.flag' })

/** An object whose fields all have defaults; absent or null reads as `{}`. */
const section = <S extends z.ZodRawShape>(shape: S) =>
  z
    .preprocess((v) => v ?? {}, z.object(shape, { error: 'must be an object' }))
    .register(ACCEPTS, { rule: 'config.section' })

/** What a subagent may inherit from its parent conversation's profile. */
const SUBAGENTS = ['none', 'inherit'] as const

/**
 * The Loader row's `config`: every field with its bounds and default. Keys it does not name are ignored (a row may
 * carry settings of a newer version).
 */
const ConfigSchema = section({
  /** Data file; default `$DSH_AGENT_PROFILES_DATA`, else `<DSH_HOME>/agent-profiles/profiles.sqlite`. */
  dataFile: z
    .string({ error: 'must be a non-empty path' })
    .refine((f) => f.trim() !== '', { error: 'must be a non-empty path' })
    .optional()
    .register(ACCEPTS, { rule: 'config.path' }),
  /** Characters of memory (summary + items) injected per request. */
  memoryBudget: integer(200, 100_000, 3000),
  /** Characters of recall per turn: the memory items relevant to the user's new message, sent after it as runtime
   * context (0 turns recall off). */
  recallBudget: integer(0, 20_000, 2000),
  /** What a subagent inherits from its parent conversation's profile. */
  subagents: z
    .enum(SUBAGENTS, { error: got(SUBAGENTS.map((v) => JSON.stringify(v)).join(' or ')) })
    .default('none')
    .register(ACCEPTS, { rule: 'config.choice', values: SUBAGENTS }),
  /** A running conversation keeps the memory text it started with while only the model's tool, the background job
   * and compression write (hand edits, a profile switch and the ⚙ panel's refresh still apply from the next turn). */
  cacheStableMemory: flag(true),
  /** How often (ms) the host's sessions are listed to forget the settings of conversations it no longer has. */
  sessionCheckMs: integer(1000, 86_400_000, 600_000),
  memory: section({
    /** Background extraction on/off. */
    autoExtract: flag(true),
    /** Extract after every N completed turns of a conversation. */
    everyTurns: integer(1, 1000, 5),
    /** Characters of conversation excerpt sent per extraction. */
    excerptChars: integer(500, 100_000, 6000),
    /** Compress a profile's memory when summary + items pass this many characters. */
    compressAt: integer(500, 1_000_000, 5000),
    /** Give up on one background model call after this long. */
    timeoutMs: integer(1000, 600_000, 60_000),
    /** Start an extraction only after the conversation has been idle this long (ms). */
    idleMs: integer(0, 600_000, 1000),
  }),
})

/** Resolved configuration. Every field has a default; the row's `config` may set any of them. */
export type Config = z.output<typeof ConfigSchema>

export const DEFAULT_CONFIG: Config = ConfigSchema.parse({})

/** The option at `path` of `schema` (through sections), or undefined past the options the schema names. */
function optionAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let at: z.ZodType | undefined = schema
  for (const key of path) {
    const object: unknown = at instanceof z.ZodPipe ? at.out : at
    at = object instanceof z.ZodObject ? (object.shape as Record<PropertyKey, z.ZodType>)[key] : undefined
  }
  return at
}

/** Merge the row config over the defaults, validating every field it sets. */
export function resolveConfig(raw: unknown): Config {
  const r = ConfigSchema.safeParse(raw)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  const field = issue.path.length === 0 ? 'config' : issue.path.join('.')
  const option = optionAt(ConfigSchema, issue.path)
  const accepts = option === undefined ? undefined : ACCEPTS.get(option)
  throw new ConfigError(`agent-profiles: config: ${field} ${issue.message}`, { code: 'invalid', field, ...accepts })
}
