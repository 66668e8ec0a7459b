/**
 * Validation of the Character Card extras an imported profile keeps (state/model.ts `CardExtras`) by their schema
 * (state/schema-state.ts `CardExtrasSchema`): shape and size only. The content is the card's own and is kept as it
 * came; it never reads or writes a card (lib/interop/card-read.ts, card-to-profile.ts and profile-to-card.ts do).
 */
import { LIMITS, type CardExtras } from '../state/model.ts'
import { CardExtrasSchema } from '../state/schema-state.ts'
import { assertPlainJson, invalid, parse } from './core.ts'

/**
 * The Character Card extras of an imported profile (state/model.ts `CardExtras`): plain JSON of the documented shape within
 * LIMITS.card characters. Their content is the card's own and is kept as it came; only its shape and size are checked.
 */
export function cardExtras(v: unknown, field: string): CardExtras {
  assertPlainJson(v, field)
  const out = parse(CardExtrasSchema, v, field)
  const size = JSON.stringify(v).length
  if (size > LIMITS.card)
    throw invalid(field, `is ${size} characters of JSON, over the limit of ${LIMITS.card}`, LIMITS.card)
  return out
}
