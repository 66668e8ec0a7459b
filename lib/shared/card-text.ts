/**
 * Text from cards and Markdown files as profile text: what a field may be given as in the wild (numbers, lists), with
 * control characters removed and lengths fitted to our limits, every such repair reported as a warning. Pure.
 */
import { hasBidi, hasLoneSurrogate, isInvisible, wellFormed, withoutBidi } from './safe-text.ts'
import { note, type ImportNote } from './import-notes.ts'

/**
 * A file name made from a profile name: characters file systems refuse become `_`, lone surrogates U+FFFD, and
 * direction controls are removed (a name must not make `gpj.exe` show as `exe.jpg`); `fallback` when nothing is left.
 */
export function fileBaseName(name: string, fallback: string): string {
  const cleaned = withoutBidi(wellFormed(name))
    .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_')
    .trim()
  return isInvisible(cleaned) || /^\.+$/.test(cleaned) ? fallback : cleaned
}

/**
 * A name from a file as a profile name can be: lone surrogates made whole (U+FFFD) and bidirectional controls removed
 * (they make a name, and the file name it is downloaded under, read backwards), each repair said in `warnings`.
 */
export function cleanName(name: string, field: string, warnings: ImportNote[]): string {
  let out = wellFormed(name)
  if (out !== name) warnings.push(note('surrogates', { at: field }))
  if (hasBidi(out)) {
    warnings.push(note('bidi', { at: field }))
    out = withoutBidi(out)
  }
  return out
}

/** C0 controls other than tab, newline and carriage return, and DEL: the store refuses them in text. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

/** A card field as text: numbers and lists of strings are accepted (real cards have them), anything else is empty. */
export function asText(v: unknown, field: string, warnings: ImportNote[]): string {
  let out: string
  if (typeof v === 'string') out = v
  else if (v === undefined || v === null) return ''
  else if (typeof v === 'number' || typeof v === 'boolean') {
    warnings.push(note('readAsText', { at: field }))
    out = String(v)
  } else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    warnings.push(note('listJoined', { at: field }))
    out = v.join('\n')
  } else {
    warnings.push(note('notText', { at: field }))
    return ''
  }
  if (hasLoneSurrogate(out)) {
    warnings.push(note('surrogates', { at: field }))
    out = wellFormed(out)
  }
  if (CONTROLS.test(out)) {
    warnings.push(note('controls', { at: field }))
    out = out.replace(new RegExp(CONTROLS.source, 'g'), '')
  }
  return out
}

/**
 * `text` within `limit` UTF-16 units (never splitting a surrogate pair), saying so when it was cut (`kept`: and that
 * the card keeps the whole text for export).
 */
export function fit(text: string, limit: number, what: string, warnings: ImportNote[], kept = false): string {
  if (text.length <= limit) return text
  let end = limit
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--
  warnings.push(note(kept ? 'cutKept' : 'cut', { at: what, length: text.length, limit }))
  return text.slice(0, end)
}
