/**
 * The error type of the store, the plain-JSON check in front of every schema, and {@link parse}: a schema of
 * lib/state (schema-kit.ts, schema-state.ts) or lib/shared (schema-commands.ts) applied to untrusted input, its first issue turned
 * into the one refusal the wire carries, `{code, message, field, limit}`, with the field as a path (`patch.rules`,
 * `items[2].text`). It knows no profile, memory or state shape (the schemas do).
 */
import type * as z from 'zod'
import * as rule from '../state/schema-kit.ts'
import { FORBIDDEN_KEYS, kind } from '../state/schema-kit.ts'
import { hasBidi, hasLoneSurrogate, isInvisible } from '../shared/safe-text.ts'
import { cleanName, isReservedName, nameKey } from '../shared/profile-names.ts'
import { LIMITS } from '../state/model.ts'
import type { RefusalRule } from '../shared/refusals.ts'
import { StoreError, type StoreErrorCode } from '../shared/errors.ts'

export { FORBIDDEN_KEYS, ID_PATTERN, kind } from '../state/schema-kit.ts'

/** Shorthand for an `invalid` refusal of one field. */
export function invalid(field: string, message: string, limit?: number): StoreError {
  return new StoreError('invalid', `${field}: ${message}`, field, limit)
}

/** The rules of a profile name a refusal can name, for the page to word them (see {@link newName}). */
type NameRule = Extract<RefusalRule, `name.${string}`>

/** A refusal naming the rule it broke, which the page words in the user's language (lib/shared/refusals.ts). */
export function brokeRule(code: StoreErrorCode, message: string, field: string, rule: RefusalRule): StoreError {
  return Object.assign(new StoreError(code, message, field), { rule })
}

const broke = (field: string, message: string, rule: NameRule): StoreError =>
  brokeRule('invalid', `${field}: ${message}`, field, rule)

/** Levels of nesting a plain-JSON payload may have. */
export const MAX_DEPTH = 32

/** A plain object (not an array, class instance or null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/**
 * Refuses anything JSON cannot carry faithfully (functions, undefined, NaN, Infinity, bigint, symbols, class
 * instances, cycles or absurd nesting) and prototype-reaching keys, so no payload can smuggle behaviour in.
 */
export function assertPlainJson(value: unknown, field: string, depth = 0): void {
  if (depth > MAX_DEPTH) throw invalid(field, `nested deeper than ${MAX_DEPTH} levels`, MAX_DEPTH)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(field, 'is not a finite number')
    return
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainJson(v, `${field}[${i}]`, depth + 1))
    return
  }
  if (!isRecord(value)) throw invalid(field, `is not a JSON value (got ${kind(value)})`)
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) throw invalid(`${field}.${key}`, 'is a forbidden key')
    assertPlainJson(value[key], `${field}.${key}`, depth + 1)
  }
}

/** An object argument; `{}` when absent and optional. */
export function record(v: unknown, field: string): Record<string, unknown> {
  if (!isRecord(v)) throw invalid(field, `must be an object (got ${kind(v)})`)
  return v
}

/** A path segment joined onto a field: `.key` for a key, `[i]` for an index; a key onto '' is the key alone. */
function join(field: string, path: readonly PropertyKey[]): string {
  let out = field
  for (const seg of path)
    out = typeof seg === 'number' ? `${out}[${seg}]` : out === '' ? String(seg) : `${out}.${String(seg)}`
  return out
}

/** The limit an issue broke: a rule's own (`params.limit`), or the maximum of a length or count check. */
function limitOf(issue: z.core.$ZodIssue): number | undefined {
  if (issue.code === 'custom') return typeof issue.params?.limit === 'number' ? issue.params.limit : undefined
  if (issue.code === 'too_big') return Number(issue.maximum)
  return undefined
}

/**
 * The refusal for a failed parse. An unknown key is reported first (the shallowest one), as a misspelt field is
 * the likeliest mistake and hides the others; otherwise the first issue in the order the schema checks. `keysOf`
 * names the top level in an unknown-key refusal when `field` is '' (a command's own keys are `command.<key>`).
 */
function refusal(error: z.ZodError, field: string, keysOf = field): StoreError {
  const keys = error.issues
    .filter((i) => i.code === 'unrecognized_keys')
    .sort((a, b) => a.path.length - b.path.length)[0]
  if (keys !== undefined) {
    const at = keys.path.length === 0 ? keysOf : join(field, keys.path)
    return invalid(join(at, [keys.keys[0]!]), 'is not a known field')
  }
  const issue = error.issues[0]!
  const at = join(field, issue.path)
  // A rule the page words in the user's language, when the schema names one (shared/wire-inputs.ts).
  const rule = issue.code === 'custom' ? (issue.params?.rule as RefusalRule | undefined) : undefined
  if (rule !== undefined) return brokeRule('invalid', `${at}: ${issue.message}`, at, rule)
  return invalid(at, issue.message, limitOf(issue))
}

/**
 * `value` checked by `schema`: its output, or the refusal of its first issue (see {@link refusal}). A key whose value
 * is `undefined` (only an in-process caller can send one; JSON cannot) counts as left out, as it always has: zod keeps
 * such a key in its output, and spread over a stored profile it would blank the field.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, field: string, keysOf = field): z.output<S> {
  const r = schema.safeParse(value)
  if (r.success) return withoutUndefined(r.data)
  throw refusal(r.error, field, keysOf)
}

/**
 * `v` without `undefined`-valued keys at any depth. Copy on write: values zod passes through unchanged are the
 * caller's objects, and JSON input (which has none) costs one walk and copies nothing.
 */
function withoutUndefined<T>(v: T): T {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined
    v.forEach((x: unknown, i) => {
      const y = withoutUndefined(x)
      if (y !== x) (out ??= [...v])[i] = y
    })
    return (out ?? v) as T
  }
  if (typeof v !== 'object' || v === null) return v
  const proto: unknown = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return v
  let out: Record<string, unknown> | undefined
  for (const [key, x] of Object.entries(v)) {
    const y = x === undefined ? undefined : withoutUndefined(x)
    if (y === x && x !== undefined) continue
    const source = v as Record<string, unknown>
    out ??= proto === null ? Object.assign(Object.create(null) as Record<string, unknown>, source) : { ...source }
    if (y === undefined) delete out[key]
    else out[key] = y
  }
  return (out ?? v) as T
}

/**
 * A profile name as a command or an import gives it, in the form it is stored in (lib/shared/profile-names.ts: invisible
 * characters removed, compatibility and look-alike letters made plain, white space made single), beyond the text rule
 * every stored name meets: it must draw something (40 zero-width joiners are as empty as none), hold whole characters
 * (a lone surrogate breaks the file name it is downloaded under) and no text direction controls (they make a name, and
 * that file name, read backwards). Names already stored load as they were saved.
 */
export function newName(v: string, field: string): string {
  const name = cleanName(v, LIMITS.name)
  if (isInvisible(name)) throw broke(field, 'must not be empty (it holds only invisible characters)', 'name.invisible')
  if (hasLoneSurrogate(name))
    throw broke(field, 'contains a broken character (half of a surrogate pair)', 'name.surrogate')
  if (hasBidi(name))
    throw broke(
      field,
      'contains a text direction control character (U+202E and the like), which would make the name read backwards',
      'name.bidi',
    )
  return name
}

/**
 * `name` (clean, see {@link newName}) as the name of the profile `self` among `profiles`: refused when it is a word of
 * the plugin (`all`, `所有人`… address the whole cast) or, compared by its key, the name of another profile — a mention
 * must reach every profile, and two of one name could not be told apart.
 */
export function freeName(
  name: string,
  profiles: readonly { id: string; name: string }[],
  self: string | undefined,
  field: string,
): string {
  if (isReservedName(name))
    throw broke(
      field,
      `"${name}" is a word of the plugin (@${name} addresses the whole cast), not a name`,
      'name.reserved',
    )
  const key = nameKey(name)
  const other = profiles.find((p) => p.id !== self && nameKey(p.name) === key)
  if (other !== undefined) throw broke(field, `is already the name of the profile "${other.name}"`, 'name.taken')
  return name
}

/** A profile or memory-item id. The schema only words a refusal: a load checks up to 100,000 ids at once. */
export function id(v: unknown, field: string): string {
  return rule.isId(v) ? v : parse(rule.id, v, field)
}

/** A conversation (session) id. The schema only words a refusal: a load checks up to 100,000 ids at once. */
export function sessionId(v: unknown, field: string): string {
  return rule.isSessionId(v) ? v : parse(rule.sessionId, v, field)
}
