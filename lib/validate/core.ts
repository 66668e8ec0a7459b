/**
 * The error type of the store and the field primitives every validator builds on: plain-JSON and object checks,
 * known keys only, text within a limit, ids, session ids, booleans and times. Every refusal names the field (as a
 * path) and, where one applies, the limit. It knows no profile, memory or state shape (state.ts does).
 */
import { graphemeCount, UNITS_PER_GRAPHEME } from '../shared/graphemes.ts'
import { hasBidi, hasLoneSurrogate, isInvisible } from '../shared/safe-text.ts'
import type { RefusalRule } from '../shared/refusals.ts'

/**
 * Why a command was refused: bad input, a missing target, a rule of the data model, the disk, or data a newer
 * version of the plugin made (`read-only`: this version may read it, never write it).
 */
export type StoreErrorCode = 'invalid' | 'not-found' | 'conflict' | 'locked' | 'io' | 'read-only'

/** The one error type the store throws; `field` is a path such as `patch.rules`, `limit` the bound it broke. */
export class StoreError extends Error {
  code: StoreErrorCode
  field?: string
  limit?: number
  /** The rule broken, by a name the settings page words in the user's language (`name.bidi`); most refusals have none. */
  rule?: RefusalRule
  constructor(code: StoreErrorCode, message: string, field?: string, limit?: number) {
    super(message)
    this.name = 'StoreError'
    this.code = code
    if (field !== undefined) this.field = field
    if (limit !== undefined) this.limit = limit
  }
}

/** Shorthand for an `invalid` refusal of one field. */
export function invalid(field: string, message: string, limit?: number): StoreError {
  return new StoreError('invalid', `${field}: ${message}`, field, limit)
}

/** The rules of a profile name a refusal can name, for the page to word them (see {@link newName}). */
export type NameRule = Extract<RefusalRule, `name.${string}`>

const broke = (field: string, message: string, rule: NameRule): StoreError => Object.assign(invalid(field, message), { rule })

/** Ids of profiles and memory items: short, URL- and file-name-safe. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Session ids as the host makes them (`session-<uuid>`), with room for test ids; never a prototype key. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
/** Keys that could reach an object's prototype if copied naively. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])
/** C0 controls other than tab, newline and carriage return, and DEL: invisible, and never typed on purpose. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/
/** Levels of nesting a plain-JSON payload may have. */
export const MAX_DEPTH = 32

/** Runtime type of a value, for messages. */
export function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

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

/** Refuses keys outside `allowed`, so a misspelt field is an error rather than a silent no-op. */
export function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw invalid(`${field}.${key}`, 'is not a known field')
  }
}

interface TextRule {
  limit: number
  /** Count user-perceived characters (the emoji field), within {@link UNITS_PER_GRAPHEME} units per one of them. */
  graphemes?: boolean
  /** No line breaks (names, emoji). */
  singleLine?: boolean
  /** Must contain something besides whitespace. */
  required?: boolean
}

/**
 * A text field within its limit. Lengths count UTF-16 code units, the unit a browser's `maxlength` counts, so the
 * editor and the store agree on what fits; a field counted in graphemes (the emoji) counts what the reader sees, as
 * the editor's counter does, and is also capped in units, so one joined emoji sequence cannot carry a megabyte.
 */
export function text(v: unknown, field: string, rule: TextRule): string {
  if (typeof v !== 'string') throw invalid(field, `must be a string (got ${kind(v)})`)
  if (rule.graphemes === true) {
    const count = v.length > rule.limit * UNITS_PER_GRAPHEME ? v.length : graphemeCount(v)
    if (count > rule.limit) throw invalid(field, `is ${count} characters, over the limit of ${rule.limit}`, rule.limit)
  } else if (v.length > rule.limit) {
    throw invalid(field, `is ${v.length} characters, over the limit of ${rule.limit}`, rule.limit)
  }
  if (CONTROL.test(v)) throw invalid(field, 'contains a control character')
  if (rule.singleLine && /[\r\n]/.test(v)) throw invalid(field, 'must be a single line')
  if (rule.required && v.trim() === '') throw invalid(field, 'must not be empty')
  return v
}

/**
 * A profile name as a command or an import gives it, beyond the text rule every stored name meets: it must draw
 * something (40 zero-width joiners are as empty as none), hold whole characters (a lone surrogate breaks the file
 * name it is downloaded under) and no text direction controls (they make a name, and that file name, read backwards).
 * Names already stored load as they were saved.
 */
export function newName(v: string, field: string): string {
  if (isInvisible(v)) throw broke(field, 'must not be empty (it holds only invisible characters)', 'name.invisible')
  if (hasLoneSurrogate(v)) throw broke(field, 'contains a broken character (half of a surrogate pair)', 'name.surrogate')
  if (hasBidi(v)) throw broke(field, 'contains a text direction control character (U+202E and the like), which would make the name read backwards', 'name.bidi')
  return v
}

/** A profile or memory-item id. */
export function id(v: unknown, field: string): string {
  if (typeof v !== 'string' || !ID_PATTERN.test(v)) {
    throw invalid(field, 'must be 1–64 letters, digits, "-" or "_", starting with a letter or digit', 64)
  }
  return v
}

/** A conversation (session) id. */
export function sessionId(v: unknown, field: string): string {
  if (typeof v !== 'string' || !SESSION_ID_PATTERN.test(v) || FORBIDDEN_KEYS.has(v)) {
    throw invalid(field, 'must be a session id of 1–128 letters, digits, ".", ":", "-" or "_"', 128)
  }
  return v
}

/** A boolean. */
export function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw invalid(field, `must be true or false (got ${kind(v)})`)
  return v
}

/** Milliseconds since the epoch. */
export function time(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalid(field, 'must be a time in milliseconds')
  return v
}
