/**
 * Reading the files of `profiles.importFiles`: one file argument checked and read into the profiles (checked as the
 * store keeps them) the import merges (a card, Markdown file or envelope as one profile or more), with the warnings its reading gave, or
 * the precise reason it cannot be imported. The slow, input-sized half of an import — decoding, parsing, walking a
 * file from the internet — and pure, so it runs in the import worker (lib/http/import-pool.ts) as well as in the
 * command itself. It never sees the state, and never throws for a file: every outcome is data.
 */
import { LIMITS } from '../state/model.ts'
import { CHARX_LIMITS, isZip, mainIcon, openCharx } from '../interop/card-charx.ts'
import { CARD_CHUNK_LIMIT, pictureDigest, readPngCard, toBase64 } from '../shared/card-png.ts'
import { Warnings, checkJson } from '../interop/bounds.ts'
import { errorText } from '../shared/errors.ts'
import { isInvisible, wellFormed, withoutBidi } from '../shared/safe-text.ts'
import { note, type FileError, type ImportNote } from '../shared/import-notes.ts'
import { decodeChunkText, parseCardText, type Card } from '../interop/card-read.ts'
import { cardToProfile, type ProfileImport } from '../interop/card-to-profile.ts'
import { markdownToProfile } from '../interop/markdown.ts'
import { isPng } from '../shared/png.ts'
import { ENVELOPE_FORMAT, readPayload, type Incoming } from './transfer.ts'
import { suggestionNote } from './model-suggestion.ts'
import type { OpContext } from './kit.ts'
import { avatar as checkAvatar } from '../validate/state.ts'
import { ImportFileSchema } from '../shared/schema-commands.ts'
import { FILE_BOUNDS, OWN_FILE_BOUNDS } from '../shared/files.ts'
import { toolSettings } from '../validate/tools.ts'
import { MAX_DEPTH, parse } from '../validate/core.ts'
import type { FileFormat, ImportFile } from '../shared/command-inputs.ts'
import { ImportError, PngError, StoreError } from '../shared/errors.ts'

/** The file name without its folder and extension, as a profile name of last resort. */
function stem(name: string): string {
  const base = withoutBidi(wellFormed(name.split(/[\\/]/).pop() ?? ''))
  const bare = base.replace(/\.[^.]+$/, '').trim()
  return isInvisible(bare) ? '导入的配置' : bare
}

/** Check one file argument; refusals name `files[i].<key>` and the limit. */
function withCheckedAvatar(file: ImportFile, field: string): ImportFile {
  return file.avatar === undefined ? file : { ...file, avatar: checkAvatar(file.avatar, `${field}.avatar`) }
}

/** An avatar our extension carried, if the store would accept it; otherwise none, said as a warning. */
function carriedAvatar(value: string | undefined, warnings: ImportNote[]): string {
  if (value === undefined || value === '') return ''
  try {
    return checkAvatar(value, 'avatar')
  } catch {
    warnings.push(note('avatarUnusable'))
    return ''
  }
}

/** The card in a PNG file and the avatar it gives. */
function pngCard(
  bytes: Uint8Array,
  file: ImportFile,
  warnings: ImportNote[],
): { card: Card; avatar: (carried?: string, placeholder?: string) => string } {
  const parts = readPngCard(bytes)
  const cut = parts.truncated !== undefined
  if (parts.texts.length === 0) throw new ImportError('file', cut ? 'truncated' : 'pngNoCard')
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
  if (failures.length > 0) warnings.push(note('chunkSkipped', { count: failures.length }))
  if (parts.skipped > 0) warnings.push(note('chunksNotRead', { count: parts.skipped, limit: CARD_CHUNK_LIMIT }))
  if (cut) warnings.push(note('pictureCut'))
  const avatar = (carried?: string, placeholder?: string): string => {
    if (placeholder !== undefined && placeholder === pictureDigest(parts.chunks))
      return carriedAvatar(carried, warnings)
    if (file.avatar !== undefined) return file.avatar
    if (parts.picture === undefined) return ''
    return pictureAvatar('png', parts.picture, warnings, 'pictureTooBig')
  }
  return { card, avatar }
}

/** Picture bytes as an avatar, if the store would take them; else none, and a warning (`key`) that says why. */
function pictureAvatar(
  type: string,
  bytes: Uint8Array,
  warnings: ImportNote[],
  key: 'pictureTooBig' | 'iconTooBig',
): string {
  // Measured before it is built: a 20 MB picture would be a 27 M-character string only to be refused.
  const length = `data:image/${type};base64,`.length + 4 * Math.ceil(bytes.length / 3)
  if (length <= LIMITS.avatar) return carriedAvatar(`data:image/${type};base64,${toBase64(bytes)}`, warnings)
  warnings.push(note(key, { length, limit: LIMITS.avatar }))
  return ''
}

/** Image types a CHARX icon may be, by its extension (a Map: an extension `constructor` must not find Object's). */
const ICON_TYPES = new Map(Object.entries({ png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', gif: 'gif' }))

/** The card in a CHARX (its `card.json`) and the avatar its main icon gives. */
function charxCard(bytes: Uint8Array, warnings: ImportNote[]): { card: Card; avatar: (carried?: string) => string } {
  const zip = openCharx(bytes)
  if (!zip.names.has('card.json')) throw new ImportError('file', 'charxNoCard')
  const card = parseCardText(
    new TextDecoder().decode(zip.read('card.json', CHARX_LIMITS.card, 'card.json')),
    'card.json',
    warnings,
  )
  const avatar = (carried?: string): string => {
    if (carried !== undefined) return carriedAvatar(carried, warnings)
    const icon = mainIcon(card.data)
    if (icon === undefined) return ''
    const type = ICON_TYPES.get(icon.ext)
    if (type === undefined) {
      warnings.push(note('iconType', { ext: icon.ext.slice(0, 16) }))
      return ''
    }
    try {
      const picture = zip.read(icon.path, CHARX_LIMITS.icon, `asset ${icon.path}`)
      const drawn = type === 'png' && isPng(picture) ? (readPngCard(picture).picture ?? picture) : picture
      return pictureAvatar(type, drawn, warnings, 'iconTooBig')
    } catch (e) {
      if (!(e instanceof ImportError) && !(e instanceof PngError)) throw e
      warnings.push(note('iconUnreadable'))
      return ''
    }
  }
  return { card, avatar }
}

/**
 * Refuse an envelope past what a file from the internet may bring (FILE_BOUNDS: its values, profiles, or items of one
 * profile) with `largeFile` and what it holds, for the page to ask whether the file is the user's own; sent again as
 * their own, it may bring up to OWN_FILE_BOUNDS. The walk is as long as the profile list (capped), not the file.
 */
function askIfLarge(value: unknown, values: number): void {
  const listed = (v: unknown, key: string): unknown[] => {
    const list = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined
    return Array.isArray(list) ? list : []
  }
  const profiles = listed(value, 'profiles')
  let items = 0
  let most = 0
  for (const p of profiles.slice(0, OWN_FILE_BOUNDS.profiles + 1)) {
    const n = listed(
      typeof p === 'object' && p !== null ? (p as { memory?: unknown }).memory : undefined,
      'items',
    ).length
    items += n
    most = Math.max(most, n)
  }
  if (values > FILE_BOUNDS.values || profiles.length > FILE_BOUNDS.profiles || most > FILE_BOUNDS.items)
    throw new ImportError('file', 'largeFile', {
      profiles: profiles.length,
      items,
      values,
      limit: FILE_BOUNDS.values,
    })
}

/** One card, Markdown or envelope file as the payload `state.import` merges. */
function payloadOf(file: ImportFile, warnings: Warnings): unknown {
  if (file.format === 'envelope') {
    const json = file.text ?? Buffer.from(file.data!, 'base64').toString('utf8')
    // The store's own plain-JSON nesting limit and the most values any envelope may bring, checked before the text
    // is parsed: past them no file is read, whoever made it.
    const shape = checkJson(json, 'file', { depth: MAX_DEPTH, values: OWN_FILE_BOUNDS.values })
    let value: unknown
    try {
      value = JSON.parse(json)
    } catch {
      throw new ImportError('file', 'notJson')
    }
    if (file.own !== true) askIfLarge(value, shape.values)
    return value
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
    const text = png !== undefined || charx !== undefined ? '' : (file.text ?? bytes!.toString('utf8'))
    // Bytes that are neither a PNG nor a zip nor JSON (a JPEG, a PNG renamed): not a card, rather than "not JSON".
    if (png === undefined && charx === undefined && !/^\s*[[{]/.test(text.slice(0, 1024).replace(/^\uFEFF/, '')))
      throw new ImportError('file', 'notCard')
    const card = png?.card ?? charx?.card ?? parseCardText(text, 'file', warnings)
    const read = cardToProfile(card, stem(file.name))
    warnings.addAll(read.warnings)
    const avatar =
      png !== undefined
        ? png.avatar(read.avatar, read.placeholder)
        : charx !== undefined
          ? charx.avatar(read.avatar)
          : carriedAvatar(read.avatar, warnings)
    profile = { ...read.profile, avatar }
    if (read.tools !== undefined) {
      try {
        profile.tools = toolSettings(read.tools, 'tools')
      } catch {
        warnings.push(note('toolsUnusable'))
      }
    }
  }
  return { format: ENVELOPE_FORMAT, version: 1, profiles: [profile] }
}

/** One file argument as read: its payload and warnings, why it cannot be imported, or why the command is refused. */
export interface FileRead {
  name: string
  format: FileFormat
  /** What the file brings, checked as the store keeps it, when the file could be read. */
  incoming?: Incoming
  /**
   * Write only the first `keep` memory items of each profile the import adds (the merge still compares whole
   * profiles): the background import of a large own file sends the rest in later batches (lib/store/import-batches.ts).
   */
  keep?: number
  /**
   * The memory items of `incoming.profiles[i]` as JSON text in UTF-8 bytes, when the import worker sent a large file
   * of the user's own that way (its profiles' `items` are then empty), with where each item's JSON ends: see
   * packed-items.ts.
   */
  packed?: { count: number; bytes: Uint8Array; ends?: Uint32Array }[]
  warnings: ImportNote[]
  /** Why this file cannot be imported (the others still are). */
  error?: FileError
  /** A malformed argument (not a file's content, a caller's mistake): the whole command is refused with it. */
  refused?: { message: string; field?: string; limit?: number }
}

/**
 * What a thrown value costs one file (whatever it is, only that file), as the file's outcome. A refusal of the store's
 * checks (a profile in the file it cannot keep) is `notStorable` with the limit and rule it broke; paths inside our
 * one-profile payload are shortened to the profile field.
 */
export function fileFailure(e: unknown, format: FileFormat): FileError {
  if (e instanceof ImportError)
    return { ...e.note, field: e.field, ...(e.limit === undefined ? {} : { limit: e.limit }) }
  if (e instanceof StoreError) {
    const field = format === 'envelope' ? e.field : e.field?.replace(/^payload\.profiles\[0\]\.?/, '') || 'file'
    const params = {
      ...(e.limit === undefined ? {} : { limit: e.limit }),
      ...(e.rule === undefined ? {} : { rule: e.rule }),
    }
    return {
      ...note('notStorable', params),
      ...(field === undefined ? {} : { field }),
      ...(e.limit === undefined ? {} : { limit: e.limit }),
    }
  }
  return { ...note(e instanceof PngError ? 'pngDamaged' : 'unreadable'), field: 'file' }
}

/** A file argument the command refuses (a caller's mistake, not the file's content): the whole command is refused. */
function refusedRead(name: string, index: number, e: unknown): FileRead {
  const refused =
    e instanceof StoreError
      ? {
          message: e.message,
          ...(e.field === undefined ? {} : { field: e.field }),
          ...(e.limit === undefined ? {} : { limit: e.limit }),
        }
      : { message: `files[${index}]: ${errorText(e)}` }
  return { name, format: 'card', warnings: [], refused }
}

/**
 * Read the `index`th file argument of the command, its profiles checked as the store keeps them (`ctx` dates and
 * names the memory items that come without). Never throws.
 */
export function readFile(v: unknown, index: number, ctx: OpContext): FileRead {
  let file: ImportFile
  try {
    file = parse(ImportFileSchema, v, `files[${index}]`)
  } catch (e) {
    const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {}
    return refusedRead(typeof o.name === 'string' ? o.name.slice(0, 255) : '', index, e)
  }
  return readParsedFile(file, index, ctx)
}

/**
 * Read one file argument its schema already accepted (a command's own list, parsed with the command), so the list is
 * not checked twice; its avatar, which needs the picture's bytes, is checked here.
 */
export function readParsedFile(parsed: ImportFile, index: number, ctx: OpContext): FileRead {
  let file: ImportFile
  try {
    file = withCheckedAvatar(parsed, `files[${index}]`)
  } catch (e) {
    return refusedRead(parsed.name, index, e)
  }
  const warnings = new Warnings()
  try {
    const incoming = readPayload(payloadOf(file, warnings), ctx)
    for (const p of incoming.profiles) {
      const suggested = suggestionNote(p)
      if (suggested !== undefined) warnings.push(suggested)
    }
    return { name: file.name, format: file.format, incoming, warnings: warnings.list() }
  } catch (e) {
    return { name: file.name, format: file.format, warnings: warnings.list(), error: fileFailure(e, file.format) }
  }
}
