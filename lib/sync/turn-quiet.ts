/**
 * Whether a conversation's turn is under way in this dsh, so that the background sync runs between turns. A sync's
 * git processes write the clone (objects, refs, an index file) while the store's commits — a turn's record, a fact
 * it saves — wait synchronously on the same disk for their fsync; a run that overlaps a turn's prompt assembly makes
 * the turn wait. It follows the host's `agent/status` events (`running` until `idle`; a disposed agent is idle), and
 * a wait is bounded: a turn that runs for minutes delays a sync by at most the bound, never stops it. It only reads
 * events; it never throws into the host.
 */
import type { Context } from '@deepseek-ai/cordis'

/** The longest a sync waits for the turns under way to end, in ms. */
export const QUIET_WAIT_MS = 20_000

/** The turns running in this process, and the waits for them to end. */
export class TurnQuiet {
  readonly #running = new Set<string>()
  readonly #waiters = new Set<() => void>()

  /** Follow the turns of `ctx`'s agents until `ctx` is disposed (then nothing is waited for). */
  watch(ctx: Context): void {
    ctx.on('agent/status', ({ agent, status }) => {
      if (status === 'running') this.#running.add(agent.id)
      else this.#ended(agent.id)
    })
    ctx.on('agent/disposed', ({ agent }) => this.#ended(agent.id))
    ctx.effect(() => () => {
      this.#running.clear()
      this.#wake()
    })
  }

  /** Resolves once no turn runs, after `maxMs` whatever runs, or when `signal` aborts (the sync stops). */
  async settled(maxMs = QUIET_WAIT_MS, signal?: AbortSignal): Promise<void> {
    if (this.#running.size === 0 || signal?.aborted === true) return
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        this.#waiters.delete(done)
        resolve()
      }
      const timer = setTimeout(done, maxMs)
      timer.unref()
      signal?.addEventListener('abort', done)
      this.#waiters.add(done)
    })
  }

  #ended(id: string): void {
    if (!this.#running.delete(id) || this.#running.size > 0) return
    this.#wake()
  }

  #wake(): void {
    for (const done of [...this.#waiters]) done()
  }
}
