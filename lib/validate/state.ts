/**
 * Validation of everything that enters the store: command arguments, profile patches, import payloads and the data
 * file. Owns the rules of avatars, memories, profiles, conversation settings and the whole state, and re-exports the
 * error type and field primitives (core.ts) its users share; tool settings and Character Card extras have
 * their own modules. Every refusal names the field (as a path) and, where one applies, the limit. It never truncates
 * or repairs a value a user typed, and never touches the disk or the live state. It checks shapes and limits only: a
 * memory item comes back with the provenance it was given, or none; who its source is, when, which id, and what an
 * editor may change are policy, the commands' (lib/provenance/provenance.ts).
 */
import type * as z from 'zod'
import { AVATAR_PREFIX, HISTORY_LIMITS, LIMITS, USER_HISTORY } from '../state/model.ts'
import type { MemoryWrite, Profile, SessionSetting } from '../state/model.ts'
import { EDITABLE_FIELDS, type EditableField, type ProfilePatch } from '../shared/command-inputs.ts'
import {
  STATE_FILE_KEYS,
  MemoryInput,
  MemoryItemInput,
  MemoryWriteInput,
  ProfileFields,
  ProfileRecord,
  SessionSettingInput,
  UndoEntryInput,
  UserLayerInput,
} from '../state/schema-state.ts'
import { cardExtras } from './card.ts'
import { ID_PATTERN, assertPlainJson, id, invalid, isRecord, kind, parse, record, sessionId } from './core.ts'
import { CONTROL } from '../state/schema-kit.ts'

export {
  assertPlainJson,
  brokeRule,
  freeName,
  id,
  invalid,
  isRecord,
  newName,
  parse,
  record,
  sessionId,
} from './core.ts'

/** The image types an avatar may have (the `data:image/<type>` part), each with its file signature. */
const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a,
  jpeg: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => b.length > 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6)),
  webp: (b) => b.length > 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
}

/** An avatar data URL split into its image type and bytes. Assumes a URL that `avatar()` accepted. */
export function avatarParts(dataUrl: string): { type: string; bytes: Buffer } {
  const comma = dataUrl.indexOf(',')
  return {
    type: dataUrl.slice('data:image/'.length, dataUrl.indexOf(';')),
    bytes: Buffer.from(dataUrl.slice(comma + 1), 'base64'),
  }
}

/** The data URL of `bytes` as an image of `type`, in canonical base64. */
export function avatarUrlOf(type: string, bytes: Buffer): string {
  return `data:image/${type};base64,${bytes.toString('base64')}`
}

/**
 * A raster avatar data URL or '' (none). SVG and any other type are refused: SVG can carry script. The bytes must
 * carry the signature of the declared type, so a "PNG" cannot be markup in disguise. The base64 is returned in
 * canonical form (same bytes), so the stored text survives a round trip through an image file unchanged.
 */
export function avatar(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalid(field, `must be a data URL or "" (got ${kind(v)})`)
  if (v === '') return v
  const tooLong = (n: number) => invalid(field, `is ${n} characters, over the limit of ${LIMITS.avatar}`, LIMITS.avatar)
  if (v.length > LIMITS.avatar) throw tooLong(v.length)
  if (!AVATAR_PREFIX.test(v)) {
    throw invalid(field, 'must be a base64 data URL of a PNG, JPEG, WebP or GIF image (SVG is refused)')
  }
  const { type, bytes } = avatarParts(v)
  if (!SIGNATURES[type]!(bytes)) throw invalid(field, `does not contain a ${type.toUpperCase()} image`)
  const canonical = avatarUrlOf(type, bytes)
  if (canonical.length > LIMITS.avatar) throw tooLong(canonical.length)
  return canonical === v ? v : canonical
}

/** A memory item as given: its provenance (`id`, `source`, `at`, `sessionId`) may be missing; the commands give it. */
export type ParsedItem = z.output<typeof MemoryItemInput>

/** A memory as given: its items' provenance may be missing. */
export interface ParsedMemory {
  summary: string
  items: ParsedItem[]
}

/** A profile patch as given: its memory's items' provenance may be missing. */
export type ParsedPatch = Omit<ProfilePatch, 'memory'> & { memory?: ParsedMemory }

/** A complete profile as given: its memory's items' provenance may be missing. */
export type ParsedProfile = Omit<Profile, 'memory'> & { memory: ParsedMemory }

/** A conversation's settings as given: its memories' provenance may be missing. */
export type ParsedSetting = Omit<SessionSetting, 'memories'> & { memories: ParsedItem[] }

/** One recorded memory write as given: its items' provenance may be missing. */
export type ParsedWrite = Omit<MemoryWrite, 'added' | 'removed' | 'edited'> & {
  added: ParsedItem[]
  removed: ParsedItem[]
  edited: { before: ParsedItem; after: ParsedItem }[]
}

/** A profile's undo copy as given. */
export interface ParsedUndo {
  memory: ParsedMemory
  at: number
}

/** A complete state as given (every field checked, none repaired); its items' provenance may be missing. */
export interface ParsedState {
  version: 1
  activeId: string
  profiles: ParsedProfile[]
  /** The conversation settings that say something, in the file's order. */
  sessions: [string, ParsedSetting][]
  memoryUndo?: Record<string, ParsedUndo>
  history?: Record<string, ParsedWrite[]>
  /** Present only when it holds an item. */
  user?: { items: ParsedItem[] }
}

/** One memory item, given in full (load/import) or partly (`{text, source?, sessionId?}` from an editor or a tool). */
export function memoryItem(v: unknown, field: string): ParsedItem {
  return parse(MemoryItemInput, v, field)
}

/** A parsed memory with its absent parts empty. */
export function parsedMemory(o: z.output<typeof MemoryInput>): ParsedMemory {
  return { summary: o.summary ?? '', items: o.items ?? [] }
}

/** Editable fields a stored profile may lack (older files, hand-written imports). */
const OPTIONAL: readonly EditableField[] = ['tools', 'memoryMode', 'model']

/** Parsed profile fields as a patch: the avatar's image checked. */
export function profilePatchOf(o: z.output<typeof ProfileFields>, field: string): ParsedPatch {
  const { memory: m, avatar: a, ...rest } = o
  const out: ParsedPatch = rest
  if (a !== undefined) out.avatar = avatar(a, `${field}.avatar`)
  if (m !== undefined) out.memory = parsedMemory(m)
  return out
}

/** A patch for `profile.update`/`profile.create`: only editable fields; ids and times belong to the store. */
export function profilePatch(v: unknown, field: string): ParsedPatch {
  return profilePatchOf(parse(ProfileFields, v, field), field)
}

/** A complete profile, as stored or exported: every field present and valid. */
export function profile(v: unknown, field: string): ParsedProfile {
  const o = record(v, field)
  const p = parse(ProfileRecord, o, field)
  for (const key of EDITABLE_FIELDS)
    if (o[key] === undefined && !OPTIONAL.includes(key)) throw invalid(`${field}.${key}`, 'is missing')
  // A stored or exported profile either has a model or lacks the key; null is only a patch's way to remove one.
  if (p.model === null) throw invalid(`${field}.model`, 'must be an object with provider and model, or absent')
  const { id: pid, createdAt, updatedAt, card, model, suggestedModel, library, ...fields } = p
  const out = {
    id: pid,
    ...profilePatchOf(fields, field),
    ...(model === undefined ? {} : { model }),
    ...(suggestedModel === undefined ? {} : { suggestedModel }),
    ...(library === undefined ? {} : { library }),
    createdAt,
    updatedAt,
  } as ParsedProfile
  if (card !== undefined) out.card = cardExtras(card, `${field}.card`)
  return out
}

/** A list of complete profiles within the count limit, with unique ids. */
function profiles(v: unknown, field: string): ParsedProfile[] {
  if (!Array.isArray(v)) throw invalid(field, `must be an array (got ${kind(v)})`)
  if (v.length > LIMITS.profiles)
    throw invalid(field, `has ${v.length} profiles, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  const list = v.map((x, i) => profile(x, `${field}[${i}]`))
  const seen = new Set<string>()
  list.forEach((p, i) => {
    if (seen.has(p.id)) throw invalid(`${field}[${i}].id`, `repeats the id "${p.id}"`)
    seen.add(p.id)
  })
  return list
}

/** A parsed cast whose every id names an existing profile. */
export function knownCast(cast: readonly string[], field: string, known: ReadonlySet<string>): string[] {
  cast.forEach((pid, i) => {
    if (!known.has(pid)) throw invalid(`${field}[${i}]`, `names no existing profile ("${pid}")`)
  })
  return [...cast]
}

/**
 * The common form of a stored conversation setting — a pin or none, a note, no memories and nothing else — as the
 * schema would read it, checked in one pass; undefined for any other form, which the schema checks (and words every
 * refusal of). The store loads up to 100,000 settings at once, and this form is nearly all of them: the schema takes
 * about 1.7 times as long over them (see the commit that added this).
 */
function commonSetting(v: unknown): { profileId: string | null; note: string } | undefined {
  if (!isRecord(v)) return undefined
  let keys = 0
  for (const key in v) if (key === 'profileId' || key === 'note' || key === 'memories') keys++
  if (keys !== Object.keys(v).length) return undefined
  const { profileId, note, memories } = v
  if (memories !== undefined && !(Array.isArray(memories) && memories.length === 0)) return undefined
  if (profileId !== undefined && profileId !== null && !(typeof profileId === 'string' && ID_PATTERN.test(profileId)))
    return undefined
  if (note !== undefined && !(typeof note === 'string' && note.length <= LIMITS.note && !CONTROL.test(note)))
    return undefined
  return { profileId: profileId ?? null, note: note ?? '' }
}

/** A conversation's settings; `profiles` are the ids a pin may point to. */
export function sessionSetting(v: unknown, field: string, known: ReadonlySet<string>): ParsedSetting {
  const common = commonSetting(v)
  if (common !== undefined) {
    if (common.profileId !== null && !known.has(common.profileId))
      throw invalid(`${field}.profileId`, `names no existing profile ("${common.profileId}")`)
    return { ...common, memories: [] }
  }
  return sessionSettingBySchema(v, field, known)
}

/** {@link sessionSetting} without its fast path: every form, by the schema. */
export function sessionSettingBySchema(v: unknown, field: string, known: ReadonlySet<string>): ParsedSetting {
  const o = parse(SessionSettingInput, v, field)
  const pin = o.profileId ?? null
  if (pin !== null && !known.has(pin)) throw invalid(`${field}.profileId`, `names no existing profile ("${pin}")`)
  const out: ParsedSetting = { profileId: pin, note: o.note ?? '', memories: o.memories ?? [] }
  if (o.incognito === true) out.incognito = true
  if (o.memoryRefreshedAt !== undefined) out.memoryRefreshedAt = o.memoryRefreshedAt
  if (o.cast !== undefined) {
    const cast = knownCast(o.cast, `${field}.cast`, known)
    if (cast.length > 0) out.cast = cast
  }
  return out
}

/** True when a conversation setting says nothing and so must not exist. */
export function isEmptySetting(s: ParsedSetting): boolean {
  return (
    s.profileId === null &&
    s.note.trim() === '' &&
    s.memories.length === 0 &&
    s.incognito !== true &&
    s.memoryRefreshedAt === undefined &&
    (s.cast?.length ?? 0) === 0
  )
}

/** A record without a prototype (for maps keyed by session or profile id), so no id can resolve to an inherited member. */
export function bareRecord<T>(entries: Iterable<[string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>
  for (const [k, v] of entries) out[k] = v
  return out
}

/** A data file's conversation settings (a record by session id), each checked; empty settings are dropped. */
function sessionList(v: Record<string, unknown>, field: string, known: ReadonlySet<string>): [string, ParsedSetting][] {
  const count = Object.keys(v).length
  if (count > LIMITS.sessions)
    throw invalid(field, `has ${count} entries, over the limit of ${LIMITS.sessions}`, LIMITS.sessions)
  const out: [string, ParsedSetting][] = []
  for (const [key, value] of Object.entries(v)) {
    const f = `${field}.${key}`
    const s = sessionSetting(value, f, known)
    if (!isEmptySetting(s)) out.push([sessionId(key, f), s])
  }
  return out
}

/** A complete state (the data file, or a bare state being imported). Every field is checked; nothing is repaired. */
export function state(v: unknown, field: string): ParsedState {
  assertPlainJson(v, field)
  const o = parse(STATE_FILE_KEYS, v, field)
  if (o.version !== 1) throw invalid(`${field}.version`, `must be 1 (got ${JSON.stringify(o.version) ?? 'nothing'})`)
  const list = profiles(o.profiles, `${field}.profiles`)
  if (list.length === 0) throw invalid(`${field}.profiles`, 'must hold at least one profile')
  const known = new Set(list.map((p) => p.id))
  const activeId = id(o.activeId, `${field}.activeId`)
  if (!known.has(activeId)) throw invalid(`${field}.activeId`, `names no existing profile ("${activeId}")`)
  const sessionsIn = o.sessions === undefined ? {} : record(o.sessions, `${field}.sessions`)
  const sessions = sessionList(sessionsIn, `${field}.sessions`, known)
  const out: ParsedState = { version: 1, activeId, profiles: list, sessions }
  if (o.memoryUndo !== undefined) out.memoryUndo = memoryUndo(o.memoryUndo, `${field}.memoryUndo`, known)
  if (o.history !== undefined) out.history = history(o.history, `${field}.history`, known)
  if (o.user !== undefined) {
    const user = userLayer(o.user, `${field}.user`)
    if (user.items.length > 0) out.user = user
  }
  return out
}

/** The user layer: `{items}` within its limit. */
export function userLayer(v: unknown, field: string): { items: ParsedItem[] } {
  return { items: parse(UserLayerInput, v, field).items ?? [] }
}

/** One recorded memory write, as stored. */
export function memoryWrite(v: unknown, field: string): ParsedWrite {
  const o = parse(MemoryWriteInput, v, field)
  const out: ParsedWrite = {
    id: o.id,
    at: o.at,
    who: o.who,
    added: o.added ?? [],
    removed: o.removed ?? [],
    edited: o.edited ?? [],
  }
  if (o.sessionId !== undefined) out.sessionId = o.sessionId
  if (o.summary !== undefined) out.summary = o.summary
  if (o.reverts !== undefined) out.reverts = o.reverts
  return out
}

/** The stored memory histories: one list per existing profile, or per conversation (`s:<session id>`). */
function history(v: unknown, field: string, known: ReadonlySet<string>): Record<string, ParsedWrite[]> {
  const o = record(v, field)
  const out = bareRecord<ParsedWrite[]>()
  const keys = Object.keys(o)
  const limit = LIMITS.profiles + HISTORY_LIMITS.conversations
  if (keys.length > limit) throw invalid(field, `has ${keys.length} lists, over the limit of ${limit}`, limit)
  for (const key of keys) {
    const f = `${field}.${key}`
    if (key.startsWith('s:')) sessionId(key.slice(2), f)
    else if (key !== USER_HISTORY && !known.has(id(key, f))) throw invalid(f, `names no existing profile ("${key}")`)
    const list = o[key]
    if (!Array.isArray(list)) throw invalid(f, 'must be an array')
    if (list.length > HISTORY_LIMITS.entries)
      throw invalid(
        f,
        `has ${list.length} entries, over the limit of ${HISTORY_LIMITS.entries}`,
        HISTORY_LIMITS.entries,
      )
    out[key] = list.map((e, i) => memoryWrite(e, `${f}[${i}]`))
  }
  return out
}

function memoryUndo(v: unknown, field: string, known: ReadonlySet<string>): Record<string, ParsedUndo> {
  const o = record(v, field)
  const out = bareRecord<ParsedUndo>()
  for (const key of Object.keys(o)) {
    const f = `${field}.${key}`
    if (!known.has(id(key, f))) throw invalid(f, `names no existing profile ("${key}")`)
    out[key] = undoEntry(o[key], f)
  }
  return out
}

/** One profile's undo copy of its memory before a compression: `{memory, at}`. */
export function undoEntry(v: unknown, field: string): ParsedUndo {
  const e = parse(UndoEntryInput, v, field)
  return { memory: parsedMemory(e.memory), at: e.at }
}
