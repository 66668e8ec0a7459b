/**
 * Items of a long memory for the store specs that meet one (store-archive, store-core-index): the i-th of profile p,
 * every 500th pinned and a third archived, saved in time order. It asserts nothing.
 */
import type { MemoryItem } from '../../lib/state/model.ts'

/** The i-th item of profile p (every 500th pinned, a third archived). */
export function longItem(p: number, i: number): MemoryItem {
  return {
    id: `m${p}-${i}`,
    text: `第${i}条 profile ${p} fact about topic${i % 997}`,
    source: 'auto',
    at: 1_700_000_000_000 + i,
    ...(i % 500 === 0 ? { pinned: true as const } : {}),
    ...(i % 3 === 0 && i > 50 ? { archived: true as const } : {}),
  }
}
