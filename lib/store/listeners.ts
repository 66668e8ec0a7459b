/**
 * The store's change subscribers: who hears each new state (or, for the data's health, each change of it), each one
 * isolated from the others (one that throws or rejects is logged and the rest still hear it). It never decides when a
 * change happened; the store tells it.
 */
import type { State } from '../state/model.ts'
import { errorText } from '../shared/errors.ts'

/** The subscribers of one store to one kind of change (`T`: what each is told). */
export class Listeners<T = State> {
  readonly #fns = new Set<(value: T) => void>()
  readonly #error: (message: string) => void

  constructor(options: { error(message: string): void }) {
    this.#error = (message) => options.error(message)
  }

  /** Subscribe `fn`; returns its unsubscribe function. */
  add(fn: (value: T) => void): () => void {
    // A wrapper per call, so subscribing one function twice gives two subscriptions that unsubscribe separately.
    const own = (v: T) => fn(v)
    this.#fns.add(own)
    return () => void this.#fns.delete(own)
  }

  /** Tell every subscriber about `value`. */
  notify(value: T): void {
    for (const fn of [...this.#fns]) {
      try {
        const r: unknown = fn(value)
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
