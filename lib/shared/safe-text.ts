/**
 * Text from outside as names and ids can safely be: lone surrogates (half of a character, which `encodeURIComponent`
 * and UTF-8 encoders refuse) made into U+FFFD, characters that draw nothing, and the bidirectional controls that
 * make a name read backwards (a file name `gpj.exe` shown as `exe.jpg`). Pure and environment-neutral; it never
 * decides what to do about them (the validators and importers do).
 */

/** `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`, ES2024, on Node ≥ 20). */
export function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed()
}

/** True when `text` holds a lone surrogate. */
export function hasLoneSurrogate(text: string): boolean {
  return !(text as string & { isWellFormed(): boolean }).isWellFormed()
}

/** The bidirectional controls: embeddings, overrides, isolates and the implicit marks that only steer them. */
const BIDI = '[\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]'
const HAS_BIDI = new RegExp(BIDI)
const ALL_BIDI = new RegExp(BIDI, 'g')

/** True when `text` holds a bidirectional control character. */
export function hasBidi(text: string): boolean {
  return HAS_BIDI.test(text)
}

/**
 * Code points that draw nothing on their own, besides white space: soft hyphen, combining grapheme joiner, Hangul
 * fillers, zero-width spaces and joiners, direction marks and controls, invisible operators, variation selectors,
 * the byte order mark, and tags. Ranges, not a pattern: several of them are combining marks, which a character class
 * cannot hold.
 */
const INVISIBLE: readonly [number, number][] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
]

/** True when the code point `c` draws nothing on its own (see {@link INVISIBLE}). */
export function drawsNothing(c: number): boolean {
  return INVISIBLE.some(([from, to]) => c >= from && c <= to)
}

/** True when `text` draws nothing: empty, or only white space and invisible characters. Stops at the first visible one. */
export function isInvisible(text: string): boolean {
  for (const ch of text) {
    if (/\s/.test(ch)) continue
    if (!drawsNothing(ch.codePointAt(0)!)) return false
  }
  return true
}

/** `text` without bidirectional controls. */
export function withoutBidi(text: string): string {
  return text.replace(ALL_BIDI, '')
}
