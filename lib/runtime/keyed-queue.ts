/**
 * Jobs run one after another per key, and concurrently across keys: a job starts when the last one asked for its key
 * has ended, whether that one resolved or rejected. It owns the order alone, never what a job does; a key's entry is
 * dropped once its last job has ended, so the map holds only keys with work under way.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>()

  /** Run `job` after every job asked before for `key`; answers what `job` answers (or throws what it throws). */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const next = (this.#tails.get(key) ?? Promise.resolve()).then(job, job)
    const tail = next.catch(() => undefined)
    this.#tails.set(key, tail)
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    })
    return next
  }
}
