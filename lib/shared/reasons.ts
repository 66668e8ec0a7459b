/**
 * Why something the diagnostics show did not do its job, as keys the page words in the user's language: a background
 * memory run that was skipped or failed, a profile's model the host could not run, a database row this version
 * set aside, and why the data directory cannot be written. Each family lists its keys with
 * the values their wording uses (the shape notices take, notices.ts), so a run or a row can only name a listed key and
 * a spec checks that every key has both languages. It holds no words and no behaviour; the host's own English for its
 * log travels beside these keys and is never shown.
 */
import type { MessageShape, MessageValue } from './notices.ts'
import type { RefusalCode, RefusalRule } from './refusals.ts'

/** Why a background memory run did nothing. */
export const SKIP_REASONS = {
  /** The data is read-only (a newer version made it, or its directory cannot be written): nothing could be saved. */
  'read-only': {},
  incognito: {},
  /** The profile that answered has its memory off (`name`: that profile). */
  'memory-off': { params: ['name'] },
  /** The profile that answered was deleted, before the run or while the model answered. */
  'profile-deleted': {},
  'nothing-to-read': {},
  'memory-full': {},
  /** Compression: every item is pinned, waiting for approval or archived, so there is nothing to condense. */
  'all-pinned': {},
  /** Compression: the memory was edited while the model answered, so its answer no longer fits. */
  'memory-changed': {},
} as const satisfies Record<string, MessageShape>

/** Why a background run did nothing, each with a sentence of its own on the page. */
export type SkipReason = keyof typeof SKIP_REASONS

/**
 * How a background model call failed. `unusable` is a well-formed answer not in the answer protocol; `echo` is an
 * answer that repeats the request's own framing (a weak or misbehaving model).
 */
export type FailureKind =
  'unavailable' | 'error' | 'aborted' | 'timeout' | 'max-tokens' | 'tool-calls' | 'empty' | 'unusable' | 'echo'

/** How a background memory run failed: its model call, its answer, or the save of what it found. */
export const FAIL_REASONS = {
  unavailable: {},
  error: {},
  aborted: {},
  timeout: {},
  'max-tokens': {},
  'tool-calls': {},
  empty: {},
  unusable: {},
  echo: {},
  /** Compression: the condensed memory (`chars`) is no shorter than what was sent (`input`). */
  'not-shorter': { params: ['chars', 'input'] },
  /** The store refused what the run found (a limit, a rule); the memory is as it was. */
  store: {},
} as const satisfies Record<FailureKind | 'not-shorter' | 'store', MessageShape>

/** How a background run failed. */
export type FailReason = keyof typeof FAIL_REASONS

/**
 * Why the host cannot run a profile's model: no such provider (`provider`), a provider whose list no longer names it,
 * a reasoning effort the model does not offer (`effort`), another refusal of `resolveCallConfig`, a provider whose
 * API key is not stored, or a call the provider refused (a key it rejects, no quota left).
 */
export const MODEL_REASONS = {
  'no-provider': { params: ['provider'] },
  'not-listed': { params: ['provider'] },
  effort: { params: ['effort'] },
  refused: {},
  'no-key': { params: ['provider'] },
  'call-failed': { params: ['provider'] },
} as const satisfies Record<string, MessageShape>

/** Why a profile's model was not used. */
export type ModelUnavailable = keyof typeof MODEL_REASONS

/** Why a row of the database is left out of the state (or read in the one way it can be, when `mended`). */
export const SET_ASIDE_REASONS = {
  /** Past the number of rows of its kind this version holds (`count`: that number). */
  'over-limit': { params: ['count'] },
  /** It belongs to a profile (`id`) that is not there. */
  'no-profile': { params: ['id'] },
  /** The default profile it names (`id`) is not there: the first profile stands in until another is chosen. */
  'active-missing': { params: ['id'] },
  /** The name of its avatar file is not one: the profile shows its emoji. */
  'avatar-file': {},
  /** Its text is not JSON. */
  'not-json': {},
  /**
   * A field breaks this version's rules: the row carries the refusal, worded as a refusal is (its rule or limit);
   * one that names neither is said with the field's label (`field`, from the refusal).
   */
  refused: { params: ['field'] },
} as const satisfies Record<string, MessageShape>

/** Why a row is set aside. */
export type SetAsideReason = keyof typeof SET_ASIDE_REASONS

/** A refusal as data, without the host's words: what the page words a refusal from. */
export interface RefusalFacts {
  code: RefusalCode
  field?: string
  limit?: number
  rule?: RefusalRule
}

/** Why a row is set aside, for the page to word: its key, the values of its wording, and the refusal when refused. */
export interface SetAsideWhy {
  key: SetAsideReason
  params?: Readonly<Record<string, MessageValue>>
  refusal?: RefusalFacts
}

/**
 * Why the data directory cannot be written: the system refuses this user (`permission`), the file system is mounted
 * read-only (`read-only`), or another error the page quotes as the system words it (`error`: a copy key ending in
 * `.other` is an English plural form).
 */
export const UNWRITABLE_CAUSES = {
  permission: {},
  'read-only': {},
  error: {},
} as const satisfies Record<string, MessageShape>

/** Why the data directory cannot be written. */
export type UnwritableCause = keyof typeof UNWRITABLE_CAUSES
