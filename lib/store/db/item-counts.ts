/**
 * How many memory items each owner's rows hold, by kind, kept in the table `memory_counts` by triggers on
 * `memory_items`: a head's tally, the state's count of memories and a render's "left out" count read one row, where a
 * count walked every index entry of the profile (years of items, at every start, for every profile). The triggers run
 * inside whatever statement writes a row (this version's writes, a restore, a salvage, an older version still
 * running), so the counts change in the same transaction as the rows and never drift from them.
 *
 * The counts are the item columns' (item-kinds.ts `kind`), so they are right once every row's kind is filled: a
 * database that had rows before this table is counted once, by the background job that ends the kinds' fill
 * (item-kinds.ts `finishKinds`, on the store's worker thread), which writes `counts` = 'done' in meta in the same
 * transaction; until then the readers count the rows themselves, as before. It owns the table, its triggers and the
 * recount; it never reads an item.
 */
import type { DatabaseSync } from './sqlite.ts'
import { KIND } from './kind-bits.ts'

/** Meta key: the counts are right (every row counted), so readers may use them. */
export const COUNTS_DONE = 'counts'

/** What one row adds to its owner's counts (`k` its kind, NULL until filled: counted as memory until it is). */
const parts = (k: string) => {
  const kind = `coalesce(${k}, 0)`
  return {
    archived: `((${kind} & ${KIND.archived}) > 0)`,
    pending: `((${kind} & ${KIND.pending}) > 0)`,
    memory: `((${kind} & ${KIND.archived | KIND.pending}) = 0)`,
  }
}

/** Add (`sign` '+') or take away ('-') the row `r` (NEW or OLD) from its owner's counts. */
function change(r: 'NEW' | 'OLD', sign: '+' | '-'): string {
  const p = parts(`${r}.kind`)
  // Not INSERT OR IGNORE: a trigger's statements take the conflict policy of the statement that fired them (the
  // store's upsert of an item), which would turn the ignore into a failure.
  const add =
    sign === '+'
      ? `INSERT INTO memory_counts SELECT ${r}.profile_id, 0, 0, 0, 0
          WHERE NOT EXISTS (SELECT 1 FROM memory_counts WHERE profile_id = ${r}.profile_id);`
      : ''
  return `${add} UPDATE memory_counts SET items = items ${sign} 1, archived = archived ${sign} ${p.archived},
    pending = pending ${sign} ${p.pending}, memory = memory ${sign} ${p.memory} WHERE profile_id = ${r}.profile_id;`
}

/**
 * The table and the triggers that keep it: a new row counts, a deleted one no longer does (an owner with none left
 * has no row), and a row whose kind or owner changes moves between the counts (the kinds' own trigger sets `kind`
 * after an insert by code that did not: that update moves it too).
 */
export const COUNTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS memory_counts (profile_id TEXT PRIMARY KEY, items INTEGER NOT NULL, archived INTEGER NOT NULL,
  pending INTEGER NOT NULL, memory INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS memory_counts_insert AFTER INSERT ON memory_items BEGIN ${change('NEW', '+')} END;
CREATE TRIGGER IF NOT EXISTS memory_counts_delete AFTER DELETE ON memory_items BEGIN ${change('OLD', '-')}
  DELETE FROM memory_counts WHERE profile_id = OLD.profile_id AND items <= 0; END;
CREATE TRIGGER IF NOT EXISTS memory_counts_update AFTER UPDATE OF kind, profile_id ON memory_items
  WHEN OLD.kind IS NOT NEW.kind OR OLD.profile_id IS NOT NEW.profile_id
  BEGIN ${change('OLD', '-')} DELETE FROM memory_counts WHERE profile_id = OLD.profile_id AND items <= 0;
    ${change('NEW', '+')} END;
`

/**
 * Count every owner's rows again (inside the caller's transaction): once every row's kind is filled, and after a
 * restore replaced the rows (the counts before it may not have been done). Reads every index entry once: the store
 * runs it on its worker thread, or where every row is read anyway.
 */
export function recountItems(db: DatabaseSync): void {
  const p = parts('kind')
  db.exec(`DELETE FROM memory_counts;
    INSERT INTO memory_counts SELECT profile_id, count(*), sum(${p.archived}), sum(${p.pending}), sum(${p.memory})
      FROM memory_items GROUP BY profile_id;`)
}

/** The statement of one owner's counts (parameter: the owner); no row: the owner has no items. */
export const COUNTS_OF = 'SELECT items, archived, pending, memory FROM memory_counts WHERE profile_id = ?'
