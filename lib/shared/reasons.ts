/**
 * Why something the diagnostics show did not do its job, as keys the page words in the user's language: a background
 * memory run that was skipped or failed, a profile's model the host could not run, a database row this version set
 * aside, why the data directory cannot be written, a part that could not do its work as usual (a degradation), the
 * data that could not be loaded as it was, and a row config that was refused. Each family lists its keys with the
 * values their wording uses (the shape notices take, notices.ts), so a run or a row can only name a listed key and a
 * spec checks that every key has both languages. It holds no words and no behaviour; the host's own English for its
 * log travels beside these keys (or is built from them, lib/log/warnings.ts) and is never shown, except an OS's or a
 * provider's own text (`detail`), quoted after the page's sentence.
 */
import type { Keyed, MessageShape, MessageValue, Named } from './notices.ts'
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
interface RefusalFacts {
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
 * `.other` is an English plural form). Exported for the copy spec, which reads every keyed family of lib/shared by
 * name to check both languages word it.
 * @public
 */
export const UNWRITABLE_CAUSES = {
  permission: {},
  'read-only': {},
  error: {},
} as const satisfies Record<string, MessageShape>

/** Why the data directory cannot be written. */
export type UnwritableCause = keyof typeof UNWRITABLE_CAUSES

/**
 * What a part could not do as usual since it loaded (its diagnostics list each distinct one): a prompt section whose
 * text failed (`scope`: `global` or `conversation`), the prompt or agents service missing or out of an agent's reach,
 * a listener that failed (`event`: the event's name, `agent/created`), a recall that failed, a profile's model the
 * host could not run, show or fall back from (`wanted`, `used`, `model`: provider/model; `session`: the
 * conversation; `why`: its {@link MODEL_REASONS} key), a part off for a host service it lacks (`service`), a tool
 * profile not applied, a tool guard that failed, a preset's tools not measured (`preset`). A caught error's own text
 * travels beside as the warning's `detail`.
 */
export const WARNINGS = {
  'persona-failed': { params: ['scope'] },
  'memory-failed': { params: ['scope'] },
  'no-system-prompt': {},
  'no-scoped-prompt': {},
  'sections-failed': {},
  'no-agents': {},
  'listener-failed': { params: ['event'] },
  'recall-failed': {},
  'model-fallback': { params: ['wanted', 'used', 'session', 'why'] },
  'composer-refused': { params: ['model', 'session'] },
  'choose-failed': {},
  'show-failed': {},
  'composer-failed': {},
  'apply-failed': {},
  'fallback-failed': {},
  'tools-off': { params: ['service'] },
  'tools-failed': {},
  'guard-failed': {},
  'measure-failed': { params: ['preset'] },
} as const satisfies Record<string, MessageShape>

/** A kind of degradation. */
export type WarningKey = keyof typeof WARNINGS

/** The values warning `K`'s wording uses, each required: a warning cannot leave out what its sentence says. */
type WarningParams<K extends WarningKey> = [Named<(typeof WARNINGS)[K], 'params'>] extends [never]
  ? { params?: undefined }
  : { params: Readonly<Record<Named<(typeof WARNINGS)[K], 'params'>, MessageValue>> }

/** One degradation as the diagnostics carry it: its key, the values of its wording, and a caught error's own text. */
export type Warning = { [K in WarningKey]: { key: K; detail?: string } & WarningParams<K> }[WarningKey]

/**
 * Why the data could not be loaded as it was (or, for `not-saved` and `not-restored`, a save or a restore failed): no data file configured, the data
 * or the database (`file`: its name) unreadable, damaged, not a database of this plugin, not brought up from schema
 * `from` to `to`, made by a newer version (readable, or not), holding no profile this version can read, avatar files
 * (`count`, `files`) unreadable, an older version (process `pid`) still writing the old format, the old files not
 * moved into the database or damaged, a batch not saved, the data directory not writable, a daily backup not made.
 */
export const LOAD_PROBLEMS = {
  'no-data-file': {},
  unloadable: {},
  unopenable: { params: ['file'] },
  'not-a-database': { params: ['file'] },
  damaged: { params: ['file'] },
  'upgrade-failed': { params: ['file', 'from', 'to'] },
  newer: {},
  'newer-unreadable': {},
  'no-readable-profile': {},
  avatars: { params: ['count', 'files'] },
  'old-process': { params: ['pid'] },
  'import-failed': {},
  'old-file-damaged': { params: ['file'] },
  'not-saved': {},
  'not-restored': {},
  unwritable: {},
  /** The daily backup of `day` could not be made (a full disk): that day has none; the older ones are all kept. */
  'backup-failed': { params: ['day'] },
} as const satisfies Record<string, MessageShape>

/** Why the data could not be loaded as it was. */
export type LoadProblem = keyof typeof LOAD_PROBLEMS

/**
 * What the store did about a problem, when its sentence does not say it: started on the factory profiles and saves
 * nothing until the plugin restarts (`factory-unsaved`); started on them with the bad file kept aside
 * (`factory-kept`); copied the rows that could still be read into a new database (`salvaged`); could not even move
 * the damaged database aside, so saves nothing until it is fixed or removed (`stuck`).
 */
export const LOAD_OUTCOMES = {
  'factory-unsaved': {},
  'factory-kept': {},
  salvaged: {},
  stuck: {},
} as const satisfies Record<string, MessageShape>

/** What the store did about a load problem. */
export type LoadOutcome = keyof typeof LOAD_OUTCOMES

/** The last load error as the page words it: the problem, the OS's or SQLite's own text, and what the store did. */
export interface LoadWhy extends Keyed<LoadProblem> {
  detail?: string
  outcome?: LoadOutcome
}

/**
 * A refused row config as data: the refusal, its `field` the option's path as the user writes it
 * (`memory.everyTurns`, `config` for the whole row) and its `rule` what the option accepts, with `min` and `limit`
 * for a whole number and `values` for a choice.
 */
export interface ConfigRefusal extends RefusalFacts {
  min?: number
  values?: readonly string[]
}
