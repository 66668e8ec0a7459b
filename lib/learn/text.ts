/**
 * The text of an export's fields as learning keeps it: strings only, control characters other than tab and newline
 * removed, lone surrogates made whole, cut to a length. Times from the two ways exports write them. Pure.
 */
import { wellFormed } from '../shared/safe-text.ts'

const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F]/g

/** A field's text, or '' when it is not a string; at most `limit` characters. */
export function textOf(v: unknown, limit: number): string {
  if (typeof v !== 'string') return ''
  return wellFormed(v.slice(0, limit)).replace(CONTROLS, (c) => (c === '\r' ? '' : ' '))
}

/** A time in seconds since the epoch (ChatGPT's floats) as milliseconds; 0 when it is not a plausible one. */
export function fromSeconds(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e11 ? Math.round(v * 1000) : 0
}

/** An ISO 8601 time (Claude's) as milliseconds; 0 when it is not one. */
export function fromIso(v: unknown): number {
  if (typeof v !== 'string' || v.length > 40) return 0
  const t = Date.parse(v)
  return Number.isFinite(t) && t > 0 ? t : 0
}
