/**
 * Reading a Character Card: the text of a PNG card chunk (base64 or raw JSON), card JSON within its limit, and a
 * parsed value as a card of a known spec (V2/V3 with their `data`, anything else recognized by card-shapes.ts).
 * Strict where a card is unusable (a refusal naming the field), best-effort with warnings where it is only untidy.
 * It never maps a field to a profile (card-to-profile.ts does) and never reads PNG chunks (lib/shared/card-png.ts).
 */
import { fromBase64, isBase64 } from '../shared/card-png.ts'
import { FORBIDDEN_KEYS, isRecord } from '../validate/core.ts'
import { JSON_DEPTH_LIMIT, JSON_VALUE_LIMIT, checkJson } from './bounds.ts'
import { shapedCard } from './card-shapes.ts'
import { errorText } from '../shared/errors.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { ImportError } from '../shared/errors.ts'

/** The card specs we read; V1 has no spec field and is named so only here. */
type CardSpec = 'chara_card_v1' | 'chara_card_v2' | 'chara_card_v3'

/** A card as read: its spec, its `data` object (a V1 card's whole object), and what sat beside `data`. */
export interface Card {
  spec: CardSpec
  specVersion: string
  data: Record<string, unknown>
  top: Record<string, unknown>
}

/**
 * Characters of card JSON we read. A profile keeps at most about 1.2 M characters of a card (its fields, 500 memory
 * items, 200,000 of extras, the avatar), so a bigger card could only be cut; and reading one costs per character
 * (16 M characters held the host about 200 ms on a 2-core machine), so a card past 4 M is refused.
 */
const CARD_JSON_LIMIT = 4 * 1024 * 1024

/** The JSON text inside a card chunk: base64 of UTF-8 JSON (the standard), or raw JSON (some writers). */
export function decodeChunkText(text: string, field: string): string {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) return trimmed
  const b64 = trimmed.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/')
  if (b64 === '') throw new ImportError(field, 'chunkEmpty')
  if (!isBase64(b64)) throw new ImportError(field, 'chunkNotCard')
  if (b64.replace(/=+$/, '').length % 4 === 1) throw new ImportError(field, 'truncated')
  const padded = b64.replace(/=+$/, '').padEnd(Math.ceil(b64.replace(/=+$/, '').length / 4) * 4, '=')
  return new TextDecoder().decode(fromBase64(padded))
}

/**
 * Delete every key that could reach an object's prototype (`__proto__`, `constructor`, `prototype`) from a parsed
 * value, saying how many: the store refuses them, and copying `__proto__` into a plain object changes its prototype
 * instead of keeping the key. The value is nested at most JSON_DEPTH_LIMIT deep, so the recursion is bounded.
 */
function dropForbidden(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0
  let n = 0
  if (Array.isArray(v)) {
    for (const x of v) n += dropForbidden(x)
    return n
  }
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) {
    if (FORBIDDEN_KEYS.has(k)) {
      delete o[k]
      n++
    } else n += dropForbidden(o[k])
  }
  return n
}

/** Parse card JSON text; a text that is not complete JSON is named as truncated when it ends early. */
export function parseCardText(text: string, field: string, warnings: ImportNote[]): Card {
  if (text.length > CARD_JSON_LIMIT) {
    throw new ImportError(field, 'jsonTooLong', { length: text.length, limit: CARD_JSON_LIMIT })
  }
  checkJson(text, field, { depth: JSON_DEPTH_LIMIT, values: JSON_VALUE_LIMIT })
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (e) {
    const message = errorText(e)
    // A parser that stops at the very end of the text ran out of input: the card was cut short.
    const at = Number(/position (\d+)/.exec(message)?.[1])
    const ended = /end of (JSON )?input|Unterminated/i.test(message) || at >= text.trimEnd().length - 1
    throw new ImportError(field, ended ? 'truncated' : 'notJson')
  }
  // Looked for in the text first (or an escape, which could spell one): most cards need no walk at all.
  if (/"(__proto__|constructor|prototype)"|\\u/.test(text)) {
    const dropped = dropForbidden(value)
    if (dropped > 0) warnings.push(note('forbiddenKeys', { count: dropped }))
  }
  return readCard(value, field, warnings)
}

/** A parsed JSON value as a card of a known spec. */
function readCard(value: unknown, field: string, warnings: ImportNote[]): Card {
  if (!isRecord(value)) throw new ImportError(field, 'notCard')
  const { spec, spec_version: version, data, ...top } = value
  const specVersion = typeof version === 'string' ? version : version === undefined ? '' : String(version)
  if (spec === 'chara_card_v2' || spec === 'chara_card_v3') {
    if (!isRecord(data)) throw new ImportError(`${field}.data`, 'noData')
    return { spec, specVersion, data, top }
  }
  if (isRecord(data)) {
    warnings.push(note('specGuessed'))
    const v3 = typeof spec === 'string' && /v3/i.test(spec)
    return {
      spec: v3 ? 'chara_card_v3' : 'chara_card_v2',
      specVersion,
      data,
      top: spec === undefined ? top : { spec, ...top },
    }
  }
  const shaped = shapedCard(value, field, warnings)
  return shaped.v1
    ? { spec: 'chara_card_v1', specVersion: '', data: shaped.data, top: {} }
    : { spec: 'chara_card_v2', specVersion: '2.0', data: shaped.data, top: {} }
}
