/**
 * Long work on the host's event loop (a pick, a plan or the start of a run over every conversation of an export:
 * tens of thousands of conversations parsed and cut, seconds of work) done a slice at a time, the loop free between
 * two slices: every page's state request and every conversation's turn waits while the loop is held. A slice is
 * bounded by the characters handled (a conversation's JSON parsed, a request built), not by a clock, so the same
 * work always cuts into the same slices: the work one character costs varies little, and a slice of this many is a
 * few milliseconds on an idle machine, far under what a page may wait on a loaded one. Counting is synchronous and
 * only the turn between two slices is awaited: an await for each conversation or call (each a trip through the
 * microtask queue) made a plan of a whole export take a quarter longer, and a word pick half again as long.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'

/** Characters handled in one slice at most (a single conversation larger than that is a slice alone). */
export const SLICE_CHARS = 200_000

/** One piece of long work, counted in characters, handing the loop back between two slices. */
export class Slices {
  #spent = 0

  /** Whether `chars` more characters of work fit in the slice under way (always, in a slice not begun). */
  fits(chars: number): boolean {
    return this.#spent === 0 || this.#spent + chars <= SLICE_CHARS
  }

  /** Count `chars` characters of work done in the slice under way. */
  spend(chars: number): void {
    this.#spent += chars
  }

  /** Hand the loop back (its waiting timers and requests run), and begin the next slice. */
  async turn(): Promise<void> {
    this.#spent = 0
    await nextTurn()
  }
}
