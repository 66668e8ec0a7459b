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

/**
 * The compared forms of the items of one list, each with how many items say it, made once per list. Lists are
 * immutable and a save, edit or delete makes a new one, so {@link handKeysOn} passes the counts to the list a command
 * made from the old one, instead of the next command normalising and hashing 10,000 texts again. Read it, never
 * change it.
 */
const listKeys = new WeakMap<readonly object[], Map<string, number>>()

/** The compared forms of the items of `items` ({@link normalizedItem} of each), each with how many items say it. */
export function itemKeys(items: readonly { readonly text: string }[]): ReadonlyMap<string, number> {
  let keys = listKeys.get(items)
  if (keys === undefined) {
    keys = new Map()
    for (const it of items) {
      const key = normalizedItem(it)
      keys.set(key, (keys.get(key) ?? 0) + 1)
    }
    listKeys.set(items, keys)
  }
  return keys
}

/**
 * `next` is `before` without the items of `gone` and with those of `added` (in any places): its compared forms are
 * `before`'s counted again for them. The counts move to `next` (`before`, should it be read again, makes its own
 * anew), so none is ever copied and a command costs what it changed.
 */
export function handKeysOn(
  before: readonly { readonly text: string }[],
  next: readonly { readonly text: string }[],
  added: readonly { readonly text: string }[],
  gone: readonly { readonly text: string }[] = [],
): void {
  const keys = listKeys.get(before)
  if (keys === undefined) return
  listKeys.delete(before)
  for (const it of gone) {
    const key = normalizedItem(it)
    const n = (keys.get(key) ?? 0) - 1
    if (n > 0) keys.set(key, n)
    else keys.delete(key)
  }
  for (const it of added) {
    const key = normalizedItem(it)
    keys.set(key, (keys.get(key) ?? 0) + 1)
  }
  listKeys.set(next, keys)
}
