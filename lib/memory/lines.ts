/**
 * The text rules for one memory line, shared by the `memory_save` tool and the two background jobs: what a secret
 * looks like, and how a line of model output becomes a clean fact or is dropped. Pure; it never stores anything.
 */
import { LIMITS } from '../shared/model.ts'
import { normalizeMemory } from '../shared/memory-text.ts'

/** Any control character, line breaks included: a memory line is one line. */
export const CONTROL_CHAR = /[\u0000-\u001F\u007F]/

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

const BULLET = /^(?:[-*•·+]|\d{1,3}[.、)）]|[（(]\d{1,3}[)）])\s*/
const QUOTED = /^["“「'](.*)["”」']$/u
// The ways a model says "nothing to add" in either language.
const NOTHING = /^(?:无|没有|暂无|无新事实|无新的事实|none|nothing|n\/a)[。.!！]?$/i

/** Why a line of model output was not kept. */
export type DropReason = 'empty' | 'nothing' | 'duplicate' | 'invalid'

/** Lines of model output sorted into kept facts and dropped lines. */
export interface ParsedLines {
  facts: string[]
  dropped: Record<DropReason, number>
}

/**
 * Turn line-per-item model output into clean facts: bullets and wrapping quotes stripped, "nothing" answers, empty
 * lines, markup-like lines (code fences, JSON, tags), secrets and over-long lines dropped, and lines that repeat
 * `known` or each other (compared normalized) dropped. At most `max` facts are kept.
 */
export function parseLines(answer: string, known: Iterable<string>, max: number): ParsedLines {
  const seen = new Set<string>()
  for (const k of known) seen.add(normalizeMemory(k))
  const dropped: Record<DropReason, number> = { empty: 0, nothing: 0, duplicate: 0, invalid: 0 }
  const facts: string[] = []
  for (const raw of answer.split(/\r?\n/)) {
    let line = raw.trim().replace(BULLET, '').trim()
    line = line.replace(QUOTED, '$1').trim()
    if (line === '') { dropped.empty += 1; continue }
    if (NOTHING.test(line)) { dropped.nothing += 1; continue }
    if (/^(?:```|[{[<])/.test(line) || line.length > LIMITS.memoryItem || CONTROL_CHAR.test(line) || looksSecret(line)) {
      dropped.invalid += 1
      continue
    }
    const key = normalizeMemory(line)
    if (key === '' || seen.has(key)) { dropped.duplicate += 1; continue }
    seen.add(key)
    if (facts.length < max) facts.push(line)
  }
  return { facts, dropped }
}
