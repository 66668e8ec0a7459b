/**
 * A reply's type carried by a table for the typecheck alone: the wire table's routes (wire-table.ts) and the
 * commands' schemas (schema-commands.ts) each name what they answer with `reply<R>()`, so a reply type sits beside
 * the schema of what is asked and cannot be left out of a separate map. No value of it exists at run time.
 */

/** A reply's type, carried for the typecheck alone. */
export interface Replies<R> {
  readonly of?: R
}

/** The reply type `R` of a table entry. */
export const reply = <R>(): Replies<R> => ({})
