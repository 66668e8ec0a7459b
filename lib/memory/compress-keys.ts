/**
 * The search keys of a compression's items. The model rewrites facts without their keys (it is never shown them, and
 * asking it to carry them would let one forgetful answer lose a key the user typed), so the keys are carried here,
 * without a model: each condensed item that had keys gives them to the compressed item that says most of what it said,
 * and a compressed item keeps the union of what it was given within the keys limits (lib/shared/memory-keys.ts).
 * Pure: it reads the items it is handed and never the store.
 */
import { unionKeys } from '../shared/memory-keys.ts'
import { distinctTerms } from '../shared/search-terms.ts'
import { isUsersFact, type MemoryItem } from '../state/model.ts'

/** One condensed item's keys, offered to the compressed item that took its words. */
interface Offer {
  keys: string
  /** Typed by the user (or brought in or approved by the user): kept before keys a model wrote. */
  users: boolean
  /** The share of the condensed item's terms (text and keys) the compressed item holds. */
  share: number
}

/**
 * Per compressed text (same order), the keys it carries: the union of the keys of the condensed `sources` whose terms
 * it holds the largest share of (a source goes to one item: the first of the best; a source none of them shares a term
 * with was dropped by the compression and keeps its keys only on its archived original). Over the limits, the keys
 * the user typed go first — a model can write its keys again at the next extraction, the user's cannot be guessed —
 * then those of the sources most merged into the item; a key two sources share counts once.
 */
export function compressedKeys(sources: readonly MemoryItem[], texts: readonly string[]): (string | undefined)[] {
  const targets = texts.map((t) => new Set(distinctTerms(t)))
  const offers: Offer[][] = texts.map(() => [])
  for (const source of sources) {
    if (source.keys === undefined || source.keys.trim() === '') continue
    const terms = distinctTerms(`${source.text}\n${source.keys}`)
    if (terms.length === 0) continue
    let best = -1
    let most = 0
    targets.forEach((target, i) => {
      const shared = terms.reduce((n, t) => n + Number(target.has(t)), 0)
      if (shared > most) {
        most = shared
        best = i
      }
    })
    if (best >= 0) offers[best]!.push({ keys: source.keys, users: isUsersFact(source), share: most / terms.length })
  }
  return offers.map((list) =>
    list.length === 0
      ? undefined
      : unionKeys([...list].sort((a, b) => Number(b.users) - Number(a.users) || b.share - a.share).map((o) => o.keys)),
  )
}
