/**
 * Whether a conversation's turn is under way in this dsh, so that the background sync runs between turns. A sync's
 * git processes write the clone (objects, refs, an index file) while the store's commits — a turn's record, a fact
 * it saves — wait synchronously on the same disk for their fsync; a run that overlaps a turn's prompt assembly makes
 * the turn wait. It follows the host's `agent/status` events (`running` until `idle`; a disposed agent is idle), and
 * a wait is bounded from the moment the turns began, not from each wait: a sync waits at every step, and turns that
 * run for minutes delay it by the bound in all, never stop it. A git process already running when turns begin (a
 * fetch under way) is stopped until they end, for a bounded time in all (git-pause.ts). It only reads events and
 * signals the sync's own git processes; it never throws into the host.
 */
import type { Context } from '@deepseek-ai/cordis'
import { pauseSyncGit } from './git-host.ts'

/** The longest a sync waits for the turns under way to end, in ms. */
export const QUIET_WAIT_MS = 20_000

/** The turns running in this process, and the waits for them to end. */
export class TurnQuiet {
  /** Told when turns begin (`true`) and when they have all ended: stops the sync's git under way meanwhile. */
  readonly #pause: (pause: boolean) => void
  readonly #running = new Set<string>()
  readonly #waiters = new Set<() => void>()
  /** When the turns under way began (the first of them; none running: unset). */
  #since = 0

  constructor(pause: (pause: boolean) => void = pauseSyncGit) {
    this.#pause = pause
  }

  /**
   * Follow the turns of `ctx`'s agents until `ctx` is disposed (then nothing is waited for, and the git stopped for
   * the turns under way goes on).
   */
  watch(ctx: Context): void {
    ctx.on('agent/status', ({ agent, status }) => {
      if (status !== 'running') this.#ended(agent.id)
      else if (!this.#running.has(agent.id)) {
        this.#running.add(agent.id)
        if (this.#running.size > 1) return
        this.#since = Date.now()
        this.#pause(true)
      }
    })
    ctx.on('agent/disposed', ({ agent }) => this.#ended(agent.id))
    ctx.effect(() => () => {
      this.#running.clear()
      this.#pause(false)
      this.#wake()
    })
  }

  /**
   * Resolves once no turn runs, once the turns under way began `maxMs` ago whatever runs, or when `signal` aborts (the
   * sync stops).
   */
  async settled(maxMs = QUIET_WAIT_MS, signal?: AbortSignal): Promise<void> {
    const left = this.#since + maxMs - Date.now()
    if (this.#running.size === 0 || left <= 0 || signal?.aborted === true) return
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        this.#waiters.delete(done)
        resolve()
      }
      const timer = setTimeout(done, left)
      timer.unref()
      signal?.addEventListener('abort', done)
      this.#waiters.add(done)
    })
  }

  #ended(id: string): void {
    if (!this.#running.delete(id) || this.#running.size > 0) return
    this.#pause(false)
    this.#wake()
  }

  #wake(): void {
    for (const done of [...this.#waiters]) done()
  }
}
