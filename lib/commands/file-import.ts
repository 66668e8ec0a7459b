/**
 * `profiles.importFiles`: profile files as users have them — Character Cards (PNG, JSON or CHARX, V1/V2/V3, and the
 * JSON role files of other apps), Markdown profile, agent and persona files, our own envelope — several at once,
 * always merged beside the existing profiles. Owns the command's arguments, the per-file outcome (imported, unchanged
 * or waiting for the user's choice, with warnings, or refused with a precise error: `FileResult` of the wire contract)
 * and the avatar a card's picture gives.
 *
 * Why its own command rather than a `format` on `state.import`: that one is all-or-nothing over one payload with a
 * replace mode; here each file stands alone (one broken card in a folder must not block the rest) and nothing ever
 * replaces unless asked to. A file that fails changes nothing; the command fails only when every file failed.
 */
import { LIMITS, type State } from '../state/model.ts'
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
import { ENVELOPE_FORMAT, importUser, mergeProfiles, readPayload, type MergeChoice } from './transfer.ts'
import { StoreError, avatar as checkAvatar, id, invalid, onlyKeys, record, text } from '../validate/state.ts'
import { toolSettings } from '../validate/tools.ts'
import { MAX_DEPTH } from '../validate/core.ts'
import { CARD_FILE_LIMIT, FILE_FORMATS, type FileFormat, type FileResult, type ImportFile } from '../shared/contract.ts'
import { notice, type OpContext, type OpResult } from './kit.ts'

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

/** A refusal as the file's outcome; paths inside our one-profile payload are shortened to the profile field. */
function failure(e: ImportError | StoreError, format: FileFormat): NonNullable<FileResult['error']> {
  const strip = (s: string) => (format === 'envelope' ? s : s.replace(/^payload\.profiles\[0\]\.?/, ''))
  const out: NonNullable<FileResult['error']> = { message: strip(e.message) }
  if (e.field !== undefined) out.field = strip(e.field) || 'file'
  if (e.limit !== undefined) out.limit = e.limit
  return out
}

/** The command's choice for profiles whose id is taken by one with other content. */
function choiceArg(cmd: Record<string, unknown>): MergeChoice {
  if (cmd.conflicts !== undefined && cmd.conflicts !== 'keep-both' && cmd.conflicts !== 'ask') throw invalid('conflicts', 'must be "keep-both" or "ask"')
  if (cmd.replace !== undefined && (!Array.isArray(cmd.replace) || cmd.replace.length > LIMITS.profiles)) {
    throw invalid('replace', `must be a list of at most ${LIMITS.profiles} profile ids`, LIMITS.profiles)
  }
  const replace = new Set(((cmd.replace ?? []) as unknown[]).map((x, i) => id(x, `replace[${i}]`)))
  return { conflicts: (cmd.conflicts as MergeChoice['conflicts'] | undefined) ?? 'keep-both', replace }
}

/**
 * `profiles.importFiles {files, conflicts?, replace?}`: import each file that can be imported, report every one.
 * A profile identical to one already there is skipped and reported as unchanged; one with the id of an existing
 * profile and other content replaces it when its id is in `replace`, else is kept beside it with a new id
 * (`conflicts: 'keep-both'`, the default) or left out and reported for the user to choose (`'ask'`).
 */
export function applyFileImport(state: State, cmd: Record<string, unknown>, ctx: OpContext): OpResult {
  onlyKeys(cmd, ['op', 'files', 'conflicts', 'replace'], 'command')
  if (!Array.isArray(cmd.files) || cmd.files.length === 0) throw invalid('files', 'must be a non-empty list of files')
  if (cmd.files.length > LIMITS.profiles) {
    throw invalid('files', `has ${cmd.files.length} files, over the limit of ${LIMITS.profiles}`, LIMITS.profiles)
  }
  const files = cmd.files.map((f, i) => fileArg(f, `files[${i}]`))
  const choice = choiceArg(cmd)
  let current = state
  let userAdded = 0
  const results: FileResult[] = files.map((file) => {
    const warnings = new Warnings()
    const none = () => ({ name: file.name, imported: 0, profileIds: [], warnings: warnings.list(), unchanged: [], replaced: [], conflicts: [] })
    try {
      const incoming = readPayload(payloadOf(file, warnings), ctx)
      const r = mergeProfiles(current, incoming, choice)
      const report = r.extra
      const profileIds = [...r.state.profiles.slice(current.profiles.length).map((p) => p.id), ...report.replaced.map((p) => p.id)]
      // An envelope exported with the user layer brings its facts the layer does not hold yet, as suggestions.
      const user = importUser(r.state, incoming, 'merge', ctx)
      userAdded += user.added
      current = user.state
      return { ...none(), imported: profileIds.length, profileIds, unchanged: report.unchanged, replaced: report.replaced, conflicts: report.conflicts }
    } catch (e) {
      // Whatever one file throws costs only that file: the others are still imported.
      if (e instanceof PngError) return { ...none(), error: { message: `file: ${e.message}`, field: 'file' } }
      if (e instanceof ImportError || e instanceof StoreError) return { ...none(), error: failure(e, file.format) }
      return { ...none(), error: { message: `file: could not be read (${errorText(e)})`, field: 'file' } }
    }
  })
  const imported = results.reduce((n, r) => n + r.imported, 0)
  const failed = results.filter((r) => r.error !== undefined)
  if (failed.length === files.length) {
    const first = results[0]!.error!
    const field = `files[0].${first.field ?? 'file'}`
    const reason = first.field !== undefined && first.message.startsWith(`${first.field}: `) ? first.message.slice(first.field.length + 2) : first.message
    const more = failed.length > 1 ? ` (${failed.length - 1} other file(s) failed too)` : ''
    throw new StoreError('invalid', `${field} ("${results[0]!.name}"): ${reason}${more}`, field, first.limit)
  }
  const count = (k: 'unchanged' | 'conflicts') => results.reduce((n, r) => n + r[k].length, 0)
  const unchanged = count('unchanged')
  const conflicts = count('conflicts')
  const warned = results.filter((r) => r.warnings.length > 0).length
  let line = `已从 ${files.length - failed.length} 个文件导入 ${imported} 套配置`
  if (unchanged > 0) line += `，${unchanged} 套与已有配置相同，未重复导入`
  if (conflicts > 0) line += `，${conflicts} 套与已有配置同 id 但内容不同，待选择`
  if (userAdded > 0) line += `，文件里关于用户的 ${userAdded} 条记忆已列为建议，批准后才会生效`
  if (failed.length > 0) line += `，${failed.length} 个文件未能导入`
  if (warned > 0) line += `，${warned} 个文件有需要留意的地方`
  return {
    state: current,
    notice: notice('files.imported', line, { imported, files: files.length - failed.length, failed: failed.length, warned, unchanged, conflicts, userAdded }),
    extra: { imported, files: results, userAdded },
    changed: current !== state,
  }
}
