/**
 * Who a user's message is addressed to: the `@` mentions of profiles in one message, read the same way by the composer
 * (which warns before sending) and by the host (which picks the turn's speakers). It owns the reading of the text
 * only; it never decides what a mention does to a conversation and never touches the store or the page.
 *
 * A mention is `@` followed by a profile's name, at the start of the text or after anything but the characters of an
 * e-mail address's local part (so `me@example.com` is an address, `然后@编程搭档` a mention), outside inline code and
 * fenced code blocks, without regard to Latin letter case. A name ending in a Latin letter or digit must not run on
 * into another (`@Bobby` is not `@Bob`, `@Bob先说` is). `@all` and its translations (lib/shared/profile-names.ts) are
 * words of the plugin: they ask the whole cast, and a profile stored under such a name (only an older version could
 * store one) is never reached by them. `@` followed by something that looks like a path (`@src/app.ts`, `@README.md`)
 * is left to the host's file references.
 *
 * Which name, when several match where the `@` stands (the rule for names that run straight into the sentence, as
 * Chinese ones do): one match is that profile (`@编程搭档帮我看看` names 编程搭档). When names of different lengths match
 * (乙 and 乙帮我 both match `@乙帮我看看`), the longest is chosen only when the text ends right after it (end of text,
 * white space or punctuation: `@乙帮我 看看`, `@Code Review Bot,`); otherwise nobody is chosen and the reading says it
 * is ambiguous, so a profile whose name merely extends another's cannot take that other's messages. Two profiles
 * with one name (only an older version could store them) are ambiguous too. An ambiguous mention names nobody: the
 * conversation's own profile answers, and the composer has said why before sending.
 */
import { ALL_WORDS, isReservedName } from './profile-names.ts'

export { ALL_WORDS } from './profile-names.ts'

/** A profile as the reader needs it. */
export interface MentionTarget {
  id: string
  name: string
}

/** One profile named in the text, where it stands. */
interface Mention {
  id: string
  name: string
  /** Offset of the `@` in the text (UTF-16 units). */
  start: number
  /** Offset just past the name. */
  end: number
}

/** Why a word after `@` reaches no one profile. */
type Ambiguity =
  /** It starts the names of several profiles and is none of them (`@编程` with 编程搭档 and 编程老师). */
  | 'prefix'
  /** Names of different lengths match and the text runs on after the longest (`@乙帮我看看` with 乙 and 乙帮我). */
  | 'nested'
  /** Several profiles share the name. */
  | 'same'

/** A word after `@` that reaches no one profile: the word as typed, the profiles it could mean, why, where it ends. */
export interface AmbiguousMention {
  word: string
  /** The profiles it could mean; {@link ALL_ID} stands for the whole cast (`@所有人` against a profile `所有人们`). */
  ids: string[]
  why: Ambiguity
  /** Offset just past the word in the text (the composer does not warn about a word still being typed). */
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
  /** Words after `@` that reach no one profile, each once. */
  ambiguous: AmbiguousMention[]
}

/** The id an ambiguous mention lists for the whole cast (no profile id starts with `@`). */
export const ALL_ID = '@all'

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

const ALL: readonly Name[] = ALL_WORDS.map((w) => ({ id: ALL_ID, name: w, folded: w }))

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
  const names: Name[] = [
    ...targets
      .map((t) => ({ id: t.id, name: t.name.trim(), folded: fold(t.name.trim()) }))
      .filter((t) => t.name !== '' && !isReservedName(t.name)),
    ...ALL,
  ].sort((a, b) => b.name.length - a.name.length)
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
    const found = chooseName(text, at + 1, names)
    if (found !== undefined && 'why' in found) {
      addAmbiguous(reading, found)
      continue
    }
    if (found !== undefined) {
      if (found.id === ALL_ID) reading.all = true
      else if (!seen.has(found.id)) {
        seen.add(found.id)
        reading.mentions.push({ id: found.id, name: found.name, start: at, end: at + 1 + found.name.length })
      }
      continue
    }
    const word = wordAt(text, at + 1)
    if (word === '' || PATH_MARK.test(word)) continue
    const prefixed = names.filter((n) => n.id !== ALL_ID && n.folded.startsWith(fold(word)))
    if (prefixed.length > 1)
      addAmbiguous(reading, {
        word,
        ids: prefixed.map((n) => n.id),
        why: 'prefix',
        end: at + 1 + word.length,
      })
    else if (!reading.unknown.includes(word)) reading.unknown.push(word)
  }
  return reading
}

/** Every name the text starts with at `from`, longest first, honouring the Latin word boundary. */
function matchingNames(text: string, from: number, names: readonly Name[]): Name[] {
  const out: Name[] = []
  for (const n of names) {
    if (fold(text.slice(from, from + n.name.length)) !== n.folded) continue
    const next = text[from + n.name.length]
    if (needsBoundary(n.name[n.name.length - 1]!) && next !== undefined && needsBoundary(next)) continue
    out.push(n)
  }
  return out
}

/** True when the text ends at `end`: its end, white space or punctuation. */
function endsAt(text: string, end: number): boolean {
  return end >= text.length || WORD_END.test(text[end]!)
}

/**
 * The one name the `@` at `from - 1` reaches (see the module's rule), or why it reaches no one, or undefined when no
 * name matches there. Compared in the text's own offsets, so a name's length is its length in the message.
 */
function chooseName(text: string, from: number, names: readonly Name[]): Name | AmbiguousMention | undefined {
  const found = matchingNames(text, from, names)
  if (found.length === 0) return undefined
  const longest = found[0]!.name.length
  const end = from + longest
  const word = text.slice(from, end)
  const top = found.filter((n) => n.name.length === longest)
  if (top.length > 1) return { word, ids: top.map((n) => n.id), why: 'same', end }
  if (found.length === 1 || endsAt(text, end)) return top[0]!
  const ids: string[] = []
  for (const n of found) if (!ids.includes(n.id)) ids.push(n.id)
  return ids.length === 1 ? top[0]! : { word, ids, why: 'nested', end }
}

function addAmbiguous(reading: MentionReading, found: AmbiguousMention): void {
  if (!reading.ambiguous.some((a) => a.word === found.word)) reading.ambiguous.push(found)
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
