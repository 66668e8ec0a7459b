/**
 * Validation of a profile's model choice (state/model.ts `ModelChoice`): the shape and limits only — a provider and
 * model id of at most LIMITS.modelId characters on one line, an optional reasoning effort id, an optional temperature
 * from 0 to LIMITS.temperature. Whether the host offers that model is the host's to say (lib/prompt/model-choice.ts
 * asks it when the profile is saved over HTTP, and again before every turn); this module never asks it.
 */
import { LIMITS, type ModelChoice } from '../state/model.ts'
import { invalid, kind, onlyKeys, record, text } from './core.ts'

const ID_RULE = { limit: LIMITS.modelId, singleLine: true, required: true } as const

/** A profile's model choice, or null (a patch that removes it). */
export function modelChoice(v: unknown, field: string): ModelChoice | null {
  if (v === null) return null
  const o = record(v, field)
  onlyKeys(o, ['provider', 'model', 'reasoningEffort', 'temperature'], field)
  const out: ModelChoice = { provider: text(o.provider, `${field}.provider`, ID_RULE), model: text(o.model, `${field}.model`, ID_RULE) }
  if (o.reasoningEffort !== undefined) out.reasoningEffort = text(o.reasoningEffort, `${field}.reasoningEffort`, ID_RULE)
  if (o.temperature !== undefined) {
    const t = o.temperature
    if (typeof t !== 'number' || !Number.isFinite(t)) throw invalid(`${field}.temperature`, `must be a number (got ${kind(t)})`)
    if (t < 0 || t > LIMITS.temperature) throw invalid(`${field}.temperature`, `is ${t}, outside 0 to ${LIMITS.temperature}`, LIMITS.temperature)
    out.temperature = t
  }
  return out
}
