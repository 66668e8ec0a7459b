/**
 * The search index's size for Diagnostics (`meta.recall.index`), read afresh at every ask: MemoryIndex.size reads one
 * row of the index (FTS5's own averages record) whatever the index holds, so no request and no pause in the writes
 * ever waits on a count of the tables (the items a re-terming has to do are counted once, when first asked: see
 * MemoryIndex.retermProgress). Owns that reading only; it never writes.
 */
import type { RecallStatus } from '../shared/diagnostics.ts'
import type { ProfileStore } from '../store/store.ts'

type IndexFigures = RecallStatus['index']

const EMPTY: IndexFigures = { items: 0, bytes: 0, rebuiltAt: null, mode: 'disk' }

/** The index's figures now (an empty index's when the store has no index yet or it cannot be read). */
export function indexFigures(store: Pick<ProfileStore, 'searchIndex'>): IndexFigures {
  return (
    store.searchIndex((index) => {
      const size = index.size()
      const reterm = index.retermProgress()
      return { ...size, rebuiltAt: index.rebuiltAt, mode: index.mode, ...(reterm === undefined ? {} : { reterm }) }
    }) ?? EMPTY
  )
}
