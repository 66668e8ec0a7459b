/**
 * The one typed reader of a node:sqlite row: a row comes back as `Record<string, SQLOutputValue>` and is read into
 * the typed row of rows.ts by the column kinds its reader relies on. SQLite keeps whatever a column was given (a
 * column declared INTEGER still holds the text `abc` another program wrote), so a cast would let such a value flow on
 * as a number; here it is refused with a StoreError naming the table and the column. It never runs a statement.
 */
import type { SQLOutputValue } from './sqlite.ts'
import { StoreError } from '../../validate/core.ts'

/** The kind of value a reader relies on in a column: text, or an integer (node:sqlite reads one as a number). */
type ColumnKind = 'text' | 'int'

/** The typed row the column kinds describe. */
type RowOf<C extends Record<string, ColumnKind>> = { [K in keyof C]: C[K] extends 'text' ? string : number }

/** The columns of each row kind, as the statements select them. */
export const COLUMNS = {
  profile: { id: 'text', rev: 'int', data: 'text' },
  profileRev: { id: 'text', rev: 'int' },
  item: { profile_id: 'text', id: 'text', pos: 'int', data: 'text' },
  itemAt: { id: 'text', pos: 'int', data: 'text' },
  itemData: { id: 'text', data: 'text' },
  turnProfile: { turn: 'int', profile_id: 'text' },
  turnCount: { turn: 'int', n: 'int' },
  turnSession: { session_id: 'text' },
  key: { id: 'text' },
  list: { list: 'text' },
  listRev: { list: 'text', rev: 'int' },
  session: { id: 'text', data: 'text' },
  undo: { profile_id: 'text', rev: 'int', at: 'int', memory: 'text' },
  undoRev: { profile_id: 'text', rev: 'int' },
} as const satisfies Record<string, Record<string, ColumnKind>>

function fits(kind: ColumnKind, value: SQLOutputValue | undefined): boolean {
  return kind === 'text' ? typeof value === 'string' : typeof value === 'number' && Number.isSafeInteger(value)
}

/** One row of `table` read by `columns`; a column of another kind is refused, naming the table and the column. */
export function rowOf<C extends Record<string, ColumnKind>>(
  table: string,
  columns: C,
  row: Record<string, SQLOutputValue> | undefined,
): RowOf<C> {
  if (row === undefined) throw new StoreError('io', `a row of the database's ${table} went while it was read`, table)
  for (const [name, kind] of Object.entries(columns))
    if (!fits(kind, row[name]))
      throw new StoreError(
        'invalid',
        `the database's ${table}.${name} holds ${typeof row[name]} where ${kind === 'text' ? 'text' : 'an integer'} belongs`,
        `${table}.${name}`,
      )
  return row as RowOf<C>
}

/** Every row of `table` read by `columns` (see {@link rowOf}). */
export function rowsOf<C extends Record<string, ColumnKind>>(
  table: string,
  columns: C,
  rows: Record<string, SQLOutputValue>[],
): RowOf<C>[] {
  return rows.map((r) => rowOf(table, columns, r))
}
