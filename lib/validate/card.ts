/**
 * Validation of the Character Card extras an imported profile keeps (state/model.ts `CardExtras`): shape and size only.
 * The content is the card's own and is kept as it came; it never reads or writes a card (lib/interop/card-read.ts,
 * card-to-profile.ts and profile-to-card.ts do).
 */
import { LIMITS, type CardExtras } from '../state/model.ts'
import { assertPlainJson, invalid, onlyKeys, record, text } from './core.ts'

/**
 * The Character Card extras of an imported profile (state/model.ts `CardExtras`): plain JSON of the documented shape within
 * LIMITS.card characters. Their content is the card's own and is kept as it came; only its shape and size are checked.
 */
export function cardExtras(v: unknown, field: string): CardExtras {
  assertPlainJson(v, field)
  const o = record(v, field)
  onlyKeys(o, ['spec', 'specVersion', 'data', 'top', 'mirror', 'originals'], field)
  const size = JSON.stringify(o).length
  if (size > LIMITS.card) throw invalid(field, `is ${size} characters of JSON, over the limit of ${LIMITS.card}`, LIMITS.card)
  const out: CardExtras = {
    spec: text(o.spec, `${field}.spec`, { limit: 40, singleLine: true, required: true }),
    specVersion: text(o.specVersion, `${field}.specVersion`, { limit: 40, singleLine: true }),
    data: record(o.data, `${field}.data`),
  }
  if (o.top !== undefined) out.top = record(o.top, `${field}.top`)
  if (o.mirror !== undefined) {
    if (!Array.isArray(o.mirror) || o.mirror.some((k) => typeof k !== 'string')) throw invalid(`${field}.mirror`, 'must be a list of key names')
    out.mirror = o.mirror as string[]
  }
  if (o.originals !== undefined) {
    const originals = record(o.originals, `${field}.originals`)
    for (const [key, entry] of Object.entries(originals)) {
      const e = record(entry, `${field}.originals.${key}`)
      onlyKeys(e, ['digest', 'fields'], `${field}.originals.${key}`)
      text(e.digest, `${field}.originals.${key}.digest`, { limit: 64, singleLine: true })
      record(e.fields, `${field}.originals.${key}.fields`)
    }
    out.originals = originals as NonNullable<CardExtras['originals']>
  }
  return out
}
