/**
 * Profile → Character Card: the card a profile came from (its extras), with the user's edits applied group by group,
 * as V2 in the spec's field order (and V3 too when it came from a V3 card), and our own fields with the digests of
 * what we wrote under `extensions.dsh_agent_profiles`, so a later import can tell our card from one edited elsewhere.
 * It builds the card object only: PNG, JSON and CHARX files are written by file-export.ts.
 */
import type { Memory, Profile } from '../state/model.ts'
import { digest } from '../shared/card-png.ts'
import { EXTENSION_KEY } from '../shared/files.ts'
import { isRecord } from '../validate/core.ts'
import {
  GROUPS,
  GROUP_NAMES,
  UNMAPPED_DEFAULTS,
  V2_FIELDS,
  cardGroupText,
  exportGroup,
  profileGroupText,
} from './card-fields.ts'

/** The profile fields our extension carries (memory as a copy); the avatar and tools only where they apply. */
const OWN_FIELDS = [
  'id',
  'name',
  'emoji',
  'role',
  'personality',
  'speakingStyle',
  'rules',
  'memoryEnabled',
  'memory',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof Profile)[]

/** How the picture relates to the profile in a PNG export; decides what our extension must carry. */
export interface CardExportOptions {
  /** Carry the avatar data URL in our extension: for JSON (no picture) and for a PNG whose picture is a placeholder. */
  avatarInExtension: boolean
  /** Digest of the placeholder picture the PNG will carry (no avatar, or one the PNG cannot hold). */
  placeholder?: string
}

/** The cards to write: V2 always; V3 too when the profile came from a V3 card (its `ccv3` chunk). */
export interface CardExport {
  v2: Record<string, unknown>
  v3?: Record<string, unknown>
}

/** A profile as Card V2 (and V3 when it came from one): the card it came from, with the user's edits applied. */
export function profileToCard(p: Profile, options: CardExportOptions): CardExport {
  const extras = p.card
  const mapped: Record<string, unknown> = {}
  for (const g of GROUP_NAMES) {
    const kept = extras?.originals?.[g]
    const fields =
      kept !== undefined && kept.digest === digest(profileGroupText(p, g)) ? kept.fields : exportGroup(p, g)
    for (const k of GROUPS[g]) if (g !== 'memory') mapped[k] = ''
    Object.assign(mapped, fields)
  }
  const merged: Record<string, unknown> = { ...UNMAPPED_DEFAULTS, ...extras?.data, ...mapped }
  const data: Record<string, unknown> = {}
  for (const k of V2_FIELDS) if (k in merged) data[k] = merged[k]
  for (const [k, v] of Object.entries(merged)) if (!(k in data)) data[k] = v
  const digests = Object.fromEntries(GROUP_NAMES.map((g) => [g, digest(cardGroupText(data, g))]))
  const own: Record<string, unknown> = Object.fromEntries(
    OWN_FIELDS.map((k) => [k, k === 'memory' ? memoryCopy(p.memory) : p[k]]),
  )
  if (options.avatarInExtension) own.avatar = p.avatar
  if (p.tools !== undefined) own.tools = p.tools
  const ext: Record<string, unknown> = { version: 1, profile: own, digests }
  if (options.placeholder !== undefined) ext.placeholder = options.placeholder
  data.extensions = { ...(isRecord(data.extensions) ? data.extensions : {}), [EXTENSION_KEY]: ext }
  const top: Record<string, unknown> = {}
  for (const k of extras?.mirror ?? []) if (k in data) top[k] = data[k]
  Object.assign(top, extras?.top)
  const out: CardExport = { v2: { spec: 'chara_card_v2', spec_version: '2.0', data, ...top } }
  if (extras?.spec === 'chara_card_v3')
    out.v3 = { spec: 'chara_card_v3', spec_version: extras.specVersion || '3.0', data, ...top }
  return out
}

function memoryCopy(m: Memory): Memory {
  return { summary: m.summary, items: m.items.map((it) => ({ ...it })) }
}
