/**
 * Reading the files of `profiles.importFiles`: one file argument checked and read into the envelope payload the
 * import merges (a card, Markdown file or envelope as one profile or more), with the warnings its reading gave, or
 * the precise reason it cannot be imported. The slow, input-sized half of an import — decoding, parsing, walking a
 * file from the internet — and pure, so it runs in the import worker (lib/http/import-pool.ts) as well as in the
 * command itself. It never sees the state, and never throws for a file: every outcome is data.
 */
import { LIMITS } from '../state/model.ts'
import { CHARX_LIMITS, isZip, mainIcon, openCharx } from '../interop/card-charx.ts'
import { CARD_CHUNK_LIMIT, isBase64, pictureDigest, readPngCard, toBase64 } from '../shared/card-png.ts'
import { Warnings, checkJson } from '../interop/bounds.ts'
import { errorText } from '../shared/errors.ts'
import { isInvisible, wellFormed, withoutBidi } from '../shared/safe-text.ts'
import { ImportError } from '../shared/card-text.ts'
import { decodeChunkText, parseCardText, type Card } from '../interop/card-read.ts'
import { cardToProfile, type ProfileImport } from '../interop/card-to-profile.ts'
import { markdownToProfile } from '../interop/markdown.ts'
import { PngError, isPng } from '../shared/png.ts'
import { ENVELOPE_FORMAT } from './transfer.ts'
import { StoreError, avatar as checkAvatar, invalid, onlyKeys, record, text } from '../validate/state.ts'
import { toolSettings } from '../validate/tools.ts'
import { MAX_DEPTH } from '../validate/core.ts'
import { CARD_FILE_LIMIT, FILE_FORMATS, type FileFormat, type ImportFile } from '../shared/contract.ts'

/** Characters of a text file (Markdown, JSON card, envelope) we read. */
export const TEXT_FILE_LIMIT = 16 * 1024 * 1024


/** The file name without its folder and extension, as a profile name of last resort. */
function stem(name: string): string {
  const base = withoutBidi(wellFormed(name.split(/[\\/]/).pop() ?? ''))
  const bare = base.replace(/\.[^.]+$/, '').trim()
  return isInvisible(bare) ? '导入的配置' : bare
}

/** Check one file argument; refusals name `files[i].<key>` and the limit. */
function fileArg(v: unknown, field: string): ImportFile {
  const o = record(v, field)
  onlyKeys(o, ['name', 'format', 'text', 'data', 'avatar'], field)
  const name = text(o.name, `${field}.name`, { limit: 255, singleLine: true, required: true })
  if (!(FILE_FORMATS as readonly unknown[]).includes(o.format)) throw invalid(`${field}.format`, `must be one of ${FILE_FORMATS.join(', ')}`)
  if ((o.text === undefined) === (o.data === undefined)) throw invalid(field, 'must carry either text or data')
  const file: ImportFile = { name, format: o.format as FileFormat }
  if (o.text !== undefined) {
    if (typeof o.text !== 'string') throw invalid(`${field}.text`, 'must be a string')
    if (o.text.length > TEXT_FILE_LIMIT) throw invalid(`${field}.text`, `is ${o.text.length} characters, over the limit of ${TEXT_FILE_LIMIT}`, TEXT_FILE_LIMIT)
    file.text = o.text
  }
  if (o.data !== undefined) {
    if (typeof o.data !== 'string' || !isBase64(o.data)) throw invalid(`${field}.data`, 'must be base64')
    const bytes = Math.floor((o.data.length * 3) / 4)
    if (bytes > CARD_FILE_LIMIT) throw invalid(`${field}.data`, `is about ${bytes} bytes, over the limit of ${CARD_FILE_LIMIT}`, CARD_FILE_LIMIT)
    file.data = o.data
  }
  if (o.avatar !== undefined) file.avatar = checkAvatar(o.avatar, `${field}.avatar`)
  return file
}

/** An avatar our extension carried, if the store would accept it; otherwise none, said as a warning. */
function carriedAvatar(value: string | undefined, warnings: string[]): string {
  if (value === undefined || value === '') return ''
  try {
    return checkAvatar(value, 'avatar')
  } catch (e) {
    warnings.push(`the avatar the card carries is not used: ${(e as Error).message}`)
    return ''
  }
}

/** The card in a PNG file and the avatar it gives. */
function pngCard(bytes: Uint8Array, file: ImportFile, warnings: string[]): { card: Card; avatar: (carried?: string, placeholder?: string) => string } {
  const parts = readPngCard(bytes)
  const cut = parts.truncated === undefined ? '' : ` (the file is cut short: ${parts.truncated})`
  if (parts.texts.length === 0) throw new ImportError('file', `is a PNG without a character card: it has no tEXt chunk named "ccv3" or "chara"${cut}`)
  let card: Card | undefined
  const failures: ImportError[] = []
  for (const { keyword, text: chunkText } of parts.texts) {
    const field = `chunk ${keyword}`
    try {
      card = parseCardText(decodeChunkText(chunkText, field), field, warnings)
      break
    } catch (e) {
      if (!(e instanceof ImportError)) throw e
      failures.push(e)
    }
  }
  if (card === undefined) throw failures[0]!
  for (const f of failures) warnings.push(`${f.message}; the next card chunk was used`)
  if (parts.skipped > 0) warnings.push(`${parts.skipped} more card chunks after the first ${CARD_CHUNK_LIMIT} were not read`)
  if (cut !== '') warnings.push(`the picture is not used as the avatar${cut}`)
  const avatar = (carried?: string, placeholder?: string): string => {
    if (placeholder !== undefined && placeholder === pictureDigest(parts.chunks)) return carriedAvatar(carried, warnings)
    if (file.avatar !== undefined) return file.avatar
    if (parts.picture === undefined) return ''
    return pictureAvatar('png', parts.picture, warnings, '; import the card from the settings page (it shrinks the picture) or pick an avatar')
  }
  return { card, avatar }
}

/** Picture bytes as an avatar, if the store would take them; else none, and a warning that says why (and `hint`). */
function pictureAvatar(type: string, bytes: Uint8Array, warnings: string[], hint: string): string {
  // Measured before it is built: a 20 MB picture would be a 27 M-character string only to be refused.
  const length = `data:image/${type};base64,`.length + 4 * Math.ceil(bytes.length / 3)
  if (length <= LIMITS.avatar) return carriedAvatar(`data:image/${type};base64,${toBase64(bytes)}`, warnings)
  warnings.push(`the picture is ${length} characters as a data URL, over the avatar limit of ${LIMITS.avatar}${hint}`)
  return ''
}

/** Image types a CHARX icon may be, by its extension (a Map: an extension `constructor` must not find Object's). */
const ICON_TYPES = new Map(Object.entries({ png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', gif: 'gif' }))

/** The card in a CHARX (its `card.json`) and the avatar its main icon gives. */
function charxCard(bytes: Uint8Array, warnings: string[]): { card: Card; avatar: (carried?: string) => string } {
  const zip = openCharx(bytes)
  if (!zip.names.has('card.json')) throw new ImportError('file', 'is a zip without a card.json at its top; a CHARX keeps its card there')
  const card = parseCardText(new TextDecoder().decode(zip.read('card.json', CHARX_LIMITS.card, 'card.json')), 'card.json', warnings)
  const avatar = (carried?: string): string => {
    if (carried !== undefined) return carriedAvatar(carried, warnings)
    const icon = mainIcon(card.data)
    if (icon === undefined) return ''
    const type = ICON_TYPES.get(icon.ext)
    if (type === undefined) {
      warnings.push(`asset ${icon.path}: a .${icon.ext} picture is not an avatar type (PNG, JPEG, WebP, GIF); the profile has no avatar`)
      return ''
    }
    try {
      const picture = zip.read(icon.path, CHARX_LIMITS.icon, `asset ${icon.path}`)
      const drawn = type === 'png' && isPng(picture) ? readPngCard(picture).picture ?? picture : picture
      return pictureAvatar(type, drawn, warnings, '; pick an avatar for it in the settings page')
    } catch (e) {
      if (!(e instanceof ImportError) && !(e instanceof PngError)) throw e
      warnings.push(`${e.message}; the profile has no avatar`)
      return ''
    }
  }
  return { card, avatar }
}

/** One card, Markdown or envelope file as the payload `state.import` merges. */
function payloadOf(file: ImportFile, warnings: Warnings): unknown {
  if (file.format === 'envelope') {
    const json = file.text ?? Buffer.from(file.data!, 'base64').toString('utf8')
    // The store's own plain-JSON nesting limit, checked before the text is parsed. No count of values: a whole backup
    // (200 profiles, 500 memories each) is an envelope, and the user's own.
    checkJson(json, 'file', { depth: MAX_DEPTH, values: Infinity })
    try {
      return JSON.parse(json)
    } catch (e) {
      throw new ImportError('file', `is not valid JSON (${(e as Error).message})`)
    }
  }
  let profile: ProfileImport & { avatar?: string }
  if (file.format === 'markdown') {
    const read = markdownToProfile(file.text ?? Buffer.from(file.data!, 'base64').toString('utf8'), stem(file.name))
    warnings.addAll(read.warnings)
    profile = read.profile
  } else {
    const bytes = file.data === undefined ? undefined : Buffer.from(file.data, 'base64')
    const png = bytes !== undefined && isPng(bytes) ? pngCard(bytes, file, warnings) : undefined
    const charx = png === undefined && bytes !== undefined && isZip(bytes) ? charxCard(bytes, warnings) : undefined
    const card = png?.card ?? charx?.card ?? parseCardText(file.text ?? bytes!.toString('utf8'), 'file', warnings)
    const read = cardToProfile(card, stem(file.name))
    warnings.addAll(read.warnings)
    const avatar = png !== undefined ? png.avatar(read.avatar, read.placeholder) : charx !== undefined ? charx.avatar(read.avatar) : carriedAvatar(read.avatar, warnings)
    profile = { ...read.profile, avatar }
    if (read.tools !== undefined) {
      try {
        profile.tools = toolSettings(read.tools, 'tools')
      } catch (e) {
        warnings.push(`the tool settings the card carries are not used: ${(e as Error).message}`)
      }
    }
  }
  return { format: ENVELOPE_FORMAT, version: 1, profiles: [profile] }
}

/** Why one file was not imported, as its outcome says it. */
export interface FileError {
  message: string
  field?: string
  limit?: number
}

/** One file argument as read: its payload and warnings, why it cannot be imported, or why the command is refused. */
export interface FileRead {
  name: string
  format: FileFormat
  /** The envelope payload `state.import` would take, when the file could be read. */
  payload?: unknown
  warnings: string[]
  /** Why this file cannot be imported (the others still are). */
  error?: FileError
  /** A malformed argument (not a file's content): the whole command is refused with it. */
  refused?: FileError
}

/** A refusal as the file's outcome; paths inside our one-profile payload are shortened to the profile field. */
export function failure(e: ImportError | StoreError, format: FileFormat): FileError {
  const strip = (s: string) => (format === 'envelope' ? s : s.replace(/^payload\.profiles\[0\]\.?/, ''))
  const out: FileError = { message: strip(e.message) }
  if (e.field !== undefined) out.field = strip(e.field) || 'file'
  if (e.limit !== undefined) out.limit = e.limit
  return out
}

/** What a thrown value costs one file: whatever it is, only that file. */
export function fileFailure(e: unknown, format: FileFormat): FileError {
  if (e instanceof PngError) return { message: `file: ${e.message}`, field: 'file' }
  if (e instanceof ImportError || e instanceof StoreError) return failure(e, format)
  return { message: `file: could not be read (${errorText(e)})`, field: 'file' }
}

/** Read the `index`th file argument of the command. Never throws. */
export function readFile(v: unknown, index: number): FileRead {
  let file: ImportFile
  try {
    file = fileArg(v, `files[${index}]`)
  } catch (e) {
    const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {}
    const name = typeof o.name === 'string' ? o.name.slice(0, 255) : ''
    const refused = e instanceof StoreError ? { message: e.message, ...(e.field === undefined ? {} : { field: e.field }), ...(e.limit === undefined ? {} : { limit: e.limit }) } : { message: `files[${index}]: ${errorText(e)}` }
    return { name, format: 'card', warnings: [], refused }
  }
  const warnings = new Warnings()
  try {
    const payload = payloadOf(file, warnings)
    return { name: file.name, format: file.format, payload, warnings: warnings.list() }
  } catch (e) {
    return { name: file.name, format: file.format, warnings: warnings.list(), error: fileFailure(e, file.format) }
  }
}
