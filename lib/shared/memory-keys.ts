/**
 * The rules of a memory item's search keys, one set for every way keys arrive (the extraction's and the tool's
 * `｜检索词：` suffix, a pasted or Markdown line, the keys field the user types in) and for both halves: how a keys text
 * splits into keys, what one key may hold (no markup, no control character, nothing shaped like a secret, at most
 * {@link KEY_CHARS} characters) and what a list may hold ({@link KEYS_MAX} keys, LIMITS.memoryKeys characters joined).
 * Arriving from a model or a file, a key that breaks a rule is dropped ({@link cleanKeys}); typed by the user, it is
 * refused with the rule it broke ({@link keysProblem}), so nothing changes. Pure; it stores nothing.
 */
import { LIMITS } from '../state/model.ts'

/** Search keys one item keeps at most. */
export const KEYS_MAX = 12
/** Characters of one search key at most. */
const KEY_CHARS = 40

// Shapes of credentials a model might be handed in a conversation; a match is never stored.
const SECRET_SHAPES: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./,
  /(?:password|passwd|passphrase|api[ _-]?key|secret|token|密码|口令|密钥|令牌|验证码)\s*(?:[:：=]|是|为)\s*\S{4,}/i,
  /(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}/,
]

/** True when the text carries something shaped like a password, key or token. */
export function looksSecret(text: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(text))
}

// Any control character, line breaks included: a key is one short phrase.
const CONTROL = /[\u0000-\u001F\u007F]/
// Markup: a tag's bracket anywhere, or what opens code, a table or a quote block at the start.
const MARKUP = /[<>]|^(?:[{[|`]|#!)/
// Between keys: a comma, an enumeration comma or a semicolon, in either width.
const SEPARATOR = /[,，、;；]/u
// A sentence's end a model writes after the last key.
const END_PUNCT = /[。.!！…~～]+$/u

/** The rule a refused keys text broke, worded by the page (lib/shared/refusals.ts), with its bound. */
export interface KeysProblem {
  rule: 'keys.count' | 'keys.length' | 'keys.total' | 'keys.markup' | 'keys.control' | 'keys.secret'
  limit?: number
}

/** The rule one key breaks, if any (its length, markup, a control character, a secret's shape). */
function keyProblem(key: string): KeysProblem | undefined {
  if (CONTROL.test(key)) return { rule: 'keys.control' }
  if (key.length > KEY_CHARS) return { rule: 'keys.length', limit: KEY_CHARS }
  if (MARKUP.test(key)) return { rule: 'keys.markup' }
  if (looksSecret(key)) return { rule: 'keys.secret' }
  return undefined
}

/** The distinct keys of a keys text (compared without case), trimmed, in order. Linear in the text. */
function keyList(keys: string): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const raw of keys.split(SEPARATOR)) {
    const key = raw.trim().replace(END_PUNCT, '')
    const folded = key.toLowerCase()
    if (key === '' || seen.has(folded)) continue
    seen.add(folded)
    out.push(key)
  }
  return out
}

/** A keys text as it is stored: its distinct keys joined by ", " (empty for none). */
export function joinKeys(keys: string): string {
  return keyList(keys).join(', ')
}

/**
 * Why a keys text the user typed is refused, or undefined when it is within every bound: at most {@link KEYS_MAX}
 * distinct keys, each at most {@link KEY_CHARS} characters without markup, control characters or a secret's shape,
 * and at most LIMITS.memoryKeys characters once joined.
 */
export function keysProblem(keys: string): KeysProblem | undefined {
  if (CONTROL.test(keys.replace(/\r?\n/g, ','))) return { rule: 'keys.control' }
  const list = keyList(keys.replace(/\r?\n/g, ','))
  for (const key of list) {
    const problem = keyProblem(key)
    if (problem !== undefined) return problem
  }
  if (list.length > KEYS_MAX) return { rule: 'keys.count', limit: KEYS_MAX }
  if (list.join(', ').length > LIMITS.memoryKeys) return { rule: 'keys.total', limit: LIMITS.memoryKeys }
  return undefined
}

/**
 * The keys of a text from a model or a file, cleaned: each key that breaks a rule dropped, at most {@link KEYS_MAX},
 * whole keys while they fit LIMITS.memoryKeys, joined by ", "; undefined when none is left.
 */
function cleanKeys(keys: string): string | undefined {
  let out = ''
  let count = 0
  for (const key of keyList(keys)) {
    if (count >= KEYS_MAX) break
    if (keyProblem(key) !== undefined) continue
    const next = out === '' ? key : `${out}, ${key}`
    if (next.length > LIMITS.memoryKeys) break
    out = next
    count++
  }
  return out === '' ? undefined : out
}

/**
 * Several stored keys texts as one, in the order given: their distinct keys (compared without case) while they fit
 * the limits, as {@link cleanKeys} keeps them; undefined when none is left. A compression's item carries its sources'
 * keys this way (lib/memory/compress-keys.ts).
 */
export function unionKeys(lists: readonly string[]): string | undefined {
  return cleanKeys(lists.join(', '))
}

// The keys' mark at a fact's end: a bar (either width), 检索词 or "keys", a colon. It starts at the bar, never at the
// white space before it: a leading `\s*` would rescan a long run of spaces from each of its positions (quadratic).
const KEYS_MARK = /[|｜]\s*(?:检索词|keys)\s*[:：]/iu

/**
 * A fact line's text without its trailing search keys, and the keys, cleaned ({@link cleanKeys}): names, places and
 * dates in normal form, synonyms and the other language, which the model writes in the same answer as the fact (no
 * call of its own), or the user wrote after a pasted or Markdown line (`用户住在杭州｜检索词：杭州, Hangzhou`). Only the
 * last line of a text can carry them: a mark followed by a line break is text, kept whole.
 */
export function splitKeys(line: string): { text: string; keys?: string } {
  const m = KEYS_MARK.exec(line)
  if (m === null) return { text: line }
  const rest = line.slice(m.index + m[0].length)
  if (/[\r\n]/.test(rest)) return { text: line }
  const text = line.slice(0, m.index).trim()
  const keys = cleanKeys(rest)
  return keys === undefined ? { text } : { text, keys }
}

/** `text` with `keys` written after it the way {@link splitKeys} reads them back; `text` alone without keys. */
export function withKeys(text: string, keys: string | undefined): string {
  return keys === undefined || keys === '' ? text : `${text}｜检索词：${keys}`
}
