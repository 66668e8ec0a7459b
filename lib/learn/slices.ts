/**
 * Long work on the host's event loop (a pick, a plan or the start of a run over every conversation of an export:
 * tens of thousands of conversations parsed and cut, seconds of work) done a slice at a time, the loop free between
 * two slices: every page's state request and every conversation's turn waits while the loop is held. A slice is
 * bounded by the characters handled (a conversation's JSON parsed, a request built), not by a clock, so the same
 * work always cuts into the same slices: the work one character costs varies little, and a slice of this many is a
 * few milliseconds on an idle machine, far under what a page may wait on a loaded one.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'

/** Characters handled in one slice at most (a single conversation larger than that is a slice alone). */
export const SLICE_CHARS = 200_000

/** One piece of long work, counted in characters, handing the loop back whenever a slice is spent. */
export class Slices {
  #spent = 0

  /**
   * Count `chars` characters of work (just done or about to be); when they would take the slice past its bound, the
   * loop turns first and they open the next slice.
   */
  async spend(chars: number): Promise<void> {
    if (this.#spent > 0 && this.#spent + chars > SLICE_CHARS) {
      this.#spent = 0
      await nextTurn()
    }
    this.#spent += chars
  }
}
