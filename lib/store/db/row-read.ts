/**
 * The one typed reader of a node:sqlite row, and the one place a row kind's columns are written: each kind's column
 * list (COLUMNS) is both what the reader checks and, through {@link Row}, the TypeScript type of the row it hands on,
 * so a column added to a kind is in its type at once. A row comes back from node:sqlite as `Record<string,
 * SQLOutputValue>`; SQLite keeps whatever a column was given (a column declared INTEGER still holds the text `abc`
 * another program wrote), so a cast would let such a value flow on as a number. Here it is refused with a StoreError
 * naming the table and the column, or, for the rows the state is made of, the row is set aside alone (set-aside.ts)
 * and the others read. It never runs a statement.
 */
import type { SQLOutputValue } from './sqlite.ts'
import type { SetAside } from './set-aside.ts'
import type * as z from 'zod'
import { parse } from '../../validate/core.ts'
import { StoreError } from '../../shared/errors.ts'

/**
 * The kind of value a reader relies on in a column: text, an integer (node:sqlite reads one as a number), a finite
 * number (a rank's score), text or NULL, bytes (a blob), or any value (a column whose readers look at the value
 * themselves, as meta's).
 */
type ColumnKind = 'text' | 'int' | 'real' | 'text?' | 'bytes' | 'value'

/** The TypeScript type of a value of kind `K`. */
type ValueOf<K extends ColumnKind> = K extends 'text'
  ? string
  : K extends 'int' | 'real'
    ? number
    : K extends 'text?'
      ? string | null
      : K extends 'bytes'
        ? Uint8Array
        : SQLOutputValue

/** The typed row the column kinds describe. */
type RowOf<C extends Record<string, ColumnKind>> = { [K in keyof C]: ValueOf<C[K]> }

/** The columns of each row kind, as the statements select them. */
export const COLUMNS = {
  profile: { id: 'text', rev: 'int', data: 'text' },
  profileRev: { id: 'text', rev: 'int' },
  item: { profile_id: 'text', id: 'text', pos: 'int', data: 'text' },
  itemAt: { id: 'text', pos: 'int', data: 'text' },
  itemData: { id: 'text', data: 'text' },
  data: { data: 'text' },
  entrySize: { id: 'text', size: 'int' },
  owner: { profile_id: 'text' },
  itemKey: { profile_id: 'text', id: 'text' },
  tally: { items: 'int', archived: 'int', pending: 'int' },
  counts: { items: 'int', archived: 'int', pending: 'int', memory: 'int' },
  turnProfile: { turn: 'int', profile_id: 'text' },
  turnCount: { turn: 'int', n: 'int' },
  turnMemories: { memories: 'text?' },
  turnSession: { session_id: 'text' },
  key: { id: 'text' },
  count: { n: 'int' },
  pos: { pos: 'int' },
  list: { list: 'text' },
  listRev: { list: 'text', rev: 'int' },
  meta: { value: 'value' },
  column: { name: 'text' },
  dataVersion: { data_version: 'int' },
  session: { id: 'text', data: 'text' },
  undo: { profile_id: 'text', rev: 'int', at: 'int', memory: 'text' },
  undoRev: { profile_id: 'text', rev: 'int' },
  ownedData: { profile_id: 'text', data: 'text' },
  /** A search index hit: its owner, its item, its terms column (as `termsColumn` wrote it) and its relevance. */
  hit: { owner: 'text', item: 'text', terms: 'text', score: 'real' },
  hitItem: { item: 'text' },
  vocab: { term: 'text', doc: 'int' },
  indexRev: { rev: 'int' },
  ftsBlock: { block: 'bytes' },
  applicationId: { application_id: 'int' },
  doc: { doc: 'int' },
  spanRows: { n: 'int', doc: 'int' },
  docKey: { owner: 'text', item: 'text', doc: 'int' },
  termsMark: { version: 'int', owner: 'text', item: 'text', done: 'int' },
  terms: { terms: 'text' },
  retired: { at: 'int', data: 'text' },
  table: { name: 'text', sql: 'text?' },
  quickCheck: { quick_check: 'text' },
  backupProfile: { id: 'text', name: 'value', items: 'int' },
} as const satisfies Record<string, Record<string, ColumnKind>>

/** A row of kind `K` as its reader hands it on: derived from the kind's columns, never written beside them. */
export type Row<K extends keyof typeof COLUMNS> = RowOf<(typeof COLUMNS)[K]>

/** A row as node:sqlite reads it. */
type RawRow = Record<string, SQLOutputValue>

function fits(kind: ColumnKind, value: SQLOutputValue | undefined): boolean {
  switch (kind) {
    case 'text':
      return typeof value === 'string'
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value)
    case 'real':
      return typeof value === 'number' && Number.isFinite(value)
    case 'text?':
      return typeof value === 'string' || value === null
    case 'bytes':
      return value instanceof Uint8Array
    case 'value':
      return value !== undefined
  }
}

const KIND_WORDS: Record<ColumnKind, string> = {
  text: 'text',
  int: 'an integer',
  real: 'a number',
  'text?': 'text or null',
  bytes: 'bytes',
  value: 'a value',
}

/** The columns' check: each value is of its column's kind, so the row is the typed row they describe. */
function isRowOf<C extends Record<string, ColumnKind>>(columns: C, row: RawRow): row is RawRow & RowOf<C> {
  return Object.entries(columns).every(([name, kind]) => fits(kind, row[name]))
}

/**
 * The refusal of a row whose column holds a value of another kind, naming the table and the column (and the row's
 * `key` when given, as a refusal of the row's data names it: `profiles.coder.rev`).
 */
function kindRefusal(table: string, columns: Record<string, ColumnKind>, row: RawRow, key?: string): StoreError {
  const [name, kind] = Object.entries(columns).find(([n, k]) => !fits(k, row[n]))!
  const at = key === undefined ? `${table}.${name}` : `${table}.${key}.${name}`
  const held = row[name] === null ? 'null' : typeof row[name]
  return new StoreError('invalid', `the database's ${at} holds ${held} where ${KIND_WORDS[kind]} belongs`, at)
}

/** One row of `table` read by `columns`; a column of another kind is refused, naming the table and the column. */
export function rowOf<C extends Record<string, ColumnKind>>(
  table: string,
  columns: C,
  row: RawRow | undefined,
): RowOf<C> {
  if (row === undefined) throw new StoreError('io', `a row of the database's ${table} went while it was read`, table)
  if (isRowOf(columns, row)) return row
  throw kindRefusal(table, columns, row)
}

/**
 * Each row of `columns`' kinds, the others left out: for rows a reader may pass over, as the search index rebuilt
 * from the rows does (their load sets such a row aside by itself, and the index only serves the rows that read).
 */
export function* rowsFitting<C extends Record<string, ColumnKind>>(
  columns: C,
  rows: Iterable<RawRow>,
): Generator<RowOf<C>> {
  for (const raw of rows) if (isRowOf(columns, raw)) yield raw
}

/** One row of `columns`' kinds, or undefined when there is none or it holds another kind (see {@link rowsFitting}). */
export function rowFitting<C extends Record<string, ColumnKind>>(
  columns: C,
  row: RawRow | undefined,
): RowOf<C> | undefined {
  return row !== undefined && isRowOf(columns, row) ? row : undefined
}

/** Every row of `table` read by `columns` (see {@link rowOf}); one of another kind refuses the read. */
export function rowsOf<C extends Record<string, ColumnKind>>(table: string, columns: C, rows: RawRow[]): RowOf<C>[] {
  return rows.map((r) => rowOf(table, columns, r))
}

/** The key a row whose table is keyed by `id` is set aside by (profiles, sessions). */
export const byId = (row: RawRow): string => String(row.id)

/** The key an undo copy's row is set aside by: its profile's id. */
export const byProfile = (row: RawRow): string => String(row.profile_id)

/**
 * Each row of `table` read by `columns`, as the state's rows are read: one holding a value of another kind is set
 * aside alone under its key (`keyOf`, the key its table's rows are set aside by) and left out, and every other row
 * reads. Lazy, so that a statement's rows are never all held at once.
 */
export function* rowsSetAside<C extends Record<string, ColumnKind>>(
  table: string,
  columns: C,
  rows: Iterable<RawRow>,
  aside: SetAside,
  keyOf: (row: RawRow) => string,
): Generator<RowOf<C>> {
  for (const raw of rows) {
    // Only the kinds are looked at here: a row set aside for its data stays so until the read of its data says.
    if (isRowOf(columns, raw)) yield raw
    else {
      const key = keyOf(raw)
      aside.refused(table, key, kindRefusal(table, columns, raw, key))
    }
  }
}

/**
 * A JSON column read by the schema that describes it: text that is not JSON, or JSON the schema refuses, is a
 * StoreError naming where it sits (`at`: the table, the row's key and the column), never a value of another type
 * flowing on as this one.
 */
export function jsonColumn<S extends z.ZodType>(schema: S, text: string, at: string): z.output<S> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new StoreError('invalid', `the database's ${at} is not JSON`, at)
  }
  return parse(schema, value, at)
}
