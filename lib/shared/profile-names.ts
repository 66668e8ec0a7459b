/**
 * What a profile's name may be, as the one rule both the typed and the imported name go through: the clean form a
 * name is stored in (characters that draw nothing removed, compatibility forms such as full-width letters made plain,
 * look-alike letters of another alphabet mixed into a Latin name made Latin, runs of white space made one), the key
 * two names are compared by (so `Seraphina`, `ｓｅｒａｐｈｉｎａ` and `Sеraphina` with a Cyrillic `е` are one name),
 * the words of the plugin no profile may be called (`@all` and its translations address the whole cast), and a
 * distinct name for a profile that would repeat another's. Pure and environment-neutral; it never refuses or renames
 * anything itself (the validators and the import do) and leaves direction controls and broken characters to them,
 * which refuse a typed name holding one and repair an imported one with a note.
 */
import { drawsNothing, hasBidi } from './safe-text.ts'

/** The words that address the whole cast (`@all`): words of the plugin, never a profile's name. */
export const ALL_WORDS: readonly string[] = ['all', 'everyone', '所有人', '大家', '全部']

/**
 * True for a code point removed from a name: one that draws nothing (lib/shared/safe-text.ts), except the direction
 * controls, which are refused in a typed name and removed with a note from an imported one, by the callers.
 */
function removed(ch: string): boolean {
  return drawsNothing(ch.codePointAt(0)!) && !hasBidi(ch)
}

/**
 * Letters of the Cyrillic and Greek alphabets drawn like a Latin letter, and that letter. In a name that also holds
 * Latin letters they are a disguise (`аll` with a Cyrillic `а` reads as `all`) and are made Latin; in the key every
 * one is folded, so a name wholly of such letters still compares equal to the Latin word it imitates.
 */
const LOOK_ALIKE = new Map<string, string>(
  Object.entries({
    а: 'a',
    в: 'b',
    е: 'e',
    к: 'k',
    м: 'm',
    н: 'h',
    о: 'o',
    р: 'p',
    с: 'c',
    т: 't',
    у: 'y',
    х: 'x',
    і: 'i',
    ј: 'j',
    ѕ: 's',
    ԁ: 'd',
    ԛ: 'q',
    ԝ: 'w',
    ӏ: 'l',
    А: 'A',
    В: 'B',
    Е: 'E',
    К: 'K',
    М: 'M',
    Н: 'H',
    О: 'O',
    Р: 'P',
    С: 'C',
    Т: 'T',
    У: 'Y',
    Х: 'X',
    І: 'I',
    Ј: 'J',
    Ѕ: 'S',
    Ԁ: 'D',
    Ԛ: 'Q',
    Ԝ: 'W',
    Ӏ: 'I',
    α: 'a',
    ο: 'o',
    ν: 'v',
    ρ: 'p',
    τ: 't',
    υ: 'u',
    ι: 'i',
    κ: 'k',
    Α: 'A',
    Β: 'B',
    Ε: 'E',
    Ζ: 'Z',
    Η: 'H',
    Ι: 'I',
    Κ: 'K',
    Μ: 'M',
    Ν: 'N',
    Ο: 'O',
    Ρ: 'P',
    Τ: 'T',
    Υ: 'Y',
    Χ: 'X',
  }),
)

const LATIN = /\p{Script=Latin}/u
const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** `text` without the code points that draw nothing, except inside an emoji (👩‍🏫 keeps its joiner). */
function withoutInvisible(text: string): string {
  let out = ''
  for (const { segment } of segmenter.segment(text)) {
    if (PICTOGRAPHIC.test(segment)) {
      out += segment
      continue
    }
    for (const ch of segment) if (!removed(ch)) out += ch
  }
  return out
}

function foldLookAlikes(text: string): string {
  let out = ''
  for (const ch of text) out += LOOK_ALIKE.get(ch) ?? ch
  return out
}

/**
 * The form a name is stored in, typed or imported: invisible characters removed (not inside an emoji), compatibility
 * forms made plain (NFKC: `Ｂｏｂ` is `Bob`), look-alike Cyrillic and Greek letters made Latin when the name holds Latin
 * letters, white space runs made one space, trimmed, and cut to `limit` UTF-16 units without splitting a character.
 * Idempotent: a clean name comes back as it is.
 */
export function cleanName(name: string, limit = Infinity): string {
  let out = withoutInvisible(name).normalize('NFKC')
  if (LATIN.test(out)) out = foldLookAlikes(out)
  out = out.replace(/\s+/gu, ' ').trim()
  if (out.length <= limit) return out
  let end = limit
  if (/[\uD800-\uDBFF]/.test(out[end - 1] ?? '')) end--
  return out.slice(0, end).trimEnd()
}

/** The key two names are compared by: the clean form, every look-alike letter folded, lower case. */
export function nameKey(name: string): string {
  return foldLookAlikes(cleanName(name)).toLowerCase()
}

const RESERVED = new Set(ALL_WORDS.map(nameKey))

/** True when `name` is, once cleaned and folded, a word of the plugin (`all`, `所有人`…), which no profile may be called. */
export function isReservedName(name: string): boolean {
  return RESERVED.has(nameKey(name))
}

/** The keys of the names of `profiles`, for {@link distinctName}. */
export function namesTaken(profiles: readonly { name: string }[]): Set<string> {
  return new Set(profiles.map((p) => nameKey(p.name)))
}

/**
 * `name` when its key is free (not in `taken`, not a reserved word), else the first of `name 2`, `name 3`… that is,
 * within `limit` UTF-16 units. `taken` holds keys ({@link nameKey}).
 */
export function distinctName(name: string, taken: ReadonlySet<string>, limit: number): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : ` ${n}`
    const candidate = cleanName(name, limit - suffix.length) + suffix
    const key = nameKey(candidate)
    if (!taken.has(key) && !RESERVED.has(key)) return candidate
  }
}
