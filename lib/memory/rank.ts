/**
 * Relevance of one memory item to a weighted query: BM25 (k1 1.2, b 0.75, as FTS5 computes it) over the item's
 * search terms, each query term counting its weight (the conversation's newest message most, earlier turns less:
 * lib/memory/recall.ts), with an inverse document frequency that never reaches zero and a floor for a term the item
 * carries as a search key. Owns the reading of an item's terms (from the index's terms column, or made from the item
 * and cached per immutable item when there is no index) and the formula; it never reads
 * the store (lib/memory/search.ts hands it the index's counts) and never decides what is sent.
 */
import { keyCode, TERM_SEPARATOR, termCode, termsColumn } from '../shared/search-terms.ts'
import type { MemoryItem } from '../state/model.ts'

/** The counts of the whole index a score needs (lib/store/db/memory-index.ts `termStats`). */
export interface RankStats {
  /** Items in the index. */
  docs: number
  /** Their mean number of terms. */
  meanTerms: number
  /** In how many items each query term occurs. */
  df: ReadonlyMap<string, number>
}

/** A query: each term's weight (1 for a term of the newest message alone). */
export type WeightedQuery = ReadonlyMap<string, number>

const K1 = 1.2
const B = 0.75

/**
 * What a term the item carries as a search key (a lorebook entry's key, the keys saved with a fact) is worth at the
 * least: a key says what the item is about, so a word every item shares still finds the one keyed by it. About one
 * distinctive word (recall.ts `MIN_SCORE`): a key named in the newest message alone is enough to recall its item.
 */
const KEY_IDF = 2

/** One item's terms, by code: how often each occurs, their number, and the codes marking its key terms. */
export interface ItemTerms {
  counts: Map<string, number>
  length: number
}

/** An item's terms read from its terms column (`termsColumn`'s layout: a separator before each two-character code). */
export function columnTerms(column: string): ItemTerms {
  const counts = new Map<string, number>()
  let length = 0
  for (let i = 0; i + 3 <= column.length; i += 3) {
    if (column[i] !== TERM_SEPARATOR) break
    const code = column.slice(i + 1, i + 3)
    counts.set(code, (counts.get(code) ?? 0) + 1)
    length++
  }
  return { counts, length }
}

const cache = new WeakMap<MemoryItem, ItemTerms>()

/** The terms of `item` as the index holds them (its text and keys, and the day it was saved), counted. */
export function itemTerms(item: MemoryItem): ItemTerms {
  let t = cache.get(item)
  if (t === undefined) {
    t = columnTerms(termsColumn(item.text, item.keys, item.at))
    cache.set(item, t)
  }
  return t
}

const codeOf = new Map<string, { term: string; key: string }>()
/** A query term's code and key code (memoised: a conversation's terms repeat from turn to turn). */
function codes(term: string): { term: string; key: string } {
  let c = codeOf.get(term)
  if (c === undefined) {
    if (codeOf.size > 50_000) codeOf.clear()
    c = { term: termCode(term), key: keyCode(term) }
    codeOf.set(term, c)
  }
  return c
}

/**
 * The inverse document frequency of a term found in `n` of `docs` items. Lucene's form, log(1 + (N − n + ½)/(n + ½)):
 * FTS5's own (without the 1 +) is negative past half the items and is then clamped to nothing, so in a small lorebook
 * whose every entry names the glade, "glade" found none of them.
 */
export function idf(n: number, docs: number): number {
  return Math.log(1 + (Math.max(docs, n) - n + 0.5) / (n + 0.5))
}

/**
 * A word in more than this share of the items (and more than {@link COMMON_FLOOR} of them) is common: it says little
 * on its own ("推荐" in the memory of someone who works on a 推荐系统), so an item it alone finds is no answer to
 * "推荐一部电影吧". It still ranks the items a rarer word found.
 */
const COMMON_SHARE = 1 / 30
/** In a small memory every word is in few items: below this many, none is common. */
const COMMON_FLOOR = 10

/**
 * Whether `term`, found in `n` of `docs` items, is common (see {@link COMMON_SHARE}). Only a plain word can be: a
 * concept (`c…`: work, family…) or a date (`d…`, `m…`) the message names is what it asks about, however many items
 * share it ("What's my job again?", "上个月…").
 */
function isCommon(term: string, n: number, docs: number): boolean {
  return n > COMMON_FLOOR && n > COMMON_SHARE * docs && !/^[cdm]\d/.test(term)
}

/** An item's relevance: all of it, and the part owed to words that are not common or that the item carries as keys. */
export interface Relevance {
  score: number
  sure: number
}

/** The relevance to `query` of an item whose terms are `t` (0 when they share no term). */
export function scoreTerms(t: ItemTerms, query: WeightedQuery, stats: RankStats): number {
  return relevance(t, query, stats).score
}

/** {@link scoreTerms}, with the part of it owed to words that are not common. */
export function relevance(t: ItemTerms, query: WeightedQuery, stats: RankStats): Relevance {
  const norm = K1 * (1 - B + (B * t.length) / Math.max(1, stats.meanTerms))
  let score = 0
  let sure = 0
  for (const [term, weight] of query) {
    const c = codes(term)
    const f = t.counts.get(c.term)
    if (f === undefined) continue
    const n = stats.df.get(term) ?? 1
    let w = idf(n, stats.docs)
    const key = t.counts.has(c.key)
    if (key) w = Math.max(w, KEY_IDF)
    const part = (weight * w * (f * (K1 + 1))) / (f + norm)
    score += part
    if (key || !isCommon(term, n, stats.docs)) sure += part
  }
  return { score, sure }
}
