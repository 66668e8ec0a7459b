/**
 * Who a user's message is addressed to: the `@` mentions of profiles in one message, read the same way by the composer
 * (which warns before sending) and by the host (which picks the turn's speakers). It owns the reading of the text
 * only; it never decides what a mention does to a conversation and never touches the store or the page.
 *
 * A mention is `@` followed by a profile's name, at the start of the text or after anything but the characters of an
 * e-mail address's local part (so `me@example.com` is an address, `然后@编程搭档` a mention), outside inline code and
 * fenced code blocks. Names are matched longest first and without regard to Latin letter case, so `@编程搭档帮我看看`
 * names 编程搭档 and `@Code Review Bot` beats `@Code`. A name ending in a Latin letter or digit must not run on into
 * another (`@Bobby` is not `@Bob`, `@Bob先说` is). `@` followed by something that looks like a path (`@src/app.ts`,
 * `@README.md`) is left to the host's file references.
 */

/** A profile as the reader needs it. */
export interface MentionTarget {
  id: string
  name: string
}

/** One profile named in the text, where it stands. */
export interface Mention {
  id: string
  name: string
  /** Offset of the `@` in the text (UTF-16 units). */
  start: number
  /** Offset just past the name. */
  end: number
}

/** What one message says about who should answer. */
export interface MentionReading {
  /** Profiles named, in the order first named, each once. */
  mentions: Mention[]
  /** `@all` / `@所有人` / `@大家` / `@全部` appeared: the whole cast is asked. */
  all: boolean
  /** Words after `@` that name no profile (and look like no path), each once, as typed. */
  unknown: string[]
  /** Words after `@` that more than one profile answers to, with the ids of those profiles. */
  ambiguous: { word: string; ids: string[] }[]
}

/** The words that address the whole cast. */
export const ALL_WORDS: readonly string[] = ['all', 'everyone', '所有人', '大家', '全部']

/** How many `@` signs of one message are read; the rest are plain text (a message is bounded, this bounds the work). */
export const MENTION_SCAN_LIMIT = 64

/** Characters of the word after an unmatched `@` that are reported back (a word can be a whole line). */
const WORD_LIMIT = 40

const PATH_MARK = /[/\\.]/
/** What may stand before the `@` of an e-mail address; a mention may follow anything else, a Chinese word included. */
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/
const WORD_END = /[\s,，。！？!?;；:：、()（）[\]【】"“”'‘’<>《》]/u

interface Name {
  id: string
  name: string
  folded: string
}

const ALL: readonly Name[] = [...ALL_WORDS]
  .sort((a, b) => b.length - a.length)
  .map((w) => ({ id: '', name: w, folded: w }))

/** Letters of alphabets that separate words by spaces, and digits: a name ending in one must not run on into another
 * (CJK names run straight into the sentence after them, and a Latin name may run into a Chinese one). */
function needsBoundary(ch: string): boolean {
  return /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{N}]/u.test(ch)
}

function fold(text: string): string {
  return text.toLowerCase()
}

/** The ranges of inline code and fenced code blocks, as sorted [start, end) pairs, found in one linear pass. */
function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = []
  let i = 0
  while (i < text.length) {
    if (text[i] !== '`') {
      i++
      continue
    }
    let run = 1
    while (text[i + run] === '`') run++
    const fence = '`'.repeat(run)
    const close = text.indexOf(fence, i + run)
    // An unclosed run is literal backticks (CommonMark), except a fence of three or more, which runs to the end.
    if (close === -1) {
      if (run >= 3) {
        ranges.push([i, text.length])
        break
      }
      i += run
      continue
    }
    ranges.push([i, close + run])
    i = close + run
  }
  return ranges
}

/** The word typed after an `@`: up to white space or punctuation other than the path marks, bounded. */
function wordAt(text: string, from: number): string {
  let end = from
  while (end < text.length && end - from < WORD_LIMIT && !WORD_END.test(text[end]!)) end++
  return text.slice(from, end)
}

/**
 * Read the mentions of `text` against `targets` (the profiles a user can address). Linear in the text for a bounded
 * number of targets: each of at most {@link MENTION_SCAN_LIMIT} `@` signs is compared with every name once.
 */
export function readMentions(text: string, targets: readonly MentionTarget[]): MentionReading {
  const names: Name[] = targets
    .map((t) => ({ id: t.id, name: t.name.trim(), folded: fold(t.name.trim()) }))
    .filter((t) => t.name !== '')
    .sort((a, b) => b.name.length - a.name.length)
  const code = codeRanges(text)
  const reading: MentionReading = { mentions: [], all: false, unknown: [], ambiguous: [] }
  const seen = new Set<string>()
  let nextCode = 0
  let scanned = 0
  for (let at = text.indexOf('@'); at !== -1 && scanned < MENTION_SCAN_LIMIT; at = text.indexOf('@', at + 1)) {
    scanned++
    while (nextCode < code.length && code[nextCode]![1] <= at) nextCode++
    if (nextCode < code.length && code[nextCode]![0] <= at) continue
    if (EMAIL_LOCAL.test(text[at - 1] ?? '')) continue
    const found = matchName(text, at + 1, names)
    if (found.length > 0) {
      const len = found[0]!.name.length
      if (found.length > 1) {
        addAmbiguous(
          reading,
          text.slice(at + 1, at + 1 + len),
          found.map((f) => f.id),
        )
      } else if (!seen.has(found[0]!.id)) {
        seen.add(found[0]!.id)
        reading.mentions.push({ id: found[0]!.id, name: found[0]!.name, start: at, end: at + 1 + len })
      }
      continue
    }
    if (matchName(text, at + 1, ALL).length > 0) {
      reading.all = true
      continue
    }
    const word = wordAt(text, at + 1)
    if (word === '' || PATH_MARK.test(word)) continue
    const prefixed = names.filter((n) => n.folded.startsWith(fold(word)))
    if (prefixed.length > 1)
      addAmbiguous(
        reading,
        word,
        prefixed.map((n) => n.id),
      )
    else if (!reading.unknown.includes(word)) reading.unknown.push(word)
  }
  return reading
}

/** The longest names the text starts with at `from` (several when profiles share that name), honouring the word
 * boundary. Compared in the text's own offsets, so a name's length is its length in the message. */
function matchName(text: string, from: number, names: readonly Name[]): Name[] {
  let best: Name[] = []
  for (const n of names) {
    if (best.length > 0 && n.name.length < best[0]!.name.length) break
    if (fold(text.slice(from, from + n.name.length)) !== n.folded) continue
    const next = text[from + n.name.length]
    if (needsBoundary(n.name[n.name.length - 1]!) && next !== undefined && needsBoundary(next)) continue
    best = [...best, n]
  }
  return best
}

function addAmbiguous(reading: MentionReading, word: string, ids: string[]): void {
  if (!reading.ambiguous.some((a) => a.word === word)) reading.ambiguous.push({ word, ids })
}

/**
 * The speakers of one message, in order: the profiles named; with `@all`, the cast's members not named yet follow, in
 * the cast's order. Empty when the message addresses nobody (the conversation's own profile answers).
 */
export function speakersOf(reading: MentionReading, cast: readonly string[]): string[] {
  const ids = reading.mentions.map((m) => m.id)
  if (reading.all) for (const id of cast) if (!ids.includes(id)) ids.push(id)
  return ids
}
