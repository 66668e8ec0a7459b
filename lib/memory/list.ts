/**
 * The settings page's memory list: one memory list (a profile's, the user layer, a conversation's) filtered by text,
 * source, archived and pending, as one window of at most SEARCH_PAGE.max items and the count of all matches. Text
 * filtering goes through the store's search index (memory-index.ts `containing`); without an index it reads the items
 * themselves, with the same meaning (every word, case-insensitive). It never writes and never renders prompt text.
 */
import { SEARCH_QUERY_WORDS, type MemorySearchReply } from '../shared/wire-replies.ts'
import type { MemorySearch } from '../shared/wire-inputs.ts'
import { userItemsOf, type MemoryItem, type MemoryLayer } from '../state/model.ts'
import { conversationOwner } from '../store/db/memory-index.ts'
import { USER_OWNER } from '../store/db/rows.ts'
import type { ProfileStore } from '../store/store.ts'
import { invalid, sessionId } from '../validate/state.ts'
import { StoreError } from '../shared/errors.ts'
import { newestFirst } from '../shared/memory-order.ts'

/** A Latin letter or digit alone: in nearly every item, so it narrows nothing. */
const LATIN_CHAR = /^[a-z0-9]$/

/** The items of one list and its index owner; undefined items for a conversation without settings. */
function listOf(
  store: ProfileStore,
  layer: MemoryLayer,
  owner: string | undefined,
): { items: readonly MemoryItem[]; indexOwner: string } {
  if (layer === 'user') return { items: userItemsOf(store.state), indexOwner: USER_OWNER }
  if (owner === undefined || owner === '')
    throw invalid('owner', layer === 'profile' ? 'must name the profile' : 'must name the conversation')
  if (layer === 'conversation') {
    const sid = sessionId(owner, 'owner')
    return { items: store.state.sessions.get(sid)?.memories ?? [], indexOwner: conversationOwner(sid) }
  }
  const profile = store.state.profiles.find((p) => p.id === owner)
  if (profile === undefined)
    throw new StoreError('not-found', `owner: no profile ${JSON.stringify(owner.slice(0, 80))}`, 'owner')
  return { items: profile.memory.items, indexOwner: profile.id }
}

/** Whether `text` holds every word of `words`, case-insensitively (the meaning of the index's `containing`). */
function holdsAll(text: string, words: readonly string[]): boolean {
  const t = text.toLowerCase()
  return words.every((w) => t.includes(w))
}

/**
 * The words a search looks for, lowercased: each once; none that another word of the query holds (an item holding
 * "hangzhou" holds "hang", so "hang" asks nothing more); and no Latin letter or digit alone while a longer word is
 * left (`a` or `1` is in nearly every item, and each word costs a pass over the list). Refused past
 * SEARCH_QUERY_WORDS words, naming the limit, so that one request costs at most that many passes.
 */
function searchWords(q: string): string[] {
  const distinct = [...new Set(q.toLowerCase().split(/\s+/).filter(Boolean))].sort((a, b) => b.length - a.length)
  const kept: string[] = []
  for (const w of distinct) if (!kept.some((k) => k.includes(w))) kept.push(w)
  const words = kept.some((w) => !LATIN_CHAR.test(w)) ? kept.filter((w) => !LATIN_CHAR.test(w)) : kept
  if (words.length > SEARCH_QUERY_WORDS)
    throw Object.assign(
      invalid('q', `has ${words.length} different words, over the limit of ${SEARCH_QUERY_WORDS}`, SEARCH_QUERY_WORDS),
      { rule: 'search.words' as const },
    )
  return words
}

/**
 * One window of one memory list, filtered, for a query its schema read (wire-inputs.ts `MemorySearchQuery`); throws
 * StoreError naming the field for an owner that is not there or a query of too many words.
 */
export function listMemory(store: ProfileStore, query: MemorySearch): MemorySearchReply {
  const revision = store.revision
  const { layer, q, archived, pending, offset, limit } = query
  const sources = query.source.length === 0 ? undefined : new Set(query.source)
  const { items, indexOwner } = listOf(store, layer, query.owner)
  const keep = (it: MemoryItem) =>
    (sources === undefined || sources.has(it.source)) &&
    (archived === undefined || (it.archived === true) === archived) &&
    (pending === undefined || (it.pending === true) === pending)
  let matches: MemoryItem[]
  const words = q === '' ? [] : searchWords(q)
  if (q === '') {
    matches = newestFirst(items.filter(keep))
  } else {
    const found = store.searchIndex((index) => index.containing(indexOwner, words.join(' ')))
    if (found !== undefined) {
      const byId = new Map(items.map((it) => [it.id, it]))
      matches = found.flatMap((id) => {
        const it = byId.get(id)
        return it !== undefined && keep(it) ? [it] : []
      })
    } else {
      matches = items.filter((it) => keep(it) && holdsAll(it.text, words))
    }
    // Only the index ranks, and only words of three characters or more: short words alone list newest first.
    if (found === undefined || words.every((w) => [...w].length < 3)) matches = newestFirst(matches)
  }
  return { items: matches.slice(offset, offset + limit), total: matches.length, offset, limit, revision }
}
