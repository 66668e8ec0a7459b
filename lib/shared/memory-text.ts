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
 * The compared forms of every item of one list, as a set, made once per list. Lists are immutable and a save makes a
 * new one, so {@link handKeysOn} passes the set to the list a save made by appending, instead of the next save
 * normalising and hashing 10,000 texts again. Read it, never change it.
 */
const listKeys = new WeakMap<readonly object[], Set<string>>()

/** The compared forms of the items of `items` ({@link normalizedItem} of each). */
export function itemKeys(items: readonly { readonly text: string }[]): ReadonlySet<string> {
  let keys = listKeys.get(items)
  if (keys === undefined) {
    keys = new Set(items.map((it) => normalizedItem(it)))
    listKeys.set(items, keys)
  }
  return keys
}

/**
 * `next` is `before` with `added` appended and nothing else: its compared forms are `before`'s and those of `added`.
 * The set moves to `next` (`before`, should it be read again, makes its own anew), so no set is ever copied.
 */
export function handKeysOn(
  before: readonly { readonly text: string }[],
  next: readonly { readonly text: string }[],
  added: readonly { readonly text: string }[],
): void {
  const keys = listKeys.get(before)
  if (keys === undefined) return
  listKeys.delete(before)
  for (const it of added) keys.add(normalizedItem(it))
  listKeys.set(next, keys)
}
