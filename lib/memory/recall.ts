/**
 * Recall, the pure part: what to look for (the conversation so far, weighted toward the newest message), how to
 * rank what the index found (relevance first, then pins, then the newest), which items to send (only relevant ones,
 * never a suggestion, never what the core already carries, this conversation was already sent or already said itself,
 * within the recall budget) and the Chinese text that carries them. It never reads the store or the host; recall-install.ts does.
 */
import { distinctTerms, relativeDateTerms } from '../shared/search-terms.ts'
import type { MemoryItem, MemoryLayer } from '../state/model.ts'

/** One item the index found for a query, with its relevance (higher is better). */
export interface Scored {
  item: MemoryItem
  layer: MemoryLayer
  score: number
  /** The part of `score` owed to words that are not common (lib/memory/rank.ts `isCommon`); all of it when unsaid. */
  sure?: number
}

/** One message of the conversation so far: who said it, and what. */
export interface Said {
  role: 'user' | 'assistant'
  text: string
}

/**
 * What recall looks for: every term of the conversation so far with its weight — the newest message's at 1, each
 * message before it at {@link DECAY} per step back (an assistant's at {@link ASSISTANT_WEIGHT} of that), summed over the
 * messages that hold it, so a subject the conversation keeps circling weighs more than one said once — and each
 * earlier message's terms, to tell what the conversation already holds.
 */
export interface RecallQuery {
  weights: Map<string, number>
  newest: Set<string>
  earlier: Set<string>[]
}

/** What a term keeps of its weight per message back: a memory two turns back still counts, less than the newest. */
const DECAY = 0.7

/**
 * An assistant's message beside a user's of the same age: it names the subject too, but it is long and names much the
 * user never asked about.
 */
const ASSISTANT_WEIGHT = 0.5

/** Messages before the newest that the query reads (three exchanges), and the characters of each (its end). */
export const EARLIER_MESSAGES = 6
const EARLIER_CHARS = 1_000

/**
 * The relevance an item needs to be sent at all: about one distinctive word shared with the newest message (a term
 * found in few items is worth about 2–8). Below it an item only shares words that most items have, or only what the
 * conversation said long ago, and sending it would be noise.
 */
export const MIN_SCORE = 1.5

/** An item must score at least this share of the best item's score: the best answer sets the bar for the rest. */
const RELATIVE_FLOOR = 0.25

/**
 * The share of an item's terms one earlier message holds for the conversation to hold the item already: the user said
 * it themselves ("我住在杭州西湖区" a turn before "用户住在杭州西湖区" was saved), so sending it adds nothing.
 */
const HELD_SHARE = 0.8

/**
 * Words that point back at what the conversation said (他, 那边, it, there…): a message holding one is about the
 * subject before it, even when it names none of its words ("那边有什么要注意的？" after "下周去青岛出差").
 */
const ZH_BACK = new Set([...'他她它那这其'])
const EN_BACK = new Set(
  'he she it they him her them his hers its their theirs there that those this these same'.split(' '),
)

/** A message this short (in terms of its own) is a reply that leans on what came before ("好", "Just me and the band"). */
const SHORT_REPLY = 2

/**
 * Whether `message` carries on the conversation before it, so that the earlier messages count in its query: it
 * points back (a pronoun, 那边, there), answers the question the assistant just asked, shares a word with the earlier
 * messages, or is a short reply. Otherwise it opens a subject of its own ("推荐一部电影吧" after talk of the dog), and
 * what was said before it recalls nothing.
 */
export function carriesOn(
  message: string,
  terms: ReadonlySet<string>,
  earlier: readonly Said[],
  sets: readonly ReadonlySet<string>[],
): boolean {
  if (earlier.length === 0) return false
  if (terms.size <= SHORT_REPLY) return true
  const last = earlier.at(-1)!
  if (last.role === 'assistant' && /[?？吗呢]\s*$/.test(last.text.slice(-EARLIER_CHARS))) return true
  for (const c of message.slice(0, EARLIER_CHARS)) if (ZH_BACK.has(c)) return true
  for (const w of message
    .slice(0, EARLIER_CHARS)
    .toLowerCase()
    .split(/[^a-z]+/))
    if (EN_BACK.has(w)) return true
  for (const t of terms) if (sets.some((said) => said.has(t))) return true
  return false
}

/**
 * The query of a new message, given the conversation's messages before it (oldest first; only the last
 * {@link EARLIER_MESSAGES} are read) and the time it arrived. The earlier messages weigh in only when the new one
 * {@link carriesOn} the conversation; either way they say what the conversation already holds.
 */
export function recallQuery(message: string, earlier: readonly Said[], now: number): RecallQuery {
  const weights = new Map<string, number>()
  const add = (terms: Iterable<string>, w: number) => {
    for (const t of new Set(terms)) weights.set(t, (weights.get(t) ?? 0) + w)
  }
  const own = new Set(distinctTerms(message))
  const newest = new Set([...own, ...relativeDateTerms(message, now)])
  add(newest, 1)
  const recent = earlier.slice(-EARLIER_MESSAGES)
  const sets = recent.map((m) => new Set(distinctTerms(m.text.slice(-EARLIER_CHARS))))
  if (carriesOn(message, own, recent, sets))
    sets.forEach((terms, i) => {
      const back = recent.length - i
      add(terms, DECAY ** back * (recent[i]!.role === 'assistant' ? ASSISTANT_WEIGHT : 1))
    })
  return { weights, newest, earlier: sets }
}

/**
 * Whether the conversation already holds `text`: one of the earlier messages holds {@link HELD_SHARE} of its terms,
 * and the newest message asks nothing of it (no term in common). A new message that asks about it ("我住在哪个城市
 * 来着？") still gets it; one about something else ("推荐一部电影吧") does not get back what the user just said.
 */
export function heldBy(text: string, query: Pick<RecallQuery, 'newest' | 'earlier'>): boolean {
  if (query.earlier.length === 0) return false
  const terms = distinctTerms(text)
  if (terms.length === 0 || terms.some((t) => query.newest.has(t))) return false
  return query.earlier.some((said) => terms.filter((t) => said.has(t)).length >= HELD_SHARE * terms.length)
}

/** Relevance first; between equals a pinned item, then the newest. */
export function byRelevance(a: Scored, b: Scored): number {
  return b.score - a.score || Number(b.item.pinned === true) - Number(a.item.pinned === true) || b.item.at - a.item.at
}

/** The characters one recalled item takes in the recall text (its line and the newline). */
export function lineSize(s: Scored): number {
  return recallLine(s).length + 1
}

/**
 * The items to send: relevant enough (at least {@link MIN_SCORE} and {@link RELATIVE_FLOOR} of the best), not a
 * suggestion, not `skip`ped (already in the core, already sent), best first while they fit in `budget` characters (an
 * item too long for what is left is passed over for the next).
 */
export function pickRecall(hits: readonly Scored[], budget: number, skip: (s: Scored) => boolean): Scored[] {
  const ranked = hits.filter((h) => h.item.pending !== true && (h.sure ?? h.score) >= MIN_SCORE).sort(byRelevance)
  const best = ranked[0]?.score ?? 0
  let left = budget - RECALL_HEAD.length
  const out: Scored[] = []
  for (const h of ranked) {
    if (h.score < best * RELATIVE_FLOOR) break
    if (skip(h)) continue
    const size = lineSize(h)
    if (size > left) continue
    out.push(h)
    left -= size
  }
  return out
}

/** A local calendar date, YYYY-MM-DD. */
export function localDate(at: number): string {
  const d = new Date(at)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

const LAYER_LABEL: Record<MemoryLayer, string> = { user: '关于用户', profile: '记忆', conversation: '本对话' }

/** A fact's text on one line, as a recall line carries it. */
export function lineText(text: string): string {
  return text.includes('\n')
    ? text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' ')
    : text.trim()
}

/** One recalled item as the model reads it: when it was saved, its layer, the fact on one line. */
function recallLine(s: Scored): string {
  return `- （${localDate(s.item.at)} 记下 · ${LAYER_LABEL[s.layer]}）${lineText(s.item.text)}`
}

/** The heading and lead of a recall text. */
export const RECALL_HEAD =
  '# 相关记忆\n以下是此前记下、与用户刚才所说相关的信息（括号里是记下的日期；事情发生的时间以条目里写的为准），仅供参考；与用户在本对话中的最新说法冲突时，以用户的说法为准。本对话前面列出过的相关记忆仍然有效，这里只列新的。\n'

/**
 * The fact texts recall lines in `text` carry (a runtime-context snapshot of the conversation's log): what an earlier
 * process already sent this conversation, so that after a restart recall does not send it again.
 */
export function recalledTexts(text: string): string[] {
  if (!text.includes(RECALL_HEAD.slice(0, 6))) return []
  const out: string[] = []
  for (const line of text.split('\n')) {
    const m = /^- （\d{4}-\d{2}-\d{2} 记下 · [^）]{1,8}）(.+)$/.exec(line)
    if (m !== null) out.push(m[1]!)
  }
  return out
}

/** The recall text of `picks` ('' when there are none). */
export function renderRecall(picks: readonly Scored[]): string {
  return picks.length === 0 ? '' : `${RECALL_HEAD}${picks.map(recallLine).join('\n')}`
}
