/**
 * When two memory texts say the same thing: the one rule the store, the memory job and the browser's editors use to
 * spot a duplicate. Pure; it never stores or changes a text, it only gives the form texts are compared in.
 */

/** Scripts written without spaces between words: a space next to one of their characters is never significant. */
const UNSPACED = '[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}]'
// Two patterns rather than one with a lookbehind, which older Safari cannot parse (this module is in the browser half).
const SPACE_BEFORE = new RegExp(` (?=${UNSPACED})`, 'gu')
const SPACE_AFTER = new RegExp(`(${UNSPACED}) `, 'gu')

/**
 * The form two memories are compared in: width-folded (NFKC), case-folded, punctuation and whitespace ignored — so
 * "喜欢 Rust。", "喜欢rust" and "喜欢 Rust!" are one memory. A space still separates two words of a spaced script
 * ("go to" ≠ "goto") and punctuation still separates digits ("3.5" ≠ "35"): those differences change the meaning.
 */
export function normalizeMemory(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\s]+/gu, ' ')
    .trim()
    .replace(SPACE_BEFORE, '')
    .replace(SPACE_AFTER, '$1')
}

// Items are immutable, so each one's compared form is computed once: a save into a list of 10,000 compares the new
// text against every stored one, and normalising them all again would cost tens of milliseconds per save.
const normalized = new WeakMap<object, string>()

/** {@link normalizeMemory} of an item's text, computed once per item. */
export function normalizedItem(item: { readonly text: string }): string {
  let key = normalized.get(item)
  if (key === undefined) {
    key = normalizeMemory(item.text)
    normalized.set(item, key)
  }
  return key
}
