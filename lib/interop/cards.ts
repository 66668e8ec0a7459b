/**
 * Character Card V1/V2/V3 ⇄ profile. Owns reading card JSON (strictly where a card is unusable, best-effort with
 * warnings where it is only untidy), the field mapping both ways, and the card extras (shared/model.ts `CardExtras`) that let
 * an exported card carry back out everything an imported card brought. Pure: no I/O and no store; the PNG side is in
 * lib/shared/card-png.ts, files and commands in lib/commands/file-import.ts, downloads in file-export.ts.
 *
 * Mapping: name; description + scenario → role; personality; speaking cues (labelled lines such as
 * "Speech: …" in description or personality) + mes_example → speaking style; system_prompt + post_history_instructions
 * → ground rules; character_book entries → memory items (source `import`), every one of them with `{{char}}`/`{{user}}`
 * replaced. creator_notes, first_mes and the rest are never injected: they stay in the extras. JSON without a card's
 * spec and data (V1, Tavern-like camelCase, other apps' role files) is recognized by card-shapes.ts. Export writes
 * Card V2 with our own fields under `extensions.dsh_agent_profiles`.
 */
import { LIMITS, type CardExtras, type Memory, type Profile, type ToolSettings } from '../shared/model.ts'
import { digest, fromBase64 } from '../shared/card-png.ts'
import { bookToMemory, memoryToBook, ownMemory, type MemoryImport } from './card-book.ts'
import { ImportError, asText, fit as fitText } from '../shared/card-text.ts'
import { shapeOf, shapedCard } from './card-shapes.ts'
import { errorText } from '../errors.ts'
import { EXTENSION_KEY } from '../shared/contract.ts'

/** The card specs we read; V1 has no spec field and is named so only here. */
export type CardSpec = 'chara_card_v1' | 'chara_card_v2' | 'chara_card_v3'

/** A card as read: its spec, its `data` object (a V1 card's whole object), and what sat beside `data`. */
export interface Card {
  spec: CardSpec
  specVersion: string
  data: Record<string, unknown>
  top: Record<string, unknown>
}

/** Characters of card JSON we read; the largest real cards with big lorebooks stay well under it. */
export const CARD_JSON_LIMIT = 16 * 1024 * 1024

type Group = 'name' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memory'

/** Each profile field and the card fields it is made from. */
const GROUPS: Record<Group, readonly string[]> = {
  name: ['name'],
  role: ['description', 'scenario'],
  personality: ['personality'],
  speakingStyle: ['mes_example'],
  rules: ['system_prompt', 'post_history_instructions'],
  memory: ['character_book'],
}
const GROUP_NAMES = Object.keys(GROUPS) as Group[]
const MAPPED = new Set(Object.values(GROUPS).flat())

/** V2 fields we do not map, with the value a V2 card has when it says nothing; an export writes these defaults. */
const UNMAPPED_DEFAULTS: Record<string, unknown> = {
  first_mes: '', creator_notes: '', alternate_greetings: [], tags: [], creator: '', character_version: '', extensions: {},
}
/** Field order of the V2 spec, used for exported cards so they read like every other card. */
const V2_ORDER = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example', 'creator_notes', 'system_prompt',
  'post_history_instructions', 'alternate_greetings', 'character_book', 'tags', 'creator', 'character_version', 'extensions']

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

// ---------------------------------------------------------------------------------------------------------------
// Reading

/** The JSON text inside a card chunk: base64 of UTF-8 JSON (the standard), or raw JSON (some writers). */
export function decodeChunkText(text: string, field: string): string {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) return trimmed
  const b64 = trimmed.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/')
  if (b64 === '') throw new ImportError(field, 'is empty')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new ImportError(field, 'is neither base64 nor JSON')
  if (b64.replace(/=+$/, '').length % 4 === 1) throw new ImportError(field, 'is cut short (its base64 ends mid-character); the card is truncated')
  const padded = b64.replace(/=+$/, '').padEnd(Math.ceil(b64.replace(/=+$/, '').length / 4) * 4, '=')
  return new TextDecoder().decode(fromBase64(padded))
}

/** Parse card JSON text; a text that is not complete JSON is named as truncated when it ends early. */
export function parseCardText(text: string, field: string, warnings: string[]): Card {
  if (text.length > CARD_JSON_LIMIT) {
    throw new ImportError(field, `is ${text.length} characters of JSON, over the limit of ${CARD_JSON_LIMIT}`, CARD_JSON_LIMIT)
  }
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (e) {
    const message = errorText(e)
    // A parser that stops at the very end of the text ran out of input: the card was cut short.
    const at = Number(/position (\d+)/.exec(message)?.[1])
    const ended = /end of (JSON )?input|Unterminated/i.test(message) || at >= text.trimEnd().length - 1
    const cut = ended ? '; the card looks truncated' : ''
    throw new ImportError(field, `is not valid JSON (${message})${cut}`)
  }
  return readCard(value, field, warnings)
}

/** A parsed JSON value as a card of a known spec. */
export function readCard(value: unknown, field: string, warnings: string[]): Card {
  if (!isRecord(value)) throw new ImportError(field, `is ${shapeOf(value)}, not a character card (a card is one JSON object)`)
  const { spec, spec_version: version, data, ...top } = value
  const specVersion = typeof version === 'string' ? version : version === undefined ? '' : String(version)
  if (spec === 'chara_card_v2' || spec === 'chara_card_v3') {
    if (!isRecord(data)) throw new ImportError(`${field}.data`, `must be an object (a ${spec} card keeps its fields there)`)
    return { spec, specVersion, data, top }
  }
  if (isRecord(data)) {
    warnings.push(`${field}.spec: ${spec === undefined ? 'missing' : JSON.stringify(spec)}; read as a V2 card because it has a "data" object`)
    const v3 = typeof spec === 'string' && /v3/i.test(spec)
    return { spec: v3 ? 'chara_card_v3' : 'chara_card_v2', specVersion, data, top: spec === undefined ? top : { spec, ...top } }
  }
  const shaped = shapedCard(value, field, warnings)
  return shaped.v1 ? { spec: 'chara_card_v1', specVersion: '', data: shaped.data, top: {} } : { spec: 'chara_card_v2', specVersion: '2.0', data: shaped.data, top: {} }
}

// ---------------------------------------------------------------------------------------------------------------
// Text helpers

const joinBlocks = (...parts: string[]): string => parts.map((p) => p.trim()).filter((p) => p !== '').join('\n\n')

/** A labelled line about how the character talks: "Speech: …", "Tone: …", "说话方式：…", "口头禅：…". */
const CUE = /^\s*(?:[-*•]\s*)?(?:speech|speaking(?: style)?|speech (?:style|pattern)s?|manner of speaking|voice|tone|catchphrases?|verbal tics?|说话(?:方式|习惯|风格|特点)?|口吻|语气|口头禅|口癖|语言风格)\s*[:：]\s*\S/i

/** Split speaking cues out of a text: [the rest, the cue lines]. */
function splitCues(text: string): [string, string[]] {
  const lines = text.split('\n')
  const cues = lines.filter((l) => CUE.test(l))
  return cues.length === 0 ? [text, []] : [lines.filter((l) => !CUE.test(l)).join('\n'), cues.map((l) => l.trim())]
}

/** Card macros: `{{char}}`/`<BOT>` become the character's name, `{{user}}`/`<USER>` the user. */
function substitute(text: string, char: string, user: string): string {
  return text.replace(/\{\{char\}\}|<BOT>/gi, char).replace(/\{\{user\}\}|<USER>/gi, user)
}

// ---------------------------------------------------------------------------------------------------------------
// Card → profile

/** Profile fields as an import gives them to the store (which fills ids and checks every rule). */
export interface ProfileImport {
  id?: string
  name: string
  emoji: string
  role: string
  personality: string
  speakingStyle: string
  rules: string
  memoryEnabled: boolean
  memory: MemoryImport
  createdAt?: number
  updatedAt?: number
  tools?: ToolSettings
  card?: CardExtras
}

/** What a card gives: the profile, the avatar our extension carried (JSON export), and what was not quite right. */
export interface CardImport {
  profile: ProfileImport
  /** Avatar data URL our extension carried, or '' when it says the profile had none; undefined when it says nothing. */
  avatar?: string
  /** Digest of the placeholder picture our export drew, when the PNG's picture is one (see card-png pictureDigest). */
  placeholder?: string
  /** Tool settings our extension carried, unchecked (the store's rules decide). */
  tools?: unknown
  warnings: string[]
}

type Mapped = Pick<ProfileImport, 'name' | 'role' | 'personality' | 'speakingStyle' | 'rules' | 'memory'>

/** The card fields of a group as one comparable text; an absent field counts as its default. */
function cardGroupText(data: Record<string, unknown>, g: Group): string {
  return JSON.stringify(GROUPS[g].map((k) => (k in data ? data[k] : g === 'memory' ? null : '')))
}

/** A profile value of a group as one text, for digests. */
function profileGroupText(p: Mapped, g: Group): string {
  return g === 'memory' ? JSON.stringify([p.memory.summary, p.memory.items.map((it) => it.text)]) : p[g]
}

/** The card fields a profile value gives when nothing of an original card is kept. */
function exportGroup(p: Mapped, g: Group): Record<string, unknown> {
  switch (g) {
    case 'name': return { name: p.name }
    case 'role': return { description: p.role, scenario: '' }
    case 'personality': return { personality: p.personality }
    case 'speakingStyle': return { mes_example: p.speakingStyle }
    case 'rules': return { system_prompt: p.rules, post_history_instructions: '' }
    case 'memory': {
      const book = memoryToBook(p.memory, EXTENSION_KEY)
      return book === undefined ? {} : { character_book: book }
    }
  }
}

interface Ext {
  profile: Record<string, unknown>
  digests: Record<string, unknown>
  placeholder?: string
}

function readExt(data: Record<string, unknown>): Ext | undefined {
  const ext = isRecord(data.extensions) ? data.extensions[EXTENSION_KEY] : undefined
  if (!isRecord(ext) || ext.version !== 1 || !isRecord(ext.profile) || !isRecord(ext.digests)) return undefined
  return { profile: ext.profile, digests: ext.digests, ...(typeof ext.placeholder === 'string' ? { placeholder: ext.placeholder } : {}) }
}

/** The profile fields a card's standard fields give (no extension involved). */
function mapStandard(data: Record<string, unknown>, fallbackName: string, w: string[]): Mapped {
  const f = (k: string) => asText(data[k], `data.${k}`, w)
  let name = f('name').replace(/\s+/g, ' ').trim()
  if (name === '') {
    name = fallbackName
    w.push(`data.name: the card has no name; named "${name}" after the file`)
  }
  const texts = ['description', 'personality', 'scenario', 'first_mes'].map((k) => (typeof data[k] === 'string' ? data[k] : '')).join('')
  const zh = /[\u3400-\u9fff]/.test(texts)
  const nick = typeof data.nickname === 'string' && data.nickname.trim() !== '' ? data.nickname.trim() : name
  const sub = (t: string) => substitute(t, nick, zh ? '用户' : 'the user')
  const [description, descCues] = splitCues(sub(f('description')))
  const [personality, persCues] = splitCues(sub(f('personality')))
  const scenario = sub(f('scenario')).trim()
  const noOriginal = (t: string) => t.replace(/\{\{original\}\}/gi, '')
  const kept = '; the card keeps the whole text for export'
  const fit = (text: string, limit: number, what: string) => fitText(text, limit, what, w, kept)
  return {
    name: fit(name, LIMITS.name, 'name'),
    role: fit(joinBlocks(description, scenario === '' ? '' : `${zh ? '场景：' : 'Scenario: '}${scenario}`), LIMITS.role, 'role (description + scenario)'),
    personality: fit(personality.trim(), LIMITS.personality, 'personality'),
    speakingStyle: fit(joinBlocks([...descCues, ...persCues].join('\n'), sub(f('mes_example'))), LIMITS.speakingStyle, 'speaking style (speaking cues + mes_example)'),
    rules: fit(joinBlocks(sub(noOriginal(f('system_prompt'))), sub(noOriginal(f('post_history_instructions')))), LIMITS.rules, 'ground rules (system_prompt + post_history_instructions)'),
    memory: bookToMemory(data.character_book, EXTENSION_KEY, w, sub),
  }
}

/** A group's value from our extension (the card still says what we wrote), fitted to the limits like any import. */
function fromExt(ext: Ext, g: Group, into: Mapped, w: string[]): void {
  const v = ext.profile
  if (g === 'memory') {
    into.memory = ownMemory(v.memory, `extensions.${EXTENSION_KEY}.profile.memory`, w)
    return
  }
  const text = asText(v[g], `extensions.${EXTENSION_KEY}.profile.${g}`, w)
  if (g === 'name' && text.trim() === '') return
  const limit = g === 'name' ? LIMITS.name : LIMITS[g]
  into[g] = fitText(g === 'name' ? text.replace(/\s+/g, ' ') : text, limit, g, w)
}

/** The extras to keep: unmapped fields, top-level keys, and the original fields of groups mapping cannot give back. */
function extrasOf(card: Card, p: Mapped, w: string[]): CardExtras | undefined {
  const data: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(card.data)) {
    if (MAPPED.has(k)) continue
    let value = v
    if (k === 'extensions' && isRecord(v)) {
      const { [EXTENSION_KEY]: _ours, ...rest } = v
      value = rest
    }
    if (k in UNMAPPED_DEFAULTS && same(value, UNMAPPED_DEFAULTS[k])) continue
    data[k] = value
  }
  const top: Record<string, unknown> = {}
  const mirror: string[] = []
  for (const [k, v] of Object.entries(card.top)) {
    if (k in card.data && same(v, card.data[k])) mirror.push(k)
    else top[k] = v
  }
  const originals: NonNullable<CardExtras['originals']> = {}
  for (const g of GROUP_NAMES) {
    if (cardGroupText(card.data, g) === cardGroupText(exportGroup(p, g), g)) continue
    const fields = Object.fromEntries(GROUPS[g].filter((k) => k in card.data).map((k) => [k, card.data[k]]))
    originals[g] = { digest: digest(profileGroupText(p, g)), fields }
  }
  const extras: CardExtras = { spec: card.spec, specVersion: card.specVersion, data }
  if (Object.keys(top).length > 0) extras.top = top
  if (mirror.length > 0) extras.mirror = mirror
  if (Object.keys(originals).length > 0) extras.originals = originals
  const empty = Object.keys(data).length === 0 && extras.top === undefined && extras.mirror === undefined && extras.originals === undefined
  if (empty && card.spec !== 'chara_card_v3') return undefined
  return capExtras(extras, w)
}

/** Drop the largest kept pieces until the extras fit LIMITS.card, naming each one dropped. */
function capExtras(extras: CardExtras, w: string[]): CardExtras {
  const size = () => JSON.stringify(extras).length
  while (size() > LIMITS.card) {
    const pieces: [Record<string, unknown>, string, string][] = [
      ...Object.keys(extras.data).map((k): [Record<string, unknown>, string, string] => [extras.data, k, `data.${k}`]),
      ...Object.keys(extras.top ?? {}).map((k): [Record<string, unknown>, string, string] => [extras.top!, k, k]),
      ...Object.keys(extras.originals ?? {}).map((k): [Record<string, unknown>, string, string] => [extras.originals!, k, `the original card fields of ${k}`]),
    ]
    const sized = pieces.map((p) => ({ p, n: JSON.stringify(p[0][p[1]]).length })).sort((a, b) => b.n - a.n)
    const [holder, key, label] = sized[0]!.p
    delete holder[key]
    w.push(`card extras: ${label} (${sized[0]!.n} characters) not kept: what a profile keeps of a card is limited to ${LIMITS.card} characters; an exported card will not carry it`)
  }
  return extras
}

const safeInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined)

/**
 * A card as profile fields. Our own extension is trusted only group by group, where the card's fields still digest
 * to what our export wrote; anything another tool edited since is mapped from the card itself.
 */
export function cardToProfile(card: Card, fallbackName: string): CardImport {
  const warnings: string[] = []
  const ext = readExt(card.data)
  const mapped = mapStandard(card.data, fallbackName, warnings)
  if (ext !== undefined) {
    for (const g of GROUP_NAMES) if (ext.digests[g] === digest(cardGroupText(card.data, g))) fromExt(ext, g, mapped, warnings)
  }
  const e = ext?.profile ?? {}
  const emoji = typeof e.emoji === 'string' && e.emoji.length <= LIMITS.emoji && !/[\r\n]/.test(e.emoji) ? e.emoji : '🎭'
  const profile: ProfileImport = { ...mapped, emoji, memoryEnabled: typeof e.memoryEnabled === 'boolean' ? e.memoryEnabled : true }
  if (typeof e.id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(e.id)) profile.id = e.id
  const createdAt = safeInt(e.createdAt)
  const updatedAt = safeInt(e.updatedAt)
  if (createdAt !== undefined && updatedAt !== undefined) Object.assign(profile, { createdAt, updatedAt })
  const extras = extrasOf(card, mapped, warnings)
  if (extras !== undefined) profile.card = extras
  const out: CardImport = { profile, warnings }
  if (typeof e.avatar === 'string') out.avatar = e.avatar
  if (ext?.placeholder !== undefined) out.placeholder = ext.placeholder
  if (e.tools !== undefined) out.tools = e.tools
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Profile → card

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
    const fields = kept !== undefined && kept.digest === digest(profileGroupText(p, g)) ? kept.fields : exportGroup(p, g)
    for (const k of GROUPS[g]) if (g !== 'memory') mapped[k] = ''
    Object.assign(mapped, fields)
  }
  const merged: Record<string, unknown> = { ...UNMAPPED_DEFAULTS, ...extras?.data, ...mapped }
  const data: Record<string, unknown> = {}
  for (const k of V2_ORDER) if (k in merged) data[k] = merged[k]
  for (const [k, v] of Object.entries(merged)) if (!(k in data)) data[k] = v
  const digests = Object.fromEntries(GROUP_NAMES.map((g) => [g, digest(cardGroupText(data, g))]))
  const { id, name, emoji, role, personality, speakingStyle, rules, memoryEnabled, memory, createdAt, updatedAt, avatar } = p
  const own: Record<string, unknown> = { id, name, emoji, role, personality, speakingStyle, rules, memoryEnabled, memory: memoryCopy(memory), createdAt, updatedAt }
  if (options.avatarInExtension) own.avatar = avatar
  if (p.tools !== undefined) own.tools = p.tools
  const ext: Record<string, unknown> = { version: 1, profile: own, digests }
  if (options.placeholder !== undefined) ext.placeholder = options.placeholder
  data.extensions = { ...(isRecord(data.extensions) ? data.extensions : {}), [EXTENSION_KEY]: ext }
  const top: Record<string, unknown> = {}
  for (const k of extras?.mirror ?? []) if (k in data) top[k] = data[k]
  Object.assign(top, extras?.top)
  const out: CardExport = { v2: { spec: 'chara_card_v2', spec_version: '2.0', data, ...top } }
  if (extras?.spec === 'chara_card_v3') out.v3 = { spec: 'chara_card_v3', spec_version: extras.specVersion || '3.0', data, ...top }
  return out
}

function memoryCopy(m: Memory): Memory {
  return { summary: m.summary, items: m.items.map((it) => ({ ...it })) }
}
