/**
 * Creating the database of a fresh home early, off the event loop: the plugin's store starts the creation on a worker
 * thread (db/store-thread.ts) as it opens, so that no request waits on it (creating the schema took 100–400 ms on the
 * loop, in the first save's request). The first save waits for it, then writes into what it made; when it failed (a
 * directory that cannot be written), the first save creates the database itself as before, and says why it cannot.
 * It owns the start and the wait, never the schema (db/open.ts) nor the save.
 */
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'
import { runInThread } from './db/store-thread.ts'

/** The creation of one store's database, started when it is made. */
export class EarlyCreate {
  #creating: Promise<void> | undefined
  #busy = true

  /** Start creating database `file` on a worker thread; a failure is logged, never thrown. */
  constructor(file: string, log: Log) {
    this.#creating = runInThread({ kind: 'create', file }).catch((e: unknown) => {
      log.warn(`agent-profiles: store: the database was not created ahead of the first save: ${errorText(e)}`)
    })
    void this.#creating.finally(() => {
      this.#busy = false
    })
  }

  /** The worker is still creating it: the file may be there half made, and is not to be opened yet. */
  get busy(): boolean {
    return this.#busy
  }

  /** Wait for the creation when it has not been waited for yet: true then (made or failed), false after. */
  async wait(): Promise<boolean> {
    const creating = this.#creating
    if (creating === undefined) return false
    await creating
    this.#creating = undefined
    return true
  }
}
