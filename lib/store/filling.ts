/**
 * The profiles a background import (import-batches.ts) is still filling, per store: a profile whose memory arrives in
 * batches grows at every batch, and background work that reads a whole memory (the compression) would be wasted on
 * one that is half there. It owns the marks; it never decides what waits for them.
 */
import type { ProfileStore } from './store.ts'

/** One store's marks: how many fills run per profile. */
interface Fills {
  running: Map<string, number>
}

/** Keyed by the store, so that two stores (two plugin loads, the specs' stores) never see each other's fills. */
const fills = new WeakMap<ProfileStore, Fills>()

function fillsOf(store: ProfileStore): Fills {
  let f = fills.get(store)
  if (f === undefined) {
    f = { running: new Map() }
    fills.set(store, f)
  }
  return f
}

/** Mark profile `id` of `store` as being filled; the function returned ends the mark (once). */
export function startFill(store: ProfileStore, id: string): () => void {
  const f = fillsOf(store)
  f.running.set(id, (f.running.get(id) ?? 0) + 1)
  let ended = false
  return () => {
    if (ended) return
    ended = true
    const left = (f.running.get(id) ?? 1) - 1
    if (left > 0) {
      f.running.set(id, left)
      return
    }
    f.running.delete(id)
  }
}

/** Whether an import is still filling profile `id` of `store`. */
export function isFilling(store: ProfileStore, id: string): boolean {
  return fills.get(store)?.running.has(id) === true
}
