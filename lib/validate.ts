/**
 * Validation of everything that enters the store: command arguments, profile patches, import payloads and the data
 * file. Owns the field rules and the error type; every refusal names the field (as a path) and, where one applies,
 * the limit. It never truncates or repairs a value a user typed, and never touches the disk or the live state.
 */
import { AVATAR_PREFIX, LIMITS, MEMORY_SOURCES, TOOL_NAME, TOOL_PROFILES } from './model.ts'
import type { CardExtras, Memory, MemoryItem, MemorySource, Profile, SessionSetting, State, ToolProfileName, ToolSettings } from './model.ts'

/** Why a command was refused: bad input, a missing target, a rule of the data model, or the disk. */
export type StoreErrorCode = 'invalid' | 'not-found' | 'conflict' | 'io'

/** The one error type the store throws; `field` is a path such as `patch.rules`, `limit` the bound it broke. */
export class StoreError extends Error {
  code: StoreErrorCode
  field?: string
  limit?: number
  constructor(code: StoreErrorCode, message: string, field?: string, limit?: number) {
    super(message)
    this.name = 'StoreError'
    this.code = code
    if (field !== undefined) this.field = field
    if (limit !== undefined) this.limit = limit
  }
}

/** Shorthand for an `invalid` refusal of one field. */
export function invalid(field: string, message: string, limit?: number): StoreError {
  return new StoreError('invalid', `${field}: ${message}`, field, limit)
}

/** Ids of profiles and memory items: short, URL- and file-name-safe. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Session ids as the host makes them (`session-<uuid>`), with room for test ids; never a prototype key. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
/** Keys that could reach an object's prototype if copied naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
/** C0 controls other than tab, newline and carriage return, and DEL: invisible, and never typed on purpose. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/
const MAX_DEPTH = 32

/** Runtime type of a value, for messages. */
function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

/** A plain object (not an array, class instance or null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/**
 * Refuses anything JSON cannot carry faithfully (functions, undefined, NaN, Infinity, bigint, symbols, class
 * instances, cycles or absurd nesting) and prototype-reaching keys, so no payload can smuggle behaviour in.
 */
export function assertPlainJson(value: unknown, field: string, depth = 0): void {
  if (depth > MAX_DEPTH) throw invalid(field, `nested deeper than ${MAX_DEPTH} levels`, MAX_DEPTH)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(field, 'is not a finite number')
    return
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainJson(v, `${field}[${i}]`, depth + 1))
    return
  }
  if (!isRecord(value)) throw invalid(field, `is not a JSON value (got ${kind(value)})`)
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) throw invalid(`${field}.${key}`, 'is a forbidden key')
    assertPlainJson(value[key], `${field}.${key}`, depth + 1)
  }
}

/** An object argument; `{}` when absent and optional. */
export function record(v: unknown, field: string): Record<string, unknown> {
  if (!isRecord(v)) throw invalid(field, `must be an object (got ${kind(v)})`)
  return v
}

/** Refuses keys outside `allowed`, so a misspelt field is an error rather than a silent no-op. */
export function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw invalid(`${field}.${key}`, 'is not a known field')
  }
}

interface TextRule {
  limit: number
  /** No line breaks (names, emoji). */
  singleLine?: boolean
  /** Must contain something besides whitespace. */
  required?: boolean
}

/**
 * A text field within its limit. Lengths count UTF-16 code units, the unit a browser's `maxlength` counts, so the
 * editor and the store agree on what fits.
 */
export function text(v: unknown, field: string, rule: TextRule): string {
  if (typeof v !== 'string') throw invalid(field, `must be a string (got ${kind(v)})`)
  if (v.length > rule.limit) throw invalid(field, `is ${v.length} characters, over the limit of ${rule.limit}`, rule.limit)
  if (CONTROL.test(v)) throw invalid(field, 'contains a control character')
  if (rule.singleLine && /[\r\n]/.test(v)) throw invalid(field, 'must be a single line')
  if (rule.required && v.trim() === '') throw invalid(field, 'must not be empty')
  return v
}

/** A profile or memory-item id. */
export function id(v: unknown, field: string): string {
  if (typeof v !== 'string' || !ID_PATTERN.test(v)) {
    throw invalid(field, 'must be 1–64 letters, digits, "-" or "_", starting with a letter or digit', 64)
  }
  return v
}

/** A conversation (session) id. */
export function sessionId(v: unknown, field: string): string {
  if (typeof v !== 'string' || !SESSION_ID_PATTERN.test(v) || FORBIDDEN_KEYS.has(v)) {
    throw invalid(field, 'must be a session id of 1–128 letters, digits, ".", ":", "-" or "_"', 128)
  }
  return v
}

/** A boolean. */
export function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw invalid(field, `must be true or false (got ${kind(v)})`)
  return v
}

/** Milliseconds since the epoch. */
export function time(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalid(field, 'must be a time in milliseconds')
  return v
}

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
  return { type: dataUrl.slice('data:image/'.length, dataUrl.indexOf(';')), bytes: Buffer.from(dataUrl.slice(comma + 1), 'base64') }
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

/** What a caller may give for a memory item; missing provenance is filled from `defaults`. */
export interface ItemDefaults {
  source: MemorySource
  at: number
  newId: () => string
  /** The conversation new items come from, when there is one. */
  sessionId?: string
  /** Items already stored, by id: an editor that sends an item back without its provenance keeps the stored one. */
  existing?: ReadonlyMap<string, MemoryItem>
}

/** One memory item, given in full (load/import) or partly (`{text, source?, sessionId?}` from an editor or a tool). */
export function memoryItem(v: unknown, field: string, d: ItemDefaults): MemoryItem {
  const o = record(v, field)
  onlyKeys(o, ['id', 'text', 'source', 'sessionId', 'at'], field)
  const itemId = o.id === undefined ? d.newId() : id(o.id, `${field}.id`)
  const prior = o.id === undefined ? undefined : d.existing?.get(itemId)
  const item: MemoryItem = {
    id: itemId,
    text: text(o.text, `${field}.text`, { limit: LIMITS.memoryItem, required: true }),
    source: o.source === undefined ? prior?.source ?? d.source : memorySource(o.source, `${field}.source`),
    at: o.at === undefined ? prior?.at ?? d.at : time(o.at, `${field}.at`),
  }
  const from = o.sessionId === undefined ? (prior === undefined ? d.sessionId : prior.sessionId) : o.sessionId
  if (from !== undefined && from !== null) item.sessionId = sessionId(from, `${field}.sessionId`)
  return item
}

function memorySource(v: unknown, field: string): MemorySource {
  if (!(MEMORY_SOURCES as readonly unknown[]).includes(v)) throw invalid(field, `must be one of ${MEMORY_SOURCES.join(', ')}`)
  return v as MemorySource
}

/** A list of memory items within `limit`, with unique ids. */
export function memoryItems(v: unknown, field: string, limit: number, d: ItemDefaults): MemoryItem[] {
  if (!Array.isArray(v)) throw invalid(field, `must be an array (got ${kind(v)})`)
  if (v.length > limit) throw invalid(field, `has ${v.length} items, over the limit of ${limit}`, limit)
  const items = v.map((x, i) => memoryItem(x, `${field}[${i}]`, d))
  const seen = new Set<string>()
  items.forEach((it, i) => {
    if (seen.has(it.id)) throw invalid(`${field}[${i}].id`, `repeats the id "${it.id}"`)
    seen.add(it.id)
  })
  return items
}

/** A whole memory: summary plus items. */
export function memory(v: unknown, field: string, d: ItemDefaults): Memory {
  const o = record(v, field)
  onlyKeys(o, ['summary', 'items'], field)
  return {
    summary: o.summary === undefined ? '' : text(o.summary, `${field}.summary`, { limit: LIMITS.summary }),
    items: o.items === undefined ? [] : memoryItems(o.items, `${field}.items`, LIMITS.memoryItems, d),
  }
}

/** One list of tool names in a profile's tool settings: distinct names, within the count and length limits. */
function toolNames(v: unknown, field: string): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v)) throw invalid(field, `must be an array of tool names (got ${kind(v)})`)
  if (v.length > LIMITS.toolOverrides) {
    throw invalid(field, `has ${v.length} names, over the limit of ${LIMITS.toolOverrides}`, LIMITS.toolOverrides)
  }
  const seen = new Set<string>()
  return v.map((name: unknown, i) => {
    const f = `${field}[${i}]`
    if (typeof name !== 'string') throw invalid(f, `must be a string (got ${kind(name)})`)
    if (name.length > LIMITS.toolName) throw invalid(f, `is ${name.length} characters, over the limit of ${LIMITS.toolName}`, LIMITS.toolName)
    if (!TOOL_NAME.test(name)) throw invalid(f, 'must be a tool name: letters, digits, "_", "-", "." or ":", starting with a letter, digit or "_"')
    if (seen.has(name)) throw invalid(f, `repeats "${name}"`)
    seen.add(name)
    return name
  })
}

/** A profile's tool settings (model.ts `ToolSettings`); absent lists are empty. */
export function toolSettings(v: unknown, field: string): ToolSettings {
  const o = record(v, field)
  onlyKeys(o, ['profile', 'add', 'remove'], field)
  if (!(TOOL_PROFILES as readonly unknown[]).includes(o.profile)) {
    throw invalid(`${field}.profile`, `must be one of ${TOOL_PROFILES.join(', ')} (got ${JSON.stringify(o.profile) ?? 'nothing'})`)
  }
  return { profile: o.profile as ToolProfileName, add: toolNames(o.add, `${field}.add`), remove: toolNames(o.remove, `${field}.remove`) }
}

/** The fields a caller may set on a profile, with their rules. */
const EDITABLE = ['name', 'emoji', 'avatar', 'role', 'personality', 'speakingStyle', 'rules', 'memoryEnabled', 'memory', 'tools'] as const
type Editable = (typeof EDITABLE)[number]
/** Editable fields a stored profile may lack (older files, hand-written imports). */
const OPTIONAL: readonly Editable[] = ['tools']
/** A validated set of changes to a profile. */
export type ProfilePatch = Partial<Pick<Profile, Editable>>

function editable(key: Editable, v: unknown, field: string, d: ItemDefaults): unknown {
  switch (key) {
    case 'name': return text(v, field, { limit: LIMITS.name, singleLine: true, required: true })
    case 'emoji': return text(v, field, { limit: LIMITS.emoji, singleLine: true })
    case 'avatar': return avatar(v, field)
    case 'memoryEnabled': return bool(v, field)
    case 'memory': return memory(v, field, d)
    case 'tools': return toolSettings(v, field)
    default: return text(v, field, { limit: LIMITS[key] })
  }
}

/** A patch for `profile.update`/`profile.create`: only editable fields; ids and times belong to the store. */
export function profilePatch(v: unknown, field: string, d: ItemDefaults): ProfilePatch {
  const o = record(v, field)
  onlyKeys(o, EDITABLE, field)
  const out: Record<string, unknown> = {}
  for (const key of EDITABLE) if (o[key] !== undefined) out[key] = editable(key, o[key], `${field}.${key}`, d)
  return out as ProfilePatch
}

/**
 * The Character Card extras of an imported profile (model.ts `CardExtras`): plain JSON of the documented shape within
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

/** A complete profile, as stored or exported: every field present and valid. */
export function profile(v: unknown, field: string, d: ItemDefaults): Profile {
  const o = record(v, field)
  onlyKeys(o, ['id', ...EDITABLE, 'createdAt', 'updatedAt', 'card'], field)
  for (const key of EDITABLE) if (o[key] === undefined && !OPTIONAL.includes(key)) throw invalid(`${field}.${key}`, 'is missing')
  const p = profilePatch(Object.fromEntries(EDITABLE.map((k) => [k, o[k]])), field, d)
  const out: Profile = {
    id: id(o.id, `${field}.id`),
    ...(p as Required<ProfilePatch>),
    createdAt: time(o.createdAt, `${field}.createdAt`),
    updatedAt: time(o.updatedAt, `${field}.updatedAt`),
  }
  if (o.card !== undefined) out.card = cardExtras(o.card, `${field}.card`)
  return out
}

/** A list of complete profiles within the count limit, with unique ids. */
export function profiles(v: unknown, field: string, d: ItemDefaults): Profile[] {
  if (!Array.isArray(v)) throw invalid(field, `must be an array (got ${kind(v)})`)
  if (v.length > LIMITS.profiles) throw invalid(field, `has ${v.length} profiles, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  const list = v.map((x, i) => profile(x, `${field}[${i}]`, d))
  const seen = new Set<string>()
  list.forEach((p, i) => {
    if (seen.has(p.id)) throw invalid(`${field}[${i}].id`, `repeats the id "${p.id}"`)
    seen.add(p.id)
  })
  return list
}

/** A conversation's settings; `profiles` are the ids a pin may point to. */
export function sessionSetting(v: unknown, field: string, known: ReadonlySet<string>, d: ItemDefaults): SessionSetting {
  const o = record(v, field)
  onlyKeys(o, ['profileId', 'note', 'memories'], field)
  const pin = o.profileId === undefined || o.profileId === null ? null : id(o.profileId, `${field}.profileId`)
  if (pin !== null && !known.has(pin)) throw invalid(`${field}.profileId`, `names no existing profile ("${pin}")`)
  return {
    profileId: pin,
    note: o.note === undefined ? '' : text(o.note, `${field}.note`, { limit: LIMITS.note }),
    memories: o.memories === undefined ? [] : memoryItems(o.memories, `${field}.memories`, LIMITS.sessionMemories, d),
  }
}

/** True when a conversation setting says nothing and so must not exist. */
export function isEmptySetting(s: SessionSetting): boolean {
  return s.profileId === null && s.note.trim() === '' && s.memories.length === 0
}

/** A record without a prototype (for maps keyed by session or profile id), so no id can resolve to an inherited member. */
export function bareRecord<T>(entries: Iterable<[string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>
  for (const [k, v] of entries) out[k] = v
  return out
}

/** A complete state (the data file, or a bare state being imported). Every field is checked; nothing is repaired. */
export function state(v: unknown, field: string, d: ItemDefaults): State {
  assertPlainJson(v, field)
  const o = record(v, field)
  onlyKeys(o, ['version', 'activeId', 'profiles', 'sessions', 'memoryUndo'], field)
  if (o.version !== 1) throw invalid(`${field}.version`, `must be 1 (got ${JSON.stringify(o.version) ?? 'nothing'})`)
  const list = profiles(o.profiles, `${field}.profiles`, d)
  if (list.length === 0) throw invalid(`${field}.profiles`, 'must hold at least one profile')
  const known = new Set(list.map((p) => p.id))
  const activeId = id(o.activeId, `${field}.activeId`)
  if (!known.has(activeId)) throw invalid(`${field}.activeId`, `names no existing profile ("${activeId}")`)
  const sessionsIn = o.sessions === undefined ? {} : record(o.sessions, `${field}.sessions`)
  const keys = Object.keys(sessionsIn)
  if (keys.length > LIMITS.sessions) throw invalid(`${field}.sessions`, `has ${keys.length} entries, over the limit of ${LIMITS.sessions}`, LIMITS.sessions)
  const sessions = bareRecord<SessionSetting>()
  for (const key of keys) {
    const f = `${field}.sessions.${key}`
    const s = sessionSetting(sessionsIn[key], f, known, d)
    if (!isEmptySetting(s)) sessions[sessionId(key, f)] = s
  }
  const out: State = { version: 1, activeId, profiles: list, sessions }
  if (o.memoryUndo !== undefined) out.memoryUndo = memoryUndo(o.memoryUndo, `${field}.memoryUndo`, known, d)
  return out
}

function memoryUndo(v: unknown, field: string, known: ReadonlySet<string>, d: ItemDefaults): NonNullable<State['memoryUndo']> {
  const o = record(v, field)
  const out = bareRecord<{ memory: Memory; at: number }>()
  for (const key of Object.keys(o)) {
    const f = `${field}.${key}`
    if (!known.has(id(key, f))) throw invalid(f, `names no existing profile ("${key}")`)
    const e = record(o[key], f)
    onlyKeys(e, ['memory', 'at'], f)
    out[key] = { memory: memory(e.memory, `${f}.memory`, d), at: time(e.at, `${f}.at`) }
  }
  return out
}
