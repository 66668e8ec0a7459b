/**
 * Validation of everything that enters the store: command arguments, profile patches, import payloads and the data
 * file. Owns the rules of avatars, memories, profiles, conversation settings and the whole state, and re-exports the
 * error type and field primitives (core.ts) its users share; tool settings and Character Card extras have
 * their own modules. Every refusal names the field (as a path) and, where one applies, the limit. It never truncates
 * or repairs a value a user typed, and never touches the disk or the live state.
 */
import { AVATAR_PREFIX, HISTORY_LIMITS, LIMITS, MEMORY_LAYERS, MEMORY_MODES, MEMORY_SOURCES, MEMORY_WRITERS, USER_HISTORY } from '../state/model.ts'
import type { Memory, MemoryItem, MemoryLayer, MemorySource, MemoryWrite, MemoryWriter, Profile, SessionSetting, Sessions, State, UsedMemory, UserLayer } from '../state/model.ts'
import { EDITABLE_FIELDS, type EditableField, type ProfilePatch } from '../shared/contract.ts'
import { cardExtras } from './card.ts'
import { assertPlainJson, bool, id, invalid, kind, onlyKeys, record, sessionId, text, time } from './core.ts'
import { modelChoice } from './model.ts'
import { toolSettings } from './tools.ts'
import { sessionsOf } from '../state/sessions.ts'

export { StoreError, assertPlainJson, id, invalid, isRecord, newName, onlyKeys, record, sessionId, text, time } from './core.ts'
export type { StoreErrorCode } from './core.ts'

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
  onlyKeys(o, ['id', 'text', 'source', 'sessionId', 'at', 'pinned', 'pending', 'replaces', 'approved', 'archived', 'keys'], field)
  const itemId = o.id === undefined ? d.newId() : id(o.id, `${field}.id`)
  const prior = o.id === undefined ? undefined : d.existing?.get(itemId)
  const item: MemoryItem = {
    id: itemId,
    text: text(o.text, `${field}.text`, { limit: LIMITS.memoryItem, required: true }),
    source: o.source === undefined ? prior?.source ?? d.source : memorySource(o.source, `${field}.source`),
    at: o.at === undefined ? prior?.at ?? d.at : time(o.at, `${field}.at`),
  }
  // Unlike the provenance, a pin is the editor's to say: an item sent without it is unpinned.
  if (o.pinned !== undefined && bool(o.pinned, `${field}.pinned`)) item.pinned = true
  // A suggestion stays one until `memory.approve`: an editor (which passes `existing`) can neither approve nor make one.
  const pending = d.existing === undefined ? o.pending !== undefined && bool(o.pending, `${field}.pending`) : prior?.pending === true
  if (pending) item.pending = true
  // What a suggestion replaces is the store's to record, like the suggestion itself; only a suggestion has one.
  const replaces = d.existing === undefined ? (o.replaces === undefined ? undefined : id(o.replaces, `${field}.replaces`)) : prior?.replaces
  if (pending && replaces !== undefined) item.replaces = replaces
  // Approval is `memory.approve`'s to record, like the suggestion it ends: an editor keeps what is stored.
  const approved = d.existing === undefined ? o.approved !== undefined && bool(o.approved, `${field}.approved`) : prior?.approved === true
  if (approved && !pending) item.approved = true
  // Like the provenance, whether an item is archived and its search keys stay as stored when an editor omits them.
  const archived = o.archived === undefined ? prior?.archived === true : bool(o.archived, `${field}.archived`)
  if (archived && !pending) item.archived = true
  const keys = o.keys === undefined ? prior?.keys : text(o.keys, `${field}.keys`, { limit: LIMITS.memoryKeys })
  if (keys !== undefined && keys.trim() !== '') item.keys = keys
  const from = o.sessionId === undefined ? (prior === undefined ? d.sessionId : prior.sessionId) : o.sessionId
  if (from !== undefined && from !== null) item.sessionId = sessionId(from, `${field}.sessionId`)
  return item
}

function memorySource(v: unknown, field: string): MemorySource {
  if (!(MEMORY_SOURCES as readonly unknown[]).includes(v)) throw invalid(field, `must be one of ${MEMORY_SOURCES.join(', ')}`)
  return v as MemorySource
}

/** A list of at most `limit` entries (`noun` in messages), each checked by `each`, with unique ids. */
function idList<T extends { id: string }>(v: unknown, field: string, limit: number, noun: string, each: (x: unknown, field: string) => T): T[] {
  if (!Array.isArray(v)) throw invalid(field, `must be an array (got ${kind(v)})`)
  if (v.length > limit) throw invalid(field, `has ${v.length} ${noun}, over the limit of ${limit}`, limit)
  const list = v.map((x, i) => each(x, `${field}[${i}]`))
  const seen = new Set<string>()
  list.forEach((entry, i) => {
    if (seen.has(entry.id)) throw invalid(`${field}[${i}].id`, `repeats the id "${entry.id}"`)
    seen.add(entry.id)
  })
  return list
}

/** A list of memory items within `limit`, with unique ids. */
export function memoryItems(v: unknown, field: string, limit: number, d: ItemDefaults): MemoryItem[] {
  return idList(v, field, limit, 'items', (x, f) => memoryItem(x, f, d))
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

const EDITABLE = EDITABLE_FIELDS
type Editable = EditableField
/** Editable fields a stored profile may lack (older files, hand-written imports). */
const OPTIONAL: readonly Editable[] = ['tools', 'memoryMode', 'model']

function editable(key: Editable, v: unknown, field: string, d: ItemDefaults): unknown {
  switch (key) {
    case 'name': return text(v, field, { limit: LIMITS.name, singleLine: true, required: true })
    case 'emoji': return text(v, field, { limit: LIMITS.emoji, singleLine: true, graphemes: true })
    case 'avatar': return avatar(v, field)
    case 'memoryEnabled': return bool(v, field)
    case 'memoryMode':
      if (!(MEMORY_MODES as readonly unknown[]).includes(v)) throw invalid(field, `must be one of ${MEMORY_MODES.join(', ')}`)
      return v
    case 'memory': return memory(v, field, d)
    case 'tools': return toolSettings(v, field)
    case 'model': return modelChoice(v, field)
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

/** A complete profile, as stored or exported: every field present and valid. */
export function profile(v: unknown, field: string, d: ItemDefaults): Profile {
  const o = record(v, field)
  onlyKeys(o, ['id', ...EDITABLE, 'createdAt', 'updatedAt', 'card'], field)
  for (const key of EDITABLE) if (o[key] === undefined && !OPTIONAL.includes(key)) throw invalid(`${field}.${key}`, 'is missing')
  const p = profilePatch(Object.fromEntries(EDITABLE.map((k) => [k, o[k]])), field, d)
  // A stored or exported profile either has a model or lacks the key; null is only a patch's way to remove one.
  if (p.model === null) throw invalid(`${field}.model`, 'must be an object with provider and model, or absent')
  const out: Profile = {
    id: id(o.id, `${field}.id`),
    ...(p as Required<Omit<ProfilePatch, 'model'>>),
    ...(p.model === undefined ? {} : { model: p.model }),
    createdAt: time(o.createdAt, `${field}.createdAt`),
    updatedAt: time(o.updatedAt, `${field}.updatedAt`),
  }
  if (o.card !== undefined) out.card = cardExtras(o.card, `${field}.card`)
  return out
}

/** A list of complete profiles within the count limit, with unique ids. */
export function profiles(v: unknown, field: string, d: ItemDefaults): Profile[] {
  return idList(v, field, LIMITS.profiles, 'profiles', (x, f) => profile(x, f, d))
}

/** A conversation's settings; `profiles` are the ids a pin may point to. */
export function sessionSetting(v: unknown, field: string, known: ReadonlySet<string>, d: ItemDefaults): SessionSetting {
  const o = record(v, field)
  onlyKeys(o, ['profileId', 'note', 'memories', 'incognito', 'memoryRefreshedAt', 'cast'], field)
  const pin = o.profileId === undefined || o.profileId === null ? null : id(o.profileId, `${field}.profileId`)
  if (pin !== null && !known.has(pin)) throw invalid(`${field}.profileId`, `names no existing profile ("${pin}")`)
  const out: SessionSetting = {
    profileId: pin,
    note: o.note === undefined ? '' : text(o.note, `${field}.note`, { limit: LIMITS.note }),
    memories: o.memories === undefined ? [] : memoryItems(o.memories, `${field}.memories`, LIMITS.sessionMemories, d),
  }
  if (o.incognito !== undefined && bool(o.incognito, `${field}.incognito`)) out.incognito = true
  if (o.memoryRefreshedAt !== undefined) out.memoryRefreshedAt = time(o.memoryRefreshedAt, `${field}.memoryRefreshedAt`)
  if (o.cast !== undefined) {
    const cast = castOf(o.cast, `${field}.cast`, known)
    if (cast.length > 0) out.cast = cast
  }
  return out
}

/** A conversation's cast: distinct ids of existing profiles, in order, at most {@link LIMITS.cast}. */
export function castOf(v: unknown, field: string, known: ReadonlySet<string>): string[] {
  if (!Array.isArray(v)) throw invalid(field, 'must be an array of profile ids')
  if (v.length > LIMITS.cast) throw invalid(field, `has ${v.length} profiles, over the limit of ${LIMITS.cast}`, LIMITS.cast)
  const out: string[] = []
  v.forEach((x, i) => {
    const pid = id(x, `${field}[${i}]`)
    if (!known.has(pid)) throw invalid(`${field}[${i}]`, `names no existing profile ("${pid}")`)
    if (out.includes(pid)) throw invalid(`${field}[${i}]`, `names "${pid}" twice`)
    out.push(pid)
  })
  return out
}

/** The memory items one turn's requests carried (`turn.record`): at most every item one request can hold (every
 * layer's list at its limit). */
export function usedMemories(v: unknown, field: string): UsedMemory[] {
  const limit = LIMITS.memoryItems + LIMITS.sessionMemories + LIMITS.userItems
  if (!Array.isArray(v)) throw invalid(field, 'must be an array of {id, text, layer}')
  if (v.length > limit) throw invalid(field, `has ${v.length} items, over the limit of ${limit}`, limit)
  return v.map((x, i) => {
    const f = `${field}[${i}]`
    const o = record(x, f)
    onlyKeys(o, ['id', 'text', 'layer', 'recalled', 'at'], f)
    if (!MEMORY_LAYERS.includes(o.layer as MemoryLayer)) throw invalid(`${f}.layer`, `must be one of ${MEMORY_LAYERS.join(', ')}`)
    const used: UsedMemory = { id: id(o.id, `${f}.id`), text: text(o.text, `${f}.text`, { limit: LIMITS.memoryItem }), layer: o.layer as MemoryLayer }
    if (o.recalled !== undefined && bool(o.recalled, `${f}.recalled`)) used.recalled = true
    if (o.at !== undefined) used.at = time(o.at, `${f}.at`)
    return used
  })
}

/** True when a conversation setting says nothing and so must not exist. */
export function isEmptySetting(s: SessionSetting): boolean {
  return s.profileId === null && s.note.trim() === '' && s.memories.length === 0 && s.incognito !== true && s.memoryRefreshedAt === undefined
    && (s.cast?.length ?? 0) === 0
}

/** A record without a prototype (for maps keyed by session or profile id), so no id can resolve to an inherited member. */
export function bareRecord<T>(entries: Iterable<[string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>
  for (const [k, v] of entries) out[k] = v
  return out
}

/**
 * Conversation settings from `count` stored entries (key, setting), checked like a data file's; empty settings are
 * dropped. Takes entries rather than a record so that a database's 100,000 rows need no 100,000-key object.
 */
export function sessionMap(entries: Iterable<[string, unknown]>, count: number, field: string, known: ReadonlySet<string>, d: ItemDefaults): Sessions {
  if (count > LIMITS.sessions) throw invalid(field, `has ${count} entries, over the limit of ${LIMITS.sessions}`, LIMITS.sessions)
  const out: [string, SessionSetting][] = []
  for (const [key, value] of entries) {
    const f = `${field}.${key}`
    const s = sessionSetting(value, f, known, d)
    if (!isEmptySetting(s)) out.push([sessionId(key, f), s])
  }
  return sessionsOf(out)
}

/** A complete state (the data file, or a bare state being imported). Every field is checked; nothing is repaired. */
export function state(v: unknown, field: string, d: ItemDefaults): State {
  assertPlainJson(v, field)
  const o = record(v, field)
  onlyKeys(o, ['version', 'activeId', 'profiles', 'sessions', 'memoryUndo', 'history', 'user'], field)
  if (o.version !== 1) throw invalid(`${field}.version`, `must be 1 (got ${JSON.stringify(o.version) ?? 'nothing'})`)
  const list = profiles(o.profiles, `${field}.profiles`, d)
  if (list.length === 0) throw invalid(`${field}.profiles`, 'must hold at least one profile')
  const known = new Set(list.map((p) => p.id))
  const activeId = id(o.activeId, `${field}.activeId`)
  if (!known.has(activeId)) throw invalid(`${field}.activeId`, `names no existing profile ("${activeId}")`)
  const sessionsIn = o.sessions === undefined ? {} : record(o.sessions, `${field}.sessions`)
  const sessions = sessionMap(Object.entries(sessionsIn), Object.keys(sessionsIn).length, `${field}.sessions`, known, d)
  const out: State = { version: 1, activeId, profiles: list, sessions }
  if (o.memoryUndo !== undefined) out.memoryUndo = memoryUndo(o.memoryUndo, `${field}.memoryUndo`, known, d)
  if (o.history !== undefined) out.history = history(o.history, `${field}.history`, known, d)
  if (o.user !== undefined) {
    const user = userLayer(o.user, `${field}.user`, d)
    if (user.items.length > 0) out.user = user
  }
  return out
}

/** The user layer: `{items}` within its limit, with unique ids. */
export function userLayer(v: unknown, field: string, d: ItemDefaults): UserLayer {
  const o = record(v, field)
  onlyKeys(o, ['items'], field)
  return { items: o.items === undefined ? [] : memoryItems(o.items, `${field}.items`, LIMITS.userItems, d) }
}

/** One recorded memory write, as stored. */
export function memoryWrite(v: unknown, field: string, d: ItemDefaults): MemoryWrite {
  const o = record(v, field)
  onlyKeys(o, ['id', 'at', 'who', 'sessionId', 'added', 'removed', 'edited', 'summary', 'reverts'], field)
  if (!(MEMORY_WRITERS as readonly unknown[]).includes(o.who)) throw invalid(`${field}.who`, `must be one of ${MEMORY_WRITERS.join(', ')}`)
  const items = (x: unknown, f: string) => (x === undefined ? [] : memoryItems(x, f, LIMITS.memoryItems, d))
  if (o.edited !== undefined && !Array.isArray(o.edited)) throw invalid(`${field}.edited`, 'must be an array')
  const out: MemoryWrite = {
    id: id(o.id, `${field}.id`),
    at: time(o.at, `${field}.at`),
    who: o.who as MemoryWriter,
    added: items(o.added, `${field}.added`),
    removed: items(o.removed, `${field}.removed`),
    edited: (o.edited ?? []).map((e, i) => {
      const f = `${field}.edited[${i}]`
      const r = record(e, f)
      onlyKeys(r, ['before', 'after'], f)
      return { before: memoryItem(r.before, `${f}.before`, d), after: memoryItem(r.after, `${f}.after`, d) }
    }),
  }
  if (o.sessionId !== undefined) out.sessionId = sessionId(o.sessionId, `${field}.sessionId`)
  if (o.summary !== undefined) {
    const r = record(o.summary, `${field}.summary`)
    onlyKeys(r, ['before', 'after'], `${field}.summary`)
    const rule = { limit: LIMITS.summary }
    out.summary = { before: text(r.before, `${field}.summary.before`, rule), after: text(r.after, `${field}.summary.after`, rule) }
  }
  if (o.reverts !== undefined) out.reverts = id(o.reverts, `${field}.reverts`)
  return out
}

/** The stored memory histories: one list per existing profile, or per conversation (`s:<session id>`). */
function history(v: unknown, field: string, known: ReadonlySet<string>, d: ItemDefaults): NonNullable<State['history']> {
  const o = record(v, field)
  const out = bareRecord<MemoryWrite[]>()
  const keys = Object.keys(o)
  const limit = LIMITS.profiles + HISTORY_LIMITS.conversations
  if (keys.length > limit) throw invalid(field, `has ${keys.length} lists, over the limit of ${limit}`, limit)
  for (const key of keys) {
    const f = `${field}.${key}`
    if (key.startsWith('s:')) sessionId(key.slice(2), f)
    else if (key !== USER_HISTORY && !known.has(id(key, f))) throw invalid(f, `names no existing profile ("${key}")`)
    const list = o[key]
    if (!Array.isArray(list)) throw invalid(f, 'must be an array')
    if (list.length > HISTORY_LIMITS.entries) throw invalid(f, `has ${list.length} entries, over the limit of ${HISTORY_LIMITS.entries}`, HISTORY_LIMITS.entries)
    out[key] = list.map((e, i) => memoryWrite(e, `${f}[${i}]`, d))
  }
  return out
}

function memoryUndo(v: unknown, field: string, known: ReadonlySet<string>, d: ItemDefaults): NonNullable<State['memoryUndo']> {
  const o = record(v, field)
  const out = bareRecord<{ memory: Memory; at: number }>()
  for (const key of Object.keys(o)) {
    const f = `${field}.${key}`
    if (!known.has(id(key, f))) throw invalid(f, `names no existing profile ("${key}")`)
    out[key] = undoEntry(o[key], f, d)
  }
  return out
}

/** One profile's undo copy of its memory before a compression: `{memory, at}`. */
export function undoEntry(v: unknown, field: string, d: ItemDefaults): { memory: Memory; at: number } {
  const e = record(v, field)
  onlyKeys(e, ['memory', 'at'], field)
  return { memory: memory(e.memory, `${field}.memory`, d), at: time(e.at, `${field}.at`) }
}
