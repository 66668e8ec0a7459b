/**
 * Text from cards and Markdown files as profile text: what a field may be given as in the wild (numbers, lists), with
 * control characters removed and lengths fitted to our limits, every such repair reported as a warning. Pure.
 */
import { hasBidi, hasLoneSurrogate, isInvisible, wellFormed, withoutBidi } from './safe-text.ts'

/** Why a file cannot be imported at all; `field` is the path inside the file (`data.name`, `front matter`…). */
export class ImportError extends Error {
  field: string
  limit?: number
  constructor(field: string, message: string, limit?: number) {
    super(`${field}: ${message}`)
    this.name = 'ImportError'
    this.field = field
    if (limit !== undefined) this.limit = limit
  }
}

/**
 * A file name made from a profile name: characters file systems refuse become `_`, lone surrogates U+FFFD, and
 * direction controls are removed (a name must not make `gpj.exe` show as `exe.jpg`); `fallback` when nothing is left.
 */
export function fileBaseName(name: string, fallback: string): string {
  const cleaned = withoutBidi(wellFormed(name)).replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_').trim()
  return isInvisible(cleaned) || /^\.+$/.test(cleaned) ? fallback : cleaned
}

/**
 * A name from a file as a profile name can be: lone surrogates made whole (U+FFFD) and bidirectional controls removed
 * (they make a name, and the file name it is downloaded under, read backwards), each repair said in `warnings`.
 */
export function cleanName(name: string, field: string, warnings: string[]): string {
  let out = wellFormed(name)
  if (out !== name) warnings.push(`${field}: broken characters (lone surrogates) replaced by U+FFFD`)
  if (hasBidi(out)) {
    warnings.push(`${field}: text direction controls removed (they would make the name read backwards)`)
    out = withoutBidi(out)
  }
  return out
}

/** C0 controls other than tab, newline and carriage return, and DEL: the store refuses them in text. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/** A card field as text: numbers and lists of strings are accepted (real cards have them), anything else is empty. */
export function asText(v: unknown, field: string, warnings: string[]): string {
  let out: string
  if (typeof v === 'string') out = v
  else if (v === undefined || v === null) return ''
  else if (typeof v === 'number' || typeof v === 'boolean') {
    warnings.push(`${field}: was a ${typeof v}, read as text`)
    out = String(v)
  } else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    warnings.push(`${field}: was a list, joined into one text`)
    out = v.join('\n')
  } else {
    warnings.push(`${field}: is not text (${Array.isArray(v) ? 'array' : typeof v}); left out`)
    return ''
  }
  if (hasLoneSurrogate(out)) {
    warnings.push(`${field}: broken characters (lone surrogates) replaced by U+FFFD`)
    out = wellFormed(out)
  }
  if (CONTROLS.test(out)) {
    warnings.push(`${field}: control characters removed`)
    out = out.replace(new RegExp(CONTROLS.source, 'g'), '')
  }
  return out
}

/** `text` within `limit` UTF-16 units (never splitting a surrogate pair), saying so (plus `note`) when it was cut. */
export function fit(text: string, limit: number, what: string, warnings: string[], note = ''): string {
  if (text.length <= limit) return text
  let end = limit
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--
  warnings.push(`${what}: ${text.length} characters, cut to the limit of ${limit}${note}`)
  return text.slice(0, end)
}

