/**
 * The store's change subscribers: who hears each new state, each one isolated from the others (one that throws or
 * rejects is logged and the rest still hear it). It never decides when a change happened; the store tells it.
 */
import type { State } from '../state/model.ts'
import { errorText } from '../shared/errors.ts'

/** The subscribers of one store. */
export class Listeners {
  readonly #fns = new Set<(state: State) => void>()
  readonly #error: (message: string) => void

  constructor(options: { error(message: string): void }) {
    this.#error = (message) => options.error(message)
  }

  /** Subscribe `fn`; returns its unsubscribe function. */
  add(fn: (state: State) => void): () => void {
    // A wrapper per call, so subscribing one function twice gives two subscriptions that unsubscribe separately.
    const own = (s: State) => fn(s)
    this.#fns.add(own)
    return () => void this.#fns.delete(own)
  }

  /** Tell every subscriber about `state`. */
  notify(state: State): void {
    for (const fn of [...this.#fns]) {
      try {
        const r: unknown = fn(state)
        if (r instanceof Promise)
          r.catch((e: unknown) => this.#error(`agent-profiles: store: change subscriber failed: ${errorText(e)}`))
      } catch (e) {
        this.#error(`agent-profiles: store: change subscriber failed: ${errorText(e)}`)
      }
    }
  }

  /** Drop every subscriber (the store closed). */
  clear(): void {
    this.#fns.clear()
  }
}
