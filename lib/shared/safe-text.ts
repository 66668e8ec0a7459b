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

/** Characters that draw nothing on their own: white space, zero-width ones, joiners, variation selectors, tags. */
const INVISIBLE = /[\s\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]|\uDB40[\uDC00-\uDDEF]/gu

/** True when `text` draws nothing: empty, or only invisible characters. */
export function isInvisible(text: string): boolean {
  return text.replace(INVISIBLE, '') === ''
}

/** `text` without bidirectional controls. */
export function withoutBidi(text: string): string {
  return text.replace(ALL_BIDI, '')
}
