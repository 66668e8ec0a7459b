/**
 * Profile files in the browser: picked files (one, several, or a folder) read into `profiles.importFiles` arguments —
 * a PNG card whose picture is over the avatar limit gets a shrunk avatar from the avatar pipeline; a CHARX goes as
 * its bytes, for the host to open within its limits — and a profile's
 * Card PNG with a real picture drawn here (the avatar in any raster type, or the emoji on a tile) where the host can
 * only give a plain tile. It never decides what a card means: the host reads and maps every file.
 */
import { LIMITS } from '../../state/model.ts'
import { embedCard, fromBase64, pictureDigest, readPngCard, tileColour, toBase64 } from '../../shared/card-png.ts'
import { walkPng } from '../../shared/png.ts'
import { AVATAR_EDGE, shrinkImage } from './image.ts'
import { CARD_FILE_LIMIT, EXTENSION_KEY } from '../../shared/files.ts'
import type { ImportFile } from '../../shared/command-inputs.ts'

/** Characters of file content per `profiles.importFiles` request, well under the host's 48 MB body cap. */
const BATCH_CHARS = 24 * 1024 * 1024

/** The file extensions an import reads (a picked file of another type is skipped and listed). */
const IMPORT_EXTENSIONS = ['png', 'json', 'md', 'markdown', 'charx'] as const

/**
 * The file dialog's filter: every extension the import reads, with the media types browsers know them by; built from
 * {@link IMPORT_EXTENSIONS} so a type the reader takes can always be picked.
 */
export const IMPORT_ACCEPT = [
  'application/json',
  'image/png',
  'text/markdown',
  ...IMPORT_EXTENSIONS.map((ext) => `.${ext}`),
].join(',')

/** What was picked: files to send, and files skipped (wrong type, too large). */
export interface PickedFiles {
  files: ImportFile[]
  skipped: { name: string; reason: 'type' | 'size'; size?: number }[]
}

function readAs<T extends 'text' | 'buffer'>(file: Blob, how: T): Promise<T extends 'text' ? string : ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => {
      resolve(reader.result as T extends 'text' ? string : ArrayBuffer)
    }
    reader.onerror = () => {
      reject(reader.error ?? new Error('the file could not be read'))
    }
    if (how === 'text') reader.readAsText(file)
    else reader.readAsArrayBuffer(file)
  })
}

/** True when JSON text is our envelope (or a bare state) rather than a character card. */
function isEnvelopeText(text: string): boolean {
  try {
    const v = JSON.parse(text) as Record<string, unknown>
    return v.format === 'dsh-agent-profiles' || (Array.isArray(v.profiles) && v.spec === undefined)
  } catch {
    return false
  }
}

/** True when text is JSON and not our envelope: a character card, for the host to read. */
export function isCardJson(text: string): boolean {
  try {
    JSON.parse(text)
  } catch {
    return false
  }
  return !isEnvelopeText(text)
}

/** The name a file is reported under: its path inside a picked folder, else its name. */
const displayName = (file: File): string => file.webkitRelativePath || file.name

/** Read picked files into command arguments; files of other types (or too large) are listed as skipped. */
export async function readPicked(picked: readonly File[]): Promise<PickedFiles> {
  const out: PickedFiles = { files: [], skipped: [] }
  for (const file of picked) {
    const name = displayName(file)
    const ext = /\.([^.\\/]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? ''
    if (!(IMPORT_EXTENSIONS as readonly string[]).includes(ext)) {
      out.skipped.push({ name, reason: 'type' })
      continue
    }
    if (file.size > CARD_FILE_LIMIT) {
      out.skipped.push({ name, reason: 'size', size: file.size })
      continue
    }
    if (ext === 'png') {
      out.files.push(await pngArg(file, name))
    } else if (ext === 'charx') {
      out.files.push({ name, format: 'card', data: toBase64(new Uint8Array(await readAs(file, 'buffer'))) })
    } else {
      const text = await readAs(file, 'text')
      const format = ext === 'json' ? (isEnvelopeText(text) ? 'envelope' : 'card') : 'markdown'
      out.files.push({ name, format, text })
    }
  }
  return out
}

/** A PNG card; when its picture (without the card) would be over the avatar limit, the avatar pipeline shrinks it. */
async function pngArg(file: File, name: string): Promise<ImportFile> {
  const bytes = new Uint8Array(await readAs(file, 'buffer'))
  const arg: ImportFile = { name, format: 'card', data: toBase64(bytes) }
  let pictureChars = 0
  try {
    const picture = readPngCard(bytes).picture
    pictureChars = picture === undefined ? 0 : 'data:image/png;base64,'.length + Math.ceil(picture.length / 3) * 4
  } catch {
    return arg // Not a PNG after all: the host says so precisely.
  }
  if (pictureChars > LIMITS.avatar) {
    // A picture that cannot be shrunk stays out; the host's warning then says why the profile has no avatar.
    arg.avatar = await shrinkImage(file).then(
      (s) => s.dataUrl,
      () => undefined,
    )
    if (arg.avatar === undefined) delete arg.avatar
  }
  return arg
}

/** Split arguments into requests of bounded size, in order. */
export function batches(files: readonly ImportFile[]): ImportFile[][] {
  const out: ImportFile[][] = []
  let size = Infinity
  for (const f of files) {
    const n = (f.text?.length ?? 0) + (f.data?.length ?? 0) + (f.avatar?.length ?? 0)
    if (size + n > BATCH_CHARS) {
      out.push([])
      size = 0
    }
    out[out.length - 1]!.push(f)
    size += n
  }
  return out
}

async function canvasPng(canvas: HTMLCanvasElement): Promise<Uint8Array> {
  const blob = await new Promise<Blob | null>((resolve) => {
    canvas.toBlob(resolve, 'image/png')
  })
  if (blob === null) throw new Error('the picture could not be encoded')
  return new Uint8Array(await readAs(blob, 'buffer'))
}

/** The avatar (any raster type) redrawn as a PNG, at most AVATAR_EDGE on its longest side. */
async function avatarPng(dataUrl: string): Promise<Uint8Array> {
  const bitmap = await createImageBitmap(new Blob([fromBase64(dataUrl.slice(dataUrl.indexOf(',') + 1))]))
  const scale = Math.min(1, AVATAR_EDGE / Math.max(bitmap.width, bitmap.height))
  const canvas = document.createElement('canvas')
  canvas.width = Math.max(1, Math.round(bitmap.width * scale))
  canvas.height = Math.max(1, Math.round(bitmap.height * scale))
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height)
  bitmap.close()
  return canvasPng(canvas)
}

/** The emoji on a 512×768 tile in the profile's tile colour. */
async function emojiTile(emoji: string, seed: string): Promise<Uint8Array> {
  const canvas = document.createElement('canvas')
  canvas.width = 512
  canvas.height = 768
  const g = canvas.getContext('2d')!
  g.fillStyle = `rgb(${tileColour(seed).join(',')})`
  g.fillRect(0, 0, canvas.width, canvas.height)
  g.font = '280px "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", sans-serif'
  g.textAlign = 'center'
  g.textBaseline = 'middle'
  g.fillText(emoji, canvas.width / 2, canvas.height / 2)
  return canvasPng(canvas)
}

type Json = Record<string, any>

/**
 * A profile's Card PNG: the host's card PNG, with the picture drawn here when the host could only give a plain tile
 * (the avatar is not a PNG, or there is none). Our extension keeps the avatar exactly as saved and the digest of the
 * picture drawn from it (or of the emoji tile): importing the file back, as long as its picture is that one, gives the
 * avatar the user had, byte for byte, and so the same profile — a PNG redraw of a WebP avatar is other bytes, and an
 * import comparing them said "differs: avatar" of an unchanged profile. A picture edited elsewhere has another digest
 * and becomes the avatar instead.
 */
export async function cardPngWithPicture(cardUrl: string, profileId: string, emoji: string): Promise<Blob> {
  const res = await fetch(cardUrl)
  if (!res.ok) throw new Error(`export failed (HTTP ${res.status})`)
  const hostFile = new Uint8Array(await res.arrayBuffer())
  const cards = readPngCard(hostFile).texts.map((t) => ({
    keyword: t.keyword,
    card: JSON.parse(new TextDecoder().decode(fromBase64(t.text))) as Json,
  }))
  const v2 = cards.find((c) => c.keyword === 'chara')?.card
  const ext = v2?.data?.extensions?.[EXTENSION_KEY] as Json | undefined
  if (v2 === undefined || ext === undefined || ext.placeholder === undefined)
    return new Blob([hostFile], { type: 'image/png' })
  const avatar = typeof ext.profile?.avatar === 'string' ? (ext.profile.avatar as string) : ''
  const picture = avatar !== '' ? await avatarPng(avatar) : await emojiTile(emoji, profileId)
  const placeholder = pictureDigest(walkPng(picture).chunks)
  for (const { card } of cards) (card.data.extensions[EXTENSION_KEY] as Json).placeholder = placeholder
  const v3 = cards.find((c) => c.keyword === 'ccv3')?.card
  return new Blob([embedCard(picture, JSON.stringify(v2), v3 === undefined ? undefined : JSON.stringify(v3))], {
    type: 'image/png',
  })
}

/** Save `blob` as a download named `fileName`. */
export function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => {
    URL.revokeObjectURL(url)
  }, 30_000)
}
