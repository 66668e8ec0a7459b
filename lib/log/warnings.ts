/**
 * The degradations each installed part reports (lib/shared/reasons.ts `WARNINGS`), as the host's log says them: the
 * one English sentence of every warning key, built from the warning's values, and the list of distinct warnings a
 * part keeps for its diagnostics. The page never reads this English: it words the same keys in the user's language.
 * It never shows anything and never throws into the host.
 */
import { errorText } from '../shared/errors.ts'
import type { Log } from '../shared/log.ts'
import type { Warning, WarningKey } from '../shared/reasons.ts'

/** The warning of kind `K`. */
type Of<K extends WarningKey> = Extract<Warning, { key: K }>

/** The log's sentence of each warning key (without the prefix and the detail, which every line adds the same way). */
const ENGLISH: { [K in WarningKey]: (w: Of<K>) => string } = {
  'persona-failed': (w) => `${w.params.scope} persona failed, injected nothing`,
  'memory-failed': (w) => `${w.params.scope} memory failed, injected nothing`,
  'no-system-prompt': () => 'the systemPrompt service is missing; profiles are not injected',
  'no-scoped-prompt': () =>
    'systemPrompt is not reachable from an agent scope; those conversations use the global default',
  'sections-failed': () => "could not register a conversation's sections, it uses the global default",
  'no-agents': () => 'the agents service is missing; every request uses the global default',
  'listener-failed': (w) => `${w.params.event} failed`,
  'recall-failed': () => 'recall failed, this turn recalls nothing',
  'model-fallback': (w) =>
    `the profile's model ${w.params.wanted} is not available (${w.params.why}); conversation ${w.params.session} answers on ${w.params.used}`,
  'composer-refused': (w) => `could not show ${w.params.model} in the composer of ${w.params.session}`,
  'choose-failed': () => "choosing the model failed, the host's model answers",
  'show-failed': () => "showing the profile's model failed",
  'composer-failed': () => 'showing the model in the composer failed',
  'apply-failed': () => "applying the model failed, the host's model answers",
  'fallback-failed': () => "falling back after a refused call failed, the host's model answers",
  'tools-off': (w) => `tool profiles are off: the host has no "${w.params.service}" service`,
  'tools-failed': () => "could not apply a tool profile, that conversation keeps the host's tools",
  'guard-failed': () => 'the tool guard failed, the call was let through',
  'measure-failed': (w) => `could not measure the tools of preset "${w.params.preset}"`,
}

/** A warning as its log line: `agent-profiles: <sentence>`, then the caught error's text after a colon. */
export function warningLine(w: Warning): string {
  const sentence = (ENGLISH[w.key] as (w: Warning) => string)(w)
  return `agent-profiles: ${sentence}${w.detail === undefined || w.detail === '' ? '' : `: ${w.detail}`}`
}

/** Degradations a part reports: each one logged once, and the latest distinct ones kept for its diagnostics. */
export class DistinctWarnings {
  /** The kept warnings by their identity (key, values and detail), oldest first. */
  readonly #kept = new Map<string, Warning>()
  readonly #log: Pick<Log, 'warn'>
  readonly #limit: number

  constructor(log: Pick<Log, 'warn'>, limit = 20) {
    this.#log = log
    this.#limit = limit
  }

  warn(w: Warning): void {
    const id = JSON.stringify([w.key, w.params ?? {}, w.detail ?? ''])
    if (this.#kept.has(id)) return
    this.#kept.set(id, w)
    if (this.#kept.size > this.#limit) this.#kept.delete(this.#kept.keys().next().value!)
    this.#log.warn(warningLine(w))
  }

  /** Run a host listener's work so that nothing escapes into the host: a throw becomes a warning. */
  guarded(event: string, fn: () => void): void {
    try {
      fn()
    } catch (error) {
      this.warn({ key: 'listener-failed', params: { event }, detail: errorText(error) })
    }
  }

  list(): Warning[] {
    return [...this.#kept.values()]
  }
}
