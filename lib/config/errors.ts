/** The config room's error: a row config refused, with what the page needs to word it. No behaviour but its fields. */
import type { ConfigRefusal } from '../shared/reasons.ts'

/**
 * Thrown for a bad row config: the message (for the log) names the field and what it accepts, and `refusal` says the
 * same as data, for the page to word.
 */
export class ConfigError extends Error {
  readonly refusal: ConfigRefusal
  constructor(message: string, refusal: ConfigRefusal) {
    super(message)
    this.refusal = refusal
  }
}
