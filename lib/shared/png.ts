import { PngError } from './errors.ts'
/**
 * PNG at the chunk level: walk a file's chunks, read and write `tEXt` chunks, drop chunks, and assemble a file.
 * Owns the chunk framing and its CRC. It never decodes or draws pixels, and it runs unchanged in the host and in the
 * browser (plain Uint8Array, no Node built-ins).
 *
 * Written by hand: no PNG chunk package is among the project's dependencies, the small ones on the registry are
 * unmaintained since 2017, and the framing is a length, a type, the data and a CRC.
 */

/**
 * Chunks of a file that are walked. A real picture has a few dozen (a big one a few thousand IDAT chunks); a file made
 * of hundreds of thousands of tiny chunks is read up to this many, as if it were cut short there.
 */
const PNG_CHUNK_LIMIT = 20_000

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)

/** One chunk as found in a file: its type, its data, and where its whole record (length…CRC) sits in the file. */
export interface PngChunk {
  type: string
  data: Uint8Array
  /** Offset of the chunk record (its length field) in the file. */
  start: number
  /** Offset just past the chunk's CRC. */
  end: number
}

/** What a walk over a file found: the chunks in file order, and why it stopped early, if it did. */
export interface PngWalk {
  chunks: PngChunk[]
  /** Set when the file ends inside a chunk or has bytes after IEND that are not chunks; the chunks before it stand. */
  truncated?: string
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 (ISO 3309, the one PNG uses) of the concatenated byte arrays. */
export function crc32(...parts: Uint8Array[]): number {
  let c = 0xffffffff
  for (const bytes of parts) {
    for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  }
  return (c ^ 0xffffffff) >>> 0
}

/** True when `bytes` start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
}

function latin1(bytes: Uint8Array): string {
  let out = ''
  // Chunked so a multi-megabyte text chunk stays within the argument limit; apply() on the typed array, because
  // spreading it walks an iterator and is ~100× slower.
  for (let i = 0; i < bytes.length; i += 0x8000)
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[])
  return out
}

/**
 * Every chunk of a PNG file, in order, without copying their data. Tolerant the way card readers must be: CRCs are
 * not checked (card sites do ship files with wrong ones, and a card reader has no use for refusing them), a file cut
 * short keeps the chunks before the cut, and chunks after the image data or after IEND are still listed. Throws
 * {@link PngError} only when the signature is missing.
 */
export function walkPng(bytes: Uint8Array): PngWalk {
  if (!isPng(bytes)) throw new PngError('not a PNG file (the PNG signature is missing)')
  const chunks: PngChunk[] = []
  let at = 8
  while (at < bytes.length) {
    if (chunks.length >= PNG_CHUNK_LIMIT)
      return {
        chunks,
        truncated: `the file has more than ${PNG_CHUNK_LIMIT} chunks; those after byte ${at} are not read`,
      }
    if (bytes.length - at < 12) return { chunks, truncated: `the file ends inside a chunk header at byte ${at}` }
    const length = u32(bytes, at)
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!)
    if (!/^[A-Za-z]{4}$/.test(type)) return { chunks, truncated: `bytes at ${at} are not a chunk` }
    const end = at + 12 + length
    if (end > bytes.length) return { chunks, truncated: `the ${type} chunk at byte ${at} is cut short` }
    chunks.push({ type, data: bytes.subarray(at + 8, at + 8 + length), start: at, end })
    at = end
  }
  return { chunks }
}

/** A `tEXt` chunk's keyword, or undefined when the chunk is not a well-formed tEXt chunk. Cheap: reads ≤ 80 bytes. */
function textKeyword(chunk: Pick<PngChunk, 'type' | 'data'>): string | undefined {
  if (chunk.type !== 'tEXt') return undefined
  const nul = chunk.data.subarray(0, 80).indexOf(0)
  return nul < 1 ? undefined : latin1(chunk.data.subarray(0, nul))
}

/** A `tEXt` chunk's keyword and text, or undefined when the chunk is not a well-formed tEXt chunk. */
export function readText(chunk: Pick<PngChunk, 'type' | 'data'>): { keyword: string; text: string } | undefined {
  const keyword = textKeyword(chunk)
  return keyword === undefined ? undefined : { keyword, text: latin1(chunk.data.subarray(keyword.length + 1)) }
}

/** The record bytes (length, type, data, CRC) of a new chunk. */
export function chunkBytes(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + 12)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i)
  out.set(data, 8)
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
  return out
}

/**
 * The record of a `tEXt` chunk. tEXt is Latin-1 by definition, so `text` must be (card readers store base64 here).
 * Throws {@link PngError} for a keyword outside 1–79 printable Latin-1 characters or text outside Latin-1.
 */
export function textChunk(keyword: string, text: string): Uint8Array {
  if (!/^[\x20-\x7e\xa1-\xff]{1,79}$/.test(keyword))
    throw new PngError(`tEXt keyword ${JSON.stringify(keyword)} is not 1–79 Latin-1 characters`)
  const data = new Uint8Array(keyword.length + 1 + text.length)
  for (let i = 0; i < keyword.length; i++) data[i] = keyword.charCodeAt(i)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c > 0xff) throw new PngError('tEXt text must be Latin-1')
    data[keyword.length + 1 + i] = c
  }
  return chunkBytes('tEXt', data)
}

/**
 * The file with every chunk that `drop` selects removed and `insert` (chunk records) placed just before IEND. Kept
 * chunks are copied byte for byte, CRC included, so an image passes through unchanged apart from what was asked.
 * A file without IEND (cut short) gets the new chunks and a fresh IEND at its end.
 */
export function rewritePng(
  bytes: Uint8Array,
  drop: (chunk: PngChunk) => boolean,
  insert: readonly Uint8Array[] = [],
): Uint8Array<ArrayBuffer> {
  const { chunks } = walkPng(bytes)
  const parts: Uint8Array[] = [PNG_SIGNATURE]
  let placed = false
  for (const chunk of chunks) {
    if (chunk.type === 'IEND' && !placed) {
      parts.push(...insert)
      placed = true
    }
    if (!drop(chunk)) parts.push(bytes.subarray(chunk.start, chunk.end))
  }
  if (!placed) parts.push(...insert, chunkBytes('IEND', new Uint8Array(0)))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
