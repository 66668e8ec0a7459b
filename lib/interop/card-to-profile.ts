/**
 * Character Card V1/V2/V3 → profile fields. Owns the mapping a user relies on (speaking cues such as "Speech: …" in
 * description or personality join mes_example as the speaking style; `{{char}}`/`{{user}}` replaced everywhere), our
 * own extension trusted only group by group where the card still digests to what we wrote, and the card extras
 * (state/model.ts `CardExtras`) that let an exported card carry back out everything an imported card brought.
 * creator_notes, first_mes and the rest are never injected: they stay in the extras (the greetings named in the
 * report). Pure: no I/O and no store; it never parses card JSON (card-read.ts) or builds a card (profile-to-card.ts);
 * files and commands are in lib/commands/file-import.ts.
 */
import { LIMITS, type CardExtras, type ModelChoice, type ToolSettings } from '../state/model.ts'
import { digest } from '../shared/card-png.ts'
import { bookToMemory, ownMemory } from './card-book.ts'
import { asText, cleanName, fit as fitText } from '../shared/card-text.ts'
import { note, type ImportNote } from '../shared/import-notes.ts'
import { isInvisible } from '../shared/safe-text.ts'
import { Warnings } from './bounds.ts'
import { EXTENSION_KEY } from '../shared/files.ts'
import { isRecord } from '../validate/core.ts'
import type { Card } from './card-read.ts'
import {
  GROUPS,
  GROUP_NAMES,
  MAPPED,
  UNMAPPED_DEFAULTS,
  cardGroupText,
  exportGroup,
  profileGroupText,
  type Group,
  type MappedFields,
} from './card-fields.ts'

/** JSON equality; strings and other plain values compared as they are, without writing out a 4 M-character text. */
const same = (a: unknown, b: unknown): boolean =>
  a === b ||
  (typeof a === 'object' &&
    typeof b === 'object' &&
    a !== null &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b))

/**
 * Characters of text a value holds (keys aside): a lower bound of its JSON's length found without building that JSON,
 * so pieces far over a limit are known to be without writing them out.
 */
function textLength(v: unknown): number {
  if (typeof v === 'string') return v.length
  if (typeof v !== 'object' || v === null) return 0
  let n = 0
  for (const x of Array.isArray(v) ? v : Object.values(v)) n += textLength(x)
  return n
}

const joinBlocks = (...parts: string[]): string =>
  parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n')

/** A labelled line about how the character talks: "Speech: …", "Tone: …", "说话方式：…", "口头禅：…". */
const CUE =
  /^\s*(?:[-*•]\s*)?(?:speech|speaking(?: style)?|speech (?:style|pattern)s?|manner of speaking|voice|tone|catchphrases?|verbal tics?|说话(?:方式|习惯|风格|特点)?|口吻|语气|口头禅|口癖|语言风格)\s*[:：]\s*\S/i

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

/** Profile fields as an import gives them to the store (which fills ids and checks every rule). */
export interface ProfileImport extends MappedFields {
  id?: string
  emoji: string
  memoryEnabled: boolean
  createdAt?: number
  updatedAt?: number
  tools?: ToolSettings
  /** From a Markdown file's `model: provider/model`; a Character Card has no such field. */
  model?: ModelChoice
  card?: CardExtras
}

/** What a card gives: the profile, the avatar our extension carried (JSON export), and what was not quite right. */
export interface CardImport {
  profile: ProfileImport
  /** Avatar data URL our extension carried, or '' when it says the profile had none; undefined when it says nothing. */
  avatar?: string
  /** Digest of the picture our export drew in place of the avatar (a tile, or the avatar redrawn as a PNG), when the
   * PNG's picture is one (see card-png pictureDigest): the carried avatar then stands for it. */
  placeholder?: string
  /** Tool settings our extension carried, unchecked (the store's rules decide). */
  tools?: unknown
  warnings: ImportNote[]
}

interface Ext {
  profile: Record<string, unknown>
  digests: Record<string, unknown>
  placeholder?: string
}

function readExt(data: Record<string, unknown>): Ext | undefined {
  const ext = isRecord(data.extensions) ? data.extensions[EXTENSION_KEY] : undefined
  if (!isRecord(ext) || ext.version !== 1 || !isRecord(ext.profile) || !isRecord(ext.digests)) return undefined
  return {
    profile: ext.profile,
    digests: ext.digests,
    ...(typeof ext.placeholder === 'string' ? { placeholder: ext.placeholder } : {}),
  }
}

/** The profile fields a card's standard fields give (no extension involved). */
function mapStandard(data: Record<string, unknown>, fallbackName: string, w: ImportNote[]): MappedFields {
  const f = (k: string) => asText(data[k], `data.${k}`, w)
  let name = cleanName(f('name'), 'data.name', w).replace(/\s+/g, ' ').trim()
  if (isInvisible(name)) {
    name = fallbackName
    w.push(note('unnamed', { name }))
  }
  const texts = ['description', 'personality', 'scenario', 'first_mes']
    .map((k) => (typeof data[k] === 'string' ? data[k] : ''))
    .join('')
  const zh = /[\u3400-\u9fff]/.test(texts)
  const nick = typeof data.nickname === 'string' && data.nickname.trim() !== '' ? data.nickname.trim() : name
  const sub = (t: string) => substitute(t, nick, zh ? '用户' : 'the user')
  const [description, descCues] = splitCues(sub(f('description')))
  const [personality, persCues] = splitCues(sub(f('personality')))
  const scenario = sub(f('scenario')).trim()
  const noOriginal = (t: string) => t.replace(/\{\{original\}\}/gi, '')
  const fit = (text: string, limit: number, what: string) => fitText(text, limit, what, w, true)
  return {
    name: fit(name, LIMITS.name, 'name'),
    role: fit(
      joinBlocks(description, scenario === '' ? '' : `${zh ? '场景：' : 'Scenario: '}${scenario}`),
      LIMITS.role,
      'role (description + scenario)',
    ),
    personality: fit(personality.trim(), LIMITS.personality, 'personality'),
    speakingStyle: fit(
      joinBlocks([...descCues, ...persCues].join('\n'), sub(f('mes_example'))),
      LIMITS.speakingStyle,
      'speaking style (speaking cues + mes_example)',
    ),
    rules: fit(
      joinBlocks(sub(noOriginal(f('system_prompt'))), sub(noOriginal(f('post_history_instructions')))),
      LIMITS.rules,
      'ground rules (system_prompt + post_history_instructions)',
    ),
    memory: bookToMemory(data.character_book, EXTENSION_KEY, w, sub),
  }
}

/** A group's value from our extension (the card still says what we wrote), fitted to the limits like any import. */
function fromExt(ext: Ext, g: Group, into: MappedFields, w: ImportNote[]): void {
  const v = ext.profile
  if (g === 'memory') {
    into.memory = ownMemory(v.memory, `extensions.${EXTENSION_KEY}.profile.memory`, w)
    return
  }
  const field = `extensions.${EXTENSION_KEY}.profile.${g}`
  const text = g === 'name' ? cleanName(asText(v[g], field, w), field, w) : asText(v[g], field, w)
  if (g === 'name' && isInvisible(text)) return
  const limit = g === 'name' ? LIMITS.name : LIMITS[g]
  into[g] = fitText(g === 'name' ? text.replace(/\s+/g, ' ') : text, limit, g, w)
}

/** The extras to keep: unmapped fields, top-level keys, and the original fields of groups mapping cannot give back. */
function extrasOf(card: Card, p: MappedFields, w: ImportNote[]): CardExtras | undefined {
  const data: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(card.data)) {
    if (MAPPED.has(k)) continue
    let value = v
    if (k === 'extensions' && isRecord(v)) {
      const { [EXTENSION_KEY]: _ours, ...rest } = v
      value = rest
    }
    if (Object.hasOwn(UNMAPPED_DEFAULTS, k) && same(value, UNMAPPED_DEFAULTS[k])) continue
    data[k] = value
  }
  const top: Record<string, unknown> = {}
  const mirror: string[] = []
  for (const [k, v] of Object.entries(card.top)) {
    if (Object.hasOwn(card.data, k) && same(v, card.data[k])) mirror.push(k)
    else top[k] = v
  }
  const originals: NonNullable<CardExtras['originals']> = {}
  for (const g of GROUP_NAMES) {
    const exported = cardGroupText(exportGroup(p, g), g)
    // A card group holding more text than the profile's whole group cannot be the same: no need to write it out.
    if (textLength(GROUPS[g].map((k) => card.data[k])) <= exported.length && cardGroupText(card.data, g) === exported)
      continue
    const fields = Object.fromEntries(
      GROUPS[g].filter((k) => Object.hasOwn(card.data, k)).map((k) => [k, card.data[k]]),
    )
    originals[g] = { digest: digest(profileGroupText(p, g)), fields }
  }
  const extras: CardExtras = { spec: card.spec, specVersion: card.specVersion, data }
  if (Object.keys(top).length > 0) extras.top = top
  if (mirror.length > 0) extras.mirror = mirror
  if (Object.keys(originals).length > 0) extras.originals = originals
  const empty =
    Object.keys(data).length === 0 &&
    extras.top === undefined &&
    extras.mirror === undefined &&
    extras.originals === undefined
  if (empty && card.spec !== 'chara_card_v3') return undefined
  return capExtras(extras, w)
}

/** Pieces a warning names when extras are dropped; the rest are counted. */
const NAMED_DROPS = 5

/**
 * Drop the largest kept pieces until the extras fit LIMITS.card, saying which. A piece holding more text than the
 * limit goes first, unmeasured; every other piece is measured once and the total worked out from those sizes (a
 * piece's JSON plus its key, a colon and a comma), so a card of 4,000 unknown keys costs one pass and a sort, not a
 * re-serialisation per key dropped; the total is checked for real before the loop ends.
 */
function capExtras(extras: CardExtras, w: ImportNote[]): CardExtras {
  // A dropped piece is named by its key in the card, the one name the user can find it by.
  const holders = [extras.data, extras.top, extras.originals]
  const pieces: { holder: Record<string, unknown>; key: string; n: number }[] = []
  const dropped: typeof pieces = []
  for (const holder of holders) {
    if (holder === undefined) continue
    for (const key of Object.keys(holder)) {
      // A piece holding more text than the limit goes without being written out (a 4 M-character description).
      const text = textLength(holder[key])
      if (text > LIMITS.card) {
        delete holder[key]
        dropped.push({ holder, key, n: text })
      } else pieces.push({ holder, key, n: JSON.stringify(holder[key]).length })
    }
  }
  let size = JSON.stringify(extras).length
  if (size <= LIMITS.card && dropped.length === 0) return extras
  pieces.sort((a, b) => b.n - a.n)
  for (const piece of pieces) {
    if (size <= LIMITS.card) {
      size = JSON.stringify(extras).length
      if (size <= LIMITS.card) break
    }
    delete piece.holder[piece.key]
    dropped.push(piece)
    size -= piece.n + JSON.stringify(piece.key).length + 2
  }
  const names = dropped
    .slice(0, NAMED_DROPS)
    .map((p) => p.key.slice(0, 60))
    .join(', ')
  if (dropped.length > 0)
    w.push(
      note('extrasDropped', {
        names,
        count: dropped.length,
        more: Math.max(0, dropped.length - NAMED_DROPS),
        limit: LIMITS.card,
      }),
    )
  return extras
}

/**
 * Name the greetings a card brought: the first thing a user of the card saw, which a profile has no place for (dsh
 * conversations start with the user's message, and a greeting the model never said would put words in its mouth).
 * They stay in the extras, so an exported card carries them; a greeting the extras had to drop is named by that
 * warning instead.
 */
function greetingNote(extras: CardExtras | undefined, w: ImportNote[]): void {
  const first = extras?.data.first_mes
  const others = extras?.data.alternate_greetings
  const length = typeof first === 'string' && first.trim() !== '' ? first.length : 0
  const count = Array.isArray(others) ? others.filter((g) => typeof g === 'string' && g.trim() !== '').length : 0
  if (length + count > 0) w.push(note('greetings', { length, count }))
}

const safeInt = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined

/**
 * A card as profile fields. Our own extension is trusted only group by group, where the card's fields still digest
 * to what our export wrote; anything another tool edited since is mapped from the card itself.
 */
export function cardToProfile(card: Card, fallbackName: string): CardImport {
  const warnings = new Warnings()
  const ext = readExt(card.data)
  const mapped = mapStandard(card.data, fallbackName, warnings)
  if (ext !== undefined) {
    for (const g of GROUP_NAMES)
      if (ext.digests[g] === digest(cardGroupText(card.data, g))) fromExt(ext, g, mapped, warnings)
  }
  const e = ext?.profile ?? {}
  const emoji =
    typeof e.emoji === 'string' && e.emoji.length <= LIMITS.emoji && !/[\r\n]/.test(e.emoji) ? e.emoji : '🎭'
  const profile: ProfileImport = {
    ...mapped,
    emoji,
    memoryEnabled: typeof e.memoryEnabled === 'boolean' ? e.memoryEnabled : true,
  }
  if (typeof e.id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(e.id)) profile.id = e.id
  const createdAt = safeInt(e.createdAt)
  const updatedAt = safeInt(e.updatedAt)
  if (createdAt !== undefined && updatedAt !== undefined) Object.assign(profile, { createdAt, updatedAt })
  const extras = extrasOf(card, mapped, warnings)
  if (extras !== undefined) profile.card = extras
  greetingNote(extras, warnings)
  const out: CardImport = { profile, warnings }
  if (typeof e.avatar === 'string') out.avatar = e.avatar
  if (ext?.placeholder !== undefined) out.placeholder = ext.placeholder
  if (e.tools !== undefined) out.tools = e.tools
  return out
}
