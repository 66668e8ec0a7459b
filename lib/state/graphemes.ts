/**
 * Counting what a reader sees as one character: user-perceived characters (grapheme clusters, `Intl.Segmenter`),
 * so that 👩‍🏫 (five UTF-16 units joined by a zero-width joiner) or 🇨🇳 (two) counts as one. Used by the emoji
 * field's counter in the editor and by the rule that enforces its limit in the store, so both agree. Pure; no DOM.
 */

/** UTF-16 units a field counted in graphemes may hold at most, per grapheme of its limit: bounds the work and the bytes. */
export const UNITS_PER_GRAPHEME = 8

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** How many user-perceived characters `text` holds. */
export function graphemeCount(text: string): number {
  let n = 0
  for (const _ of segmenter.segment(text)) n++
  return n
}
