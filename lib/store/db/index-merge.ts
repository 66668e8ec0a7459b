/**
 * Merging the memory index's segments after a bulk write, in the background. FTS5 keeps an index as segments and
 * merges them as rows are written, a little work per save; a write of thousands of rows at once (an import, a
 * restore, a rebuild, a profile saved whole) leaves segments of hundreds of pages each, and FTS5 later merges those
 * inside whichever ordinary save comes next: counted on 99,750 items, one save then wrote 3,533 pages where a save at
 * 100 items writes at most 137, and 150 saves after loading 3 × 9,900 items rewrote 1,649 index blocks against 1,159
 * after loading 3 × 1,000. Merged into one segment in the background first, both cost the saves' own ~300: later
 * saves merge only the small segments they make themselves, whatever the history.
 *
 * Owns the bookkeeping row (`memory_index_merge`: present while a merge is due, so a merge a process was killed in the
 * middle of is resumed by the next start) and one step's work. The store's background job
 * (lib/store/index-job.ts) decides when a step runs; the index marks a merge due (memory-index.ts).
 */
import type { StatementSync } from './sqlite.ts'
import { COLUMNS, rowFitting } from './row-read.ts'

/** The bookkeeping table: one row while a merge of the index is due. */
export const MERGE_TABLE = `
CREATE TABLE IF NOT EXISTS memory_index_merge (one INTEGER PRIMARY KEY CHECK (one = 1));
`

/**
 * Rows one write indexes from which a merge is due after it: a single save or a sync of a few items never is (its
 * own segment is small and FTS5's own merging copes), an import batch, a restore or a profile saved whole is.
 */
export const BULK_ROWS = 1_000

type Statement = (sql: string) => StatementSync

/** Mark a merge due (inside the caller's write transaction). */
export function markMergeDue(statement: Statement): void {
  statement('INSERT OR IGNORE INTO memory_index_merge (one) VALUES (1)').run()
}

/** Whether a merge is due (one row read). */
export function mergeDue(statement: Statement): boolean {
  return statement('SELECT 1 FROM memory_index_merge WHERE one = 1').get() !== undefined
}

function changes(statement: Statement): number {
  return rowFitting(COLUMNS.count, statement('SELECT total_changes() AS n').get())?.n ?? 0
}

/**
 * One step of the merge, inside the caller's write transaction: FTS5 merges at most about `pages` leaf pages of all
 * its segments towards one (its `merge` command with a negative count, which merges across levels as its
 * `optimize` does, a bounded part at a time). A step that finds nothing left to merge (FTS5 then writes fewer than
 * two rows: its documented sign) clears the mark; true while more is left.
 */
export function mergeStep(statement: Statement, pages: number): boolean {
  const before = changes(statement)
  statement("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?)").run(-Math.max(1, Math.floor(pages)))
  if (changes(statement) - before >= 2) return true
  statement('DELETE FROM memory_index_merge').run()
  return false
}
