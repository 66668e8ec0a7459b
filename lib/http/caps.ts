/**
 * The byte, depth and value caps of the routes' bodies: what each route with a body reads at most before it is
 * refused (413), checked as the bytes arrive (fence.ts, body-shape.ts). Owns these numbers only.
 */
import { OWN_FILE_BOUNDS } from '../shared/files.ts'
import { UNITS_PER_GRAPHEME } from '../state/graphemes.ts'
import { LIMITS } from '../state/model.ts'
import { MAX_DEPTH } from '../validate/core.ts'
import type { BodyShapeLimits } from './body-shape.ts'

/** What a route with a body reads at most: bytes, and nesting and values as they arrive. */
export interface BodyCaps {
  bytes: number
  shape: BodyShapeLimits
}

/**
 * Body cap of `/__ap/command`. Its largest legitimate body is `state.import` of a whole export: 100 profiles whose
 * avatars each sit at the 400,000-character limit (40 MB) must fit, with ~80 KB of text per profile on top. Avatars
 * are shrunk in the browser to tens of KB, so a full LIMITS.profiles (200) export of real avatars fits easily.
 */
export const COMMAND_BODY_LIMIT = 48 * 1024 * 1024

const DRAFT_CHARS =
  LIMITS.name +
  LIMITS.emoji * UNITS_PER_GRAPHEME +
  LIMITS.role +
  LIMITS.personality +
  LIMITS.speakingStyle +
  LIMITS.rules +
  LIMITS.summary +
  LIMITS.note +
  (LIMITS.memoryItems + LIMITS.sessionMemories) * LIMITS.memoryItem

/**
 * Body cap of `/__ap/preview` (about 36 MB, since a profile may hold 10,000 items): one draft with every text field,
 * memory item and conversation memory at its limit in 3-byte UTF-8 characters, 256 bytes of JSON framing per item,
 * and an unsaved avatar. Nothing larger can be a draft the store would accept, so a larger body is refused before it
 * is read.
 */
export const PREVIEW_BODY_LIMIT =
  DRAFT_CHARS * 3 + (LIMITS.memoryItems + LIMITS.sessionMemories) * 256 + LIMITS.avatar + 64 * 1024

/**
 * How deep any body may nest: the store's own nesting limit for plain JSON (a card's extras, an import's payload)
 * plus the levels of a command around it (the command, its payload, the profile list, a profile). Deeper is refused
 * by the store in any case; the cap refuses it before a parser walks it.
 */
export const BODY_DEPTH_LIMIT = MAX_DEPTH + 8

/**
 * JSON values of a `/__ap/command` body: its largest legitimate body by count is `state.import` of the user's own
 * export as an object, which may bring as many values as a file the user confirmed as theirs (OWN_FILE_BOUNDS);
 * files travel as text, one value each. A body of 1.5 million `{}` (3 million values) is refused as it arrives.
 */
export const COMMAND_SHAPE: BodyShapeLimits = { depth: BODY_DEPTH_LIMIT, values: OWN_FILE_BOUNDS.values }

/**
 * JSON values of a `/__ap/preview` body: one draft of every memory item and conversation memory at its limit, each
 * an object of at most 16 values (its dozen fields), and the few values of the other fields.
 */
const PREVIEW_SHAPE: BodyShapeLimits = {
  depth: BODY_DEPTH_LIMIT,
  values: (LIMITS.memoryItems + LIMITS.sessionMemories) * 16 + 1024,
}

/** A small settings body: a restore names one backup (`{"name": …}`), sync names a remote and a branch. */
const SMALL_SHAPE: BodyShapeLimits = { depth: 4, values: 64 }

/** A command, and the one-file import command of `/__ap/import-own` (its file read in the worker). */
export const COMMAND_CAPS: BodyCaps = { bytes: COMMAND_BODY_LIMIT, shape: COMMAND_SHAPE }
/** A draft to preview. */
export const PREVIEW_CAPS: BodyCaps = { bytes: PREVIEW_BODY_LIMIT, shape: PREVIEW_SHAPE }
/** A settings body: a backup's name, a remote and a branch, a library. */
export const SETTINGS_CAPS: BodyCaps = { bytes: 4 * 1024, shape: SMALL_SHAPE }
/** A body that names one thing or nothing (sync now, remove a library). */
export const TINY_CAPS: BodyCaps = { bytes: 1024, shape: SMALL_SHAPE }
