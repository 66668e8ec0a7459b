/**
 * Ranked search over one conversation's memory scope — its profile's items (when the profile has content and memory
 * on), the user layer, the conversation's own — for recall and `memory_search`. Owns the scope (never another
 * profile's items) and the lookup through the store's index, with a scan of the items themselves when there is no
 * index (no database yet, a failed query); lib/memory/rank.ts scores. It never renders text and never writes.
 */
import {
  hasContent,
  userItemsOf,
  type MemoryItem,
  type MemoryLayer,
  type Profile,
  type SessionSetting,
  type State,
} from '../state/model.ts'
import { conversationOwner, QUERY_TERMS, type IndexHit } from '../store/db/memory-index.ts'
import { USER_OWNER } from '../store/db/rows.ts'
import type { ProfileStore } from '../store/store.ts'
import { termCode } from '../shared/search-terms.ts'
import { columnTerms, itemTerms, relevance, type RankStats, type WeightedQuery } from './rank.ts'
import type { Scored } from './recall.ts'
import { ItemLookup } from './item-lookup.ts'
import { itemsWithIds } from '../state/lazy-list.ts'

/** One memory list of a scope: its index owner, its layer and its items. */
interface ScopeList {
  owner: string
  layer: MemoryLayer
  items: readonly MemoryItem[]
}

/** The memory lists a conversation on `profile` reads, as the prompt reads them; none when memory is off. */
export function scopeLists(
  state: Pick<State, 'user'>,
  profile: Profile,
  sessionId: string,
  setting: SessionSetting | undefined,
): ScopeList[] {
  if (!profile.memoryEnabled) return []
  const lists: ScopeList[] = [{ owner: USER_OWNER, layer: 'user', items: userItemsOf(state) }]
  // A profile without content says nothing of its own, its memory included (as prompt/render.ts renders it).
  if (hasContent(profile)) lists.push({ owner: profile.id, layer: 'profile', items: profile.memory.items })
  lists.push({ owner: conversationOwner(sessionId), layer: 'conversation', items: setting?.memories ?? [] })
  return lists
}

// Each owner's items by id, kept across the versions of its list (a write replaces the list).
const lookup = new ItemLookup()

/** Candidates the index hands over per look, ranked by its own BM25: more than a budget holds, few enough to score. */
const CANDIDATES = 100

/**
 * Without an index: the scope's own counts (each query term's document frequency among the scope's items, their
 * mean length) and every item scored. Linear in the scope's items.
 */
function scan(lists: readonly ScopeList[], query: WeightedQuery): Scored[] {
  const all = lists.flatMap((l) => l.items.map((item) => ({ item, layer: l.layer })))
  const df = new Map<string, number>()
  let terms = 0
  for (const { item } of all) {
    const t = itemTerms(item)
    terms += t.length
    for (const q of query.keys()) if (t.counts.has(termCode(q))) df.set(q, (df.get(q) ?? 0) + 1)
  }
  const stats: RankStats = { docs: all.length, meanTerms: all.length > 0 ? terms / all.length : 1, df }
  return all.map(({ item, layer }) => ({ item, layer, ...relevance(itemTerms(item), query, stats) }))
}

/** The heaviest terms of `query`, at most {@link QUERY_TERMS}: what the index is asked for. */
function heaviest(query: WeightedQuery): string[] {
  return [...query]
    .sort((a, b) => b[1] - a[1])
    .slice(0, QUERY_TERMS)
    .map(([t]) => t)
}

/**
 * Terms of the earlier messages in at most this share of the items (and at most {@link RARE_FLOOR} in a small index)
 * find candidates; commoner ones only score the candidates found. A long conversation names many everyday words, and
 * ranking every item holding one of them would cost a look at thousands of rows for items that score little.
 */
const RARE_SHARE = 0.01
const RARE_FLOOR = 50

/**
 * Rows the ranked look may rank at most (the sum of its terms' document frequencies). FTS5 ranks every matching row
 * (a size lookup and a sort: about 5 µs a row), which was most of a recall's time with 10,000 items: a term in a
 * thousand items (a month every fact of it was saved in, 工作) cost 5 ms and found items that score about alike.
 * Past this, the commonest terms find candidates only through the unranked newest-first look.
 */
export const RANKED_ROWS = 300

/** Candidates the newest-first look adds at most: its items score about alike, so a few newest stand for the rest. */
const NEWEST_CANDIDATES = 40

/**
 * The items of `hits` as their lists hold them: a profile's items still on disk read by the ids asked (years of them
 * for a few hits), a list in memory looked up by position.
 */
function itemsOf(
  owners: ReadonlyMap<string, ScopeList>,
  hits: readonly IndexHit[],
): (hit: IndexHit) => MemoryItem | undefined {
  const onDisk = new Map<string, Map<string, MemoryItem> | undefined>()
  for (const [owner, list] of owners) {
    const ids = hits.filter((h) => h.owner === owner).map((h) => h.item)
    if (ids.length > 0) onDisk.set(owner, itemsWithIds(list.items, ids))
  }
  return (hit) => {
    const list = owners.get(hit.owner)
    if (list === undefined) return undefined
    const disk = onDisk.get(hit.owner)
    return disk !== undefined ? disk.get(hit.item) : lookup.find(hit.owner, list.items, hit.item)
  }
}

/**
 * The items of `lists` that share terms with `query` (terms and their weights: lib/memory/recall.ts), best first, at
 * most `limit`. The index finds the candidates — by the terms weighing at least `focus` (the newest message's) and the
 * rarer of the others: the rarest ranked by the index, the commonest (past {@link RANKED_ROWS}) by recency when the
 * ranked look found too few — and gives its counts; rank.ts scores them over every term.
 */
export function searchLists(
  store: Pick<ProfileStore, 'searchIndex'>,
  lists: readonly ScopeList[],
  query: WeightedQuery,
  limit: number,
  focus = 0,
): Scored[] {
  if (query.size === 0 || lists.length === 0) return []
  const owners = new Map(lists.map((l) => [l.owner, l]))
  const asked = heaviest(query)
  const found = store.searchIndex((index) => {
    const stats = index.termStats(asked)
    const df = (t: string) => stats.df.get(t) ?? 0
    const rare = Math.max(RARE_FLOOR, stats.docs * RARE_SHARE)
    const finding = asked.filter((t) => df(t) > 0 && (query.get(t)! >= focus || df(t) <= rare))
    finding.sort((a, b) => df(a) - df(b))
    let rows = 0
    let cut = 0
    while (cut < finding.length && rows + df(finding[cut]!) <= RANKED_ROWS) rows += df(finding[cut++]!)
    const keys = [...owners.keys()]
    const hits = index.ranked(keys, finding.slice(0, cut), CANDIDATES)
    if (hits.length < CANDIDATES && cut < finding.length) {
      const seen = new Set(hits.map((h) => `${h.owner}\u0000${h.item}`))
      for (const h of index.newest(keys, finding.slice(cut), Math.min(NEWEST_CANDIDATES, CANDIDATES - hits.length)))
        if (!seen.has(`${h.owner}\u0000${h.item}`)) hits.push(h)
    }
    return { hits, stats }
  })
  if (found === undefined)
    return scan(lists, query)
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
  // Scored by the terms column the index handed over, best first; only the items that make the first `limit` are
  // read (a profile's items on disk by their ids: a look hands over up to 140 candidates, a turn keeps a dozen).
  const ranked = found.hits
    .map((hit) => ({ hit, ...relevance(columnTerms(hit.terms), query, found.stats) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
  const out: Scored[] = []
  let next = 0
  while (out.length < limit && next < ranked.length) {
    const batch = ranked.slice(next, next + limit - out.length)
    next += batch.length
    const item = itemsOf(
      owners,
      batch.map((s) => s.hit),
    )
    for (const { hit, score, sure } of batch) {
      const list = owners.get(hit.owner)
      const it = item(hit)
      // An index row whose item this state does not hold (another process's newer write) is left for the next look.
      if (list !== undefined && it !== undefined) out.push({ item: it, layer: list.layer, score, sure })
    }
  }
  return out
}
