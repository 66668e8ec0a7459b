/**
 * Finding the item an index row names in its owner's list, for search. A list is replaced on every change, and
 * mapping all its ids again after each write cost more than the rest of a recall with 10,000 items (the fact the
 * background job saved after a turn made the next turn's recall map the whole list). So each owner's id → position
 * map outlives the list version it was made from: a position is trusted only when the current list holds that id
 * there, new items at the end are mapped as they come, and only a list whose items moved (a removal, a compression)
 * is mapped again. Owns that map; it never reads the store or the index.
 */
import type { MemoryItem } from '../state/model.ts'

/** Owners whose maps are kept; past it all are dropped (a host reads a few lists at a time: a profile, the user's). */
const OWNERS_KEPT = 32

/** One owner's map: where each id was, in `items` or a version before it. */
interface Positions {
  items: readonly MemoryItem[]
  at: Map<string, number>
  /** Leading items of `items` whose positions were mapped (in this version or, unmoved, an earlier one). */
  mapped: number
  /** The map was made from `items` itself, whole: an id it lacks is not in the list. */
  exact: boolean
}

/** Items by owner and id across the versions of each owner's list. */
export class ItemLookup {
  readonly #owners = new Map<string, Positions>()

  /** The item of `items` (the owner's list now) whose id is `id`, if it holds one. */
  find(owner: string, items: readonly MemoryItem[], id: string): MemoryItem | undefined {
    const p = this.#positions(owner, items)
    const hit = at(p, id)
    if (hit !== undefined || p.exact) return hit
    // New items at the end since it was mapped: map them and look again.
    if (p.mapped < items.length) {
      mapFrom(p, p.mapped)
      const tail = at(p, id)
      if (tail !== undefined) return tail
    }
    // Items moved (a removal, a compression), or the id is in no position: map the whole list, once per version.
    p.at.clear()
    mapFrom(p, 0)
    p.exact = true
    return at(p, id)
  }

  #positions(owner: string, items: readonly MemoryItem[]): Positions {
    let p = this.#owners.get(owner)
    if (p === undefined) {
      if (this.#owners.size >= OWNERS_KEPT) this.#owners.clear()
      p = { items, at: new Map(), mapped: 0, exact: true }
      mapFrom(p, 0)
      this.#owners.set(owner, p)
    } else if (p.items !== items) {
      // A new version: each position stands until the id is not found there.
      p.items = items
      p.mapped = Math.min(p.mapped, items.length)
      p.exact = false
    }
    return p
  }
}

/** The item at the position `id` was mapped to, when it is still there. */
function at(p: Positions, id: string): MemoryItem | undefined {
  const i = p.at.get(id)
  const it = i === undefined ? undefined : p.items[i]
  return it?.id === id ? it : undefined
}

function mapFrom(p: Positions, from: number): void {
  for (let i = from; i < p.items.length; i++) p.at.set(p.items[i]!.id, i)
  p.mapped = p.items.length
}
