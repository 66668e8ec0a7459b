/**
 * Which model answered each turn of a conversation since this process started, as the model choice (model-choice.ts)
 * decided it, for the turn heads and the diagnostics' counts: a profile's model, the user's pick, the conversation's,
 * or a fallback with its reason. Bounded per conversation and in conversations. It never decides a route and never writes the store (the turn ledger keeps each turn's model: lib/turn/ledger.ts).
 */
import type { ModelChoiceStatus } from '../shared/diagnostics.ts'
import type { TurnModel } from '../shared/models.ts'
import { detailOf, type Decision } from './model-step.ts'

/** Conversations whose per-turn models are kept, and turns per conversation (most recent). */
const SESSIONS_KEPT = 200
const TURNS_KEPT = 200

/** The per-turn models of the conversations this process saw, with the counts the diagnostics show. */
export class TurnModels {
  readonly totals = { profile: 0, user: 0, fallback: 0 }
  lastFallback: ModelChoiceStatus['lastFallback']
  readonly #bySession = new Map<string, Map<number, TurnModel>>()

  /** Turn number → the model that answered it, for one conversation. */
  of(sessionId: string): Record<number, TurnModel> {
    return Object.fromEntries(this.#bySession.get(sessionId) ?? [])
  }

  /** Note that turn `turn` of `sessionId` runs as decided in `d`; counted once per turn and source. */
  note(sessionId: string, turn: number, d: Decision): void {
    const turns = this.#turnsOf(sessionId)
    const known = turns.get(turn)
    const entry: TurnModel = {
      provider: d.route.provider,
      model: d.route.model,
      source: d.source,
      ...(d.wanted === undefined ? {} : { wanted: { provider: d.wanted.provider, model: d.wanted.model } }),
      ...(d.why === undefined ? {} : { why: d.why.why, reason: d.why.text, ...detailOf(d.why) }),
    }
    if (known !== undefined && JSON.stringify(known) === JSON.stringify(entry)) return
    // A request retried on the conversation's model after a refused call turns the turn's record into a fallback.
    if (known === undefined || known.source !== entry.source) this.#count(sessionId, d, entry)
    turns.set(turn, entry)
    if (turns.size > TURNS_KEPT) turns.delete(turns.keys().next().value!)
  }

  /** The turns of `sessionId`, made the most recently used conversation (the oldest one goes past the bound). */
  #turnsOf(sessionId: string): Map<number, TurnModel> {
    let turns = this.#bySession.get(sessionId)
    if (turns === undefined) {
      turns = new Map()
      if (this.#bySession.size >= SESSIONS_KEPT) this.#bySession.delete(this.#bySession.keys().next().value!)
    } else this.#bySession.delete(sessionId)
    this.#bySession.set(sessionId, turns)
    return turns
  }

  #count(sessionId: string, d: Decision, entry: TurnModel): void {
    if (d.source === 'fallback') {
      this.totals.fallback++
      this.lastFallback = {
        at: Date.now(),
        sessionId,
        wanted: entry.wanted!,
        used: { provider: entry.provider, model: entry.model },
        why: d.why?.why ?? 'refused',
        reason: d.why?.text ?? '',
        ...(d.why === undefined ? {} : detailOf(d.why)),
      }
    } else if (d.source === 'profile') this.totals.profile++
    else if (d.source === 'user') this.totals.user++
  }
}
