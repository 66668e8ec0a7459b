/**
 * Recall, the pure part: what to look for (the user's new message, with the last few turns as a weaker hint), how to
 * rank what the index found (relevance first, then pins, then the newest), which items to send (only relevant ones,
 * never a suggestion, never what the core already carries or this conversation was already sent, within the recall
 * budget) and the Chinese text that carries them. It never reads the store or the host; recall-install.ts does.
 */
import { distinctTerms, relativeDateTerms } from '../shared/search-terms.ts'
import type { MemoryItem, MemoryLayer } from '../state/model.ts'

/** One item the index found for a query, with its relevance (higher is better). */
export interface Scored {
  item: MemoryItem
  layer: MemoryLayer
  score: number
}

/** What recall looks for: the new message's terms, and the recent turns' terms (a weaker hint). */
export interface RecallQuery {
  question: string[]
  context: string[]
}

/** How much the recent turns count beside the new message: they expand the query, never steer it. */
export const CONTEXT_WEIGHT = 0.35

/**
 * The relevance an item needs to be sent at all (BM25 as FTS5 computes it): about one distinctive word shared with
 * the question. Below it an item only shares words that most items have, and sending it would be noise.
 */
export const MIN_SCORE = 1.5

/** An item must score at least this share of the best item's score: the best answer sets the bar for the rest. */
export const RELATIVE_FLOOR = 0.3

/** The query of a user message, given the texts of the turns before it (newest last) and the time it arrived. */
export function recallQuery(message: string, previous: readonly string[], now: number): RecallQuery {
  const question = [...distinctTerms(message), ...relativeDateTerms(message, now)]
  const asked = new Set(question)
  const context = [...new Set(previous.flatMap((t) => distinctTerms(t)))].filter((t) => !asked.has(t))
  return { question, context }
}

const keyOf = (s: { layer: MemoryLayer; item: { id: string } }) => `${s.layer}:${s.item.id}`

/**
 * The question's hits, each raised by its context score at {@link CONTEXT_WEIGHT}. An item only the context finds is
 * not one: what the user said a turn ago is in the conversation already, and a message about something else ("推荐
 * 一部电影吧") must not bring it back.
 */
export function mergeHits(question: readonly Scored[], context: readonly Scored[]): Scored[] {
  const out = new Map<string, Scored>()
  for (const h of question) out.set(keyOf(h), { ...h })
  for (const h of context) {
    const had = out.get(keyOf(h))
    if (had !== undefined) had.score += h.score * CONTEXT_WEIGHT
  }
  return [...out.values()]
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
  const ranked = hits.filter((h) => h.item.pending !== true && h.score >= MIN_SCORE).sort(byRelevance)
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
export function recallLine(s: Scored): string {
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
