/**
 * Ranked search over one conversation's memory scope — its profile's items (when the profile has content and memory
 * on), the user layer, the conversation's own — for recall and `memory_search`. Owns the scope (never another
 * profile's items) and the lookup through the store's index, with a scan of the items themselves when there is no
 * index (no database yet, a failed query). It never renders text and never writes.
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
import { searchTerms } from '../shared/search-terms.ts'
import { conversationOwner } from '../store/db/memory-index.ts'
import { USER_OWNER } from '../store/db/rows.ts'
import type { ProfileStore } from '../store/store.ts'
import type { Scored } from './recall.ts'

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

// Lists are immutable and replaced on change, so each one's id map is built once per version of it.
const byIdOf = new WeakMap<readonly MemoryItem[], Map<string, MemoryItem>>()
function byId(items: readonly MemoryItem[]): Map<string, MemoryItem> {
  let map = byIdOf.get(items)
  if (map === undefined) {
    map = new Map(items.map((it) => [it.id, it]))
    byIdOf.set(items, map)
  }
  return map
}

const termsOf = new WeakMap<MemoryItem, Set<string>>()
function itemTerms(it: MemoryItem): Set<string> {
  let t = termsOf.get(it)
  if (t === undefined) {
    t = new Set(searchTerms(it.keys === undefined ? it.text : `${it.text}\n${it.keys}`))
    termsOf.set(it, t)
  }
  return t
}

/**
 * Without an index: each item scores the inverse document frequency of every query term it holds (the shape of the
 * index's BM25, without its length normalisation). Linear in the scope's items.
 */
function scan(lists: readonly ScopeList[], terms: readonly string[], limit: number): Scored[] {
  const wanted = [...new Set(terms)]
  const all = lists.flatMap((l) => l.items.map((item) => ({ item, layer: l.layer })))
  const df = new Map<string, number>()
  for (const { item } of all) for (const t of wanted) if (itemTerms(item).has(t)) df.set(t, (df.get(t) ?? 0) + 1)
  const n = all.length
  const idf = (t: string) => Math.max(1e-6, Math.log((n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)))
  const out: Scored[] = []
  for (const { item, layer } of all) {
    let score = 0
    for (const t of wanted) if (itemTerms(item).has(t)) score += idf(t)
    if (score > 0) out.push({ item, layer, score })
  }
  return out.sort((a, b) => b.score - a.score).slice(0, limit)
}

/** The items of `lists` that share terms with `terms`, best first, at most `limit`. */
export function searchLists(
  store: Pick<ProfileStore, 'searchIndex'>,
  lists: readonly ScopeList[],
  terms: readonly string[],
  limit: number,
): Scored[] {
  if (terms.length === 0 || lists.length === 0) return []
  const owners = new Map(lists.map((l) => [l.owner, l]))
  const hits = store.searchIndex((index) => index.ranked([...owners.keys()], terms, limit))
  if (hits === undefined) return scan(lists, terms, limit)
  const out: Scored[] = []
  for (const h of hits) {
    const list = owners.get(h.owner)
    const item = list === undefined ? undefined : byId(list.items).get(h.item)
    // An index row whose item this state does not hold (another process's newer write) is left for the next look.
    if (item !== undefined) out.push({ item, layer: list!.layer, score: h.score })
  }
  return out
}
