/**
 * How the host half words a caught failure for logs, diagnostics and refusals: its message, never its stack, and
 * never a throw of its own — a hostile object whose `message` or `toString` throws still yields text. Also the one
 * list of distinct warnings each installed part keeps for its diagnostics.
 */
import type { Log } from './log.ts'

/** The message of a caught value. */
export function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable error'
  }
}

/** Degradations a part reports: each one logged once, and the latest distinct ones kept for its diagnostics. */
export class DistinctWarnings {
  readonly #kept: string[] = []
  readonly #log: Pick<Log, 'warn'>
  readonly #limit: number

  constructor(log: Pick<Log, 'warn'>, limit = 20) {
    this.#log = log
    this.#limit = limit
  }

  warn(msg: string): void {
    if (this.#kept.includes(msg)) return
    if (this.#kept.push(msg) > this.#limit) this.#kept.shift()
    this.#log.warn(msg)
  }

  /** Run a host listener's work so that nothing escapes into the host: a throw becomes a warning. */
  guarded(what: string, fn: () => void): void {
    try {
      fn()
    } catch (error) {
      this.warn(`agent-profiles: ${what} failed: ${errorText(error)}`)
    }
  }

  list(): string[] {
    return [...this.#kept]
  }
}
