/**
 * Character Cards inside PNG files: find the card text (`ccv3` preferred over `chara`, wherever the chunk sits), take
 * the picture without it (and without any other chunk that does not draw it), and put a card into a picture. Also the small encodings a card needs (UTF-8 base64, a short
 * content digest). Pure and environment-neutral: used by the host's import and export and by the browser's export.
 * It never interprets the card's JSON (lib/interop/card-read.ts does) and never draws pixels.
 */
import { rewritePng, readText, textChunk, walkPng, type PngChunk } from './png.ts'

/** The tEXt keywords a card may sit under, the preferred one first. */
const CARD_KEYWORDS = ['ccv3', 'chara'] as const
type CardKeyword = (typeof CARD_KEYWORDS)[number]

/** Base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[])
  return btoa(binary)
}

/**
 * True for base64 text: only its 64 characters, and `=` only as one or two at the end. A search for any other
 * character is one native scan; `^[A-Za-z0-9+/]*={0,2}$` took 30 ms over a 7.6 MB file.
 */
export function isBase64(text: string): boolean {
  if (/[^A-Za-z0-9+/=]/.test(text)) return false
  const eq = text.indexOf('=')
  return eq < 0 || (eq >= text.length - 2 && (eq === text.length - 1 || text[eq + 1] === '='))
}

/** Bytes of base64 text; throws on characters outside base64 (atob's own error). */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text)
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** UTF-8 text as base64, the way card writers store JSON in a tEXt chunk. */
function utf8Base64(text: string): string {
  return toBase64(new TextEncoder().encode(text))
}

/** Two FNV-1a-style 32-bit passes with different multipliers, fed one unit (char code or byte) at a time. */
function hasher(seed: number): { add(unit: number): void; hex(): string } {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ seed
  return {
    add(unit) {
      a = Math.imul(a ^ unit, 0x01000193)
      b = Math.imul(b ^ unit, 0x5bd1e995) ^ (b >>> 15)
    },
    hex: () => (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0'),
  }
}

/**
 * A short digest of text (16 hex digits). It tells "still the text we wrote" from "edited since", nothing more; it is
 * not a security measure.
 */
export function digest(text: string): string {
  const h = hasher(text.length)
  for (let i = 0; i < text.length; i++) h.add(text.charCodeAt(i))
  return h.hex()
}

/** A digest of a PNG's picture (its IDAT data), the same whatever text chunks surround it. */
export function pictureDigest(chunks: readonly PngChunk[]): string {
  const idat = chunks.filter((c) => c.type === 'IDAT')
  const h = hasher(idat.reduce((n, c) => n + c.data.length, 0))
  for (const c of idat) for (let i = 0; i < c.data.length; i++) h.add(c.data[i]!)
  return h.hex()
}

/** True when `data` starts with `keyword` (any case) and a NUL: compared byte by byte, no text is built. */
function startsWithKeyword(data: Uint8Array, keyword: string): boolean {
  if (data.length <= keyword.length || data[keyword.length] !== 0) return false
  for (let i = 0; i < keyword.length; i++) {
    const b = data[i]!
    if ((b >= 0x41 && b <= 0x5a ? b | 0x20 : b) !== keyword.charCodeAt(i)) return false
  }
  return true
}

/** A card chunk: `tEXt` under a card keyword. Checked on the bytes, since a file may hold thousands of text chunks. */
function isCardChunk(chunk: PngChunk): boolean {
  return chunk.type === 'tEXt' && CARD_KEYWORDS.some((k) => startsWithKeyword(chunk.data, k))
}

/**
 * The chunks that take part in drawing a PNG: the critical ones, colour and transparency information, and APNG
 * animation. Everything else (text, Exif, timestamps, applications' private chunks, which on real cards can be
 * megabytes) is left out of a card's picture before it becomes an avatar.
 */
const DRAWING = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'acTL',
  'fcTL',
  'fdAT',
])

/** Card chunks of one file that are read; a real card has one or two (`chara`, and `ccv3`). */
export const CARD_CHUNK_LIMIT = 8

/** What a PNG holds for a card reader. */
export interface PngCardParts {
  /** Card texts found, `ccv3` ones first, then `chara`, each group in file order. */
  texts: { keyword: CardKeyword; text: string }[]
  /** The file with only the chunks that draw it (the picture to keep as an avatar), or undefined when it is cut short. */
  picture?: Uint8Array
  /** Every chunk of the file (for {@link pictureDigest}, computed only when a card asks for it). */
  chunks: PngChunk[]
  /** Why the walk stopped early, when the file is cut short. */
  truncated?: string
  /** Card chunks past {@link CARD_CHUNK_LIMIT}, not read. */
  skipped: number
}

/** Find the card texts of a PNG file, before or after the image data. Throws PngError when it is not a PNG. */
export function readPngCard(bytes: Uint8Array): PngCardParts {
  const walk = walkPng(bytes)
  const found: { keyword: CardKeyword; text: string }[] = []
  let skipped = 0
  for (const chunk of walk.chunks) {
    if (!isCardChunk(chunk)) continue
    if (found.length >= CARD_CHUNK_LIMIT) {
      skipped++
      continue
    }
    const t = readText(chunk)!
    found.push({ keyword: t.keyword.toLowerCase() as CardKeyword, text: t.text })
  }
  const texts = CARD_KEYWORDS.flatMap((k) => found.filter((f) => f.keyword === k))
  const parts: PngCardParts = { texts, chunks: walk.chunks, skipped }
  if (walk.truncated !== undefined) parts.truncated = walk.truncated
  else parts.picture = rewritePng(bytes, (c) => !DRAWING.has(c.type))
  return parts
}

/**
 * `png` carrying `card` (JSON text) in a `chara` tEXt chunk, and `v3` in a `ccv3` chunk when given, placed before
 * IEND; any card chunks the picture already had are removed first, so a reader never sees a stale card.
 */
export function embedCard(png: Uint8Array, card: string, v3?: string): Uint8Array<ArrayBuffer> {
  const insert = [textChunk('chara', utf8Base64(card))]
  if (v3 !== undefined) insert.push(textChunk('ccv3', utf8Base64(v3)))
  return rewritePng(png, isCardChunk, insert)
}

/**
 * The colour of a placeholder tile for a profile: a soft hue picked from its id, the same in the host's plain tile and
 * the settings page's emoji tile. An exported picture leaves the app, so it does not follow the UI theme.
 */
export function tileColour(seed: string): [number, number, number] {
  let h = 0
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) >>> 0
  const hue = (h % 360) / 60
  const x = 1 - Math.abs((hue % 2) - 1)
  const [r, g, b] =
    hue < 1
      ? [1, x, 0]
      : hue < 2
        ? [x, 1, 0]
        : hue < 3
          ? [0, 1, x]
          : hue < 4
            ? [0, x, 1]
            : hue < 5
              ? [x, 0, 1]
              : [1, 0, x]
  return [r, g, b].map((c) => Math.round(255 * (0.55 + 0.27 * c))) as [number, number, number]
}
