/**
 * The field rules every schema is built from (zod 4): objects with known keys only, texts within a limit, ids,
 * session ids, booleans, times, lists within a count. Each rule words its refusal as the store always has ("is 41
 * characters, over the limit of 40") and carries the limit it broke in the issue (`params.limit`, or zod's own
 * `maximum`), so lib/validate/core.ts can turn the first issue into the wire's `{code, message, field, limit}`. It
 * knows no profile, memory or command (schema-state.ts and schema-commands.ts do) and never throws a store error.
 */
import * as z from 'zod'
import { graphemeCount, UNITS_PER_GRAPHEME } from './graphemes.ts'

/** Ids of profiles and memory items: short, URL- and file-name-safe. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Session ids as the host makes them (`session-<uuid>`), with room for test ids; never a prototype key. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
/** Keys that could reach an object's prototype if copied naively. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])
/** C0 controls other than tab, newline and carriage return, and DEL: invisible, and never typed on purpose. */
export const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/** Runtime type of a value, for messages. */
export function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

/** An object schema that refuses keys outside `shape`, so a misspelt field is an error rather than a silent no-op. */
export function strict<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys' ? 'is not a known field' : `must be an object (got ${kind(iss.input)})`,
  })
}

/** Any plain object, its content unchecked (Character Card fields kept as they came). */
export const anyRecord = z.record(z.string(), z.unknown(), {
  error: (iss) => `must be an object (got ${kind(iss.input)})`,
})

/** How a text field is bounded; see {@link text}. */
export interface TextRule {
  limit: number
  /** Count user-perceived characters (the emoji field), within {@link UNITS_PER_GRAPHEME} units per one of them. */
  graphemes?: boolean
  /** No line breaks (names, emoji). */
  singleLine?: boolean
  /** Must contain something besides whitespace. */
  required?: boolean
}

const overText = (n: number, limit: number) => `is ${n} characters, over the limit of ${limit}`

/**
 * A text field within its limit. Lengths count UTF-16 code units, the unit a browser's `maxlength` counts, so the
 * editor and the store agree on what fits; a field counted in graphemes (the emoji) counts what the reader sees, as
 * the editor's counter does, and is also capped in units, so one joined emoji sequence cannot carry a megabyte. The
 * checks run in this order and the first that fails is the one reported: length, control characters, line breaks,
 * emptiness.
 */
export function text(rule: TextRule) {
  const { limit } = rule
  let s = z.string({ error: (iss) => `must be a string (got ${kind(iss.input)})` })
  if (rule.graphemes === true) {
    s = s.check((ctx) => {
      const v = ctx.value
      const count = v.length > limit * UNITS_PER_GRAPHEME ? v.length : graphemeCount(v)
      if (count > limit)
        ctx.issues.push({ code: 'custom', input: v, message: overText(count, limit), params: { limit } })
    })
  } else {
    s = s.max(limit, { error: (iss) => overText((iss.input as string).length, limit) })
  }
  s = s.refine((v) => !CONTROL.test(v), { error: 'contains a control character' })
  if (rule.singleLine === true) s = s.refine((v) => !/[\r\n]/.test(v), { error: 'must be a single line' })
  if (rule.required === true) s = s.refine((v) => v.trim() !== '', { error: 'must not be empty' })
  return s
}

/** Whether `v` is a profile or memory-item id. */
export const isId = (v: unknown): v is string => typeof v === 'string' && ID_PATTERN.test(v)

/** Whether `v` is a conversation (session) id. */
export const isSessionId = (v: unknown): v is string =>
  typeof v === 'string' && SESSION_ID_PATTERN.test(v) && !FORBIDDEN_KEYS.has(v)

/** A profile or memory-item id; anything else (a number, null) is refused in the same words, with the same limit. */
export const id = z.custom<string>(isId, {
  error: 'must be 1–64 letters, digits, "-" or "_", starting with a letter or digit',
  params: { limit: 64 },
})

/** A conversation (session) id. */
export const sessionId = z.custom<string>(isSessionId, {
  error: 'must be a session id of 1–128 letters, digits, ".", ":", "-" or "_"',
  params: { limit: 128 },
})

/** A boolean. */
export const bool = z.boolean({ error: (iss) => `must be true or false (got ${kind(iss.input)})` })

/** Milliseconds since the epoch. */
export const time = z
  .number({ error: 'must be a time in milliseconds' })
  .refine((v) => Number.isSafeInteger(v) && v >= 0, { error: 'must be a time in milliseconds' })

/** One of `values`, refused as "must be one of a, b, c". */
export function oneOf<const T extends string>(values: readonly T[], got = false) {
  return z.enum(values as [T, ...T[]], {
    error: (iss) =>
      `must be one of ${values.join(', ')}` + (got ? ` (got ${JSON.stringify(iss.input) ?? 'nothing'})` : ''),
  })
}

/** A list of at most `limit` entries, refused as "has N <noun>, over the limit of L"; `shape` words a non-array. */
export function list<T extends z.ZodType>(
  item: T,
  limit: number,
  noun: string,
  shape = (v: unknown) => `must be an array (got ${kind(v)})`,
) {
  return z
    .array(item, { error: (iss) => shape(iss.input) })
    .max(limit, { error: (iss) => `has ${(iss.input as unknown[]).length} ${noun}, over the limit of ${limit}` })
}
