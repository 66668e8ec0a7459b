/**
 * The counts a ranking needs of the whole memory index (lib/memory/rank.ts): how many items it holds, their terms'
 * token total, and in how many items each asked term occurs, kept in this process between writes and brought along
 * by what each write added and removed. Recounting after every write (reading FTS5's vocabulary again for every term
 * a question asks) was a fifth of the first recall after a save. Owns only the numbers; memory-index.ts reads the
 * index and tells it what changed. It never reads or writes the database.
 *
 * A write's changes are staged and counted only when the write records its revision (`settle`): a batch that rolls
 * back leaves the counts as they were. Counts taken at a revision other than the one a write starts from (another
 * process wrote between) are dropped by the index and read afresh.
 */
import { TERM_SEPARATOR, termCode } from '../../shared/search-terms.ts'

/** Terms an item holds on average when the index cannot say (an empty index): about one short fact's. */
const MEAN_TERMS = 12

/** Terms whose counts are kept at most; past it the kept ones are forgotten and read again when asked. */
const KEPT_TERMS = 20_000

/** What one write did to the terms column: an item's column added (+1) or removed (-1). */
interface Delta {
  column: string
  sign: 1 | -1
}

/** The codes of a terms column as `termsColumn` writes it (`|ab|cd…`), with repeats. */
function codesOf(column: string): string[] {
  return column.split(TERM_SEPARATOR).filter((c) => c.length > 0)
}

/** The whole index's counts as of one revision of the database. */
export class TermCounts {
  /** The revision these counts stand for (the index's own, as read with them). */
  at: number
  #rows: number
  /** Tokens of the terms column over every row: a column of n codes is 3n characters, 3n - 2 trigrams. */
  #tokens: number
  /** Per asked term, the items holding it; and each code's terms (two terms may share a code). */
  readonly df = new Map<string, number>()
  readonly #termsOfCode = new Map<string, string[]>()
  #staged: Delta[] = []

  constructor(rows: number, tokens: number, at: number) {
    this.#rows = rows
    this.#tokens = tokens
    this.at = at
  }

  /** How many items the index holds. */
  get docs(): number {
    return this.#rows
  }

  /** The mean number of terms of an item. */
  get meanTerms(): number {
    const mean = this.#rows > 0 ? (this.#tokens + 2 * this.#rows) / 3 / this.#rows : MEAN_TERMS
    return mean > 0 ? mean : MEAN_TERMS
  }

  /** Of `terms`, those whose counts are not kept (distinct), forgetting every kept one when too many are. */
  missing(terms: readonly string[]): string[] {
    if (this.df.size > KEPT_TERMS) {
      this.df.clear()
      this.#termsOfCode.clear()
    }
    return [...new Set(terms)].filter((t) => !this.df.has(t))
  }

  /** Keep `term`'s count as the index told it. */
  learn(term: string, items: number): void {
    this.df.set(term, items)
    const code = termCode(term)
    const terms = this.#termsOfCode.get(code)
    if (terms === undefined) this.#termsOfCode.set(code, [term])
    else if (!terms.includes(term)) terms.push(term)
  }

  /** An item with this terms column was written (counted when the write settles). */
  added(column: string): void {
    this.#staged.push({ column, sign: 1 })
  }

  /** An item with this terms column was removed (counted when the write settles). */
  removed(column: string): void {
    this.#staged.push({ column, sign: -1 })
  }

  /** A write begins: what an earlier write staged and never settled was rolled back. */
  begin(): void {
    this.#staged = []
  }

  /** The write that staged the changes now stands at `revision`: count them. */
  settle(revision: number): void {
    for (const { column, sign } of this.#staged) {
      const codes = codesOf(column)
      this.#rows += sign
      if (codes.length > 0) this.#tokens += sign * (3 * codes.length - 2)
      for (const code of new Set(codes)) {
        for (const term of this.#termsOfCode.get(code) ?? []) this.df.set(term, Math.max(0, this.df.get(term)! + sign))
      }
    }
    this.#staged = []
    this.at = revision
  }
}
