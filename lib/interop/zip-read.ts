/**
 * Reading a zip archive from the wild, bounded by what the file really holds: the end record is looked for only in
 * the last 64 KiB, the entry count it claims is checked against the limit and against the size of the central
 * directory (every entry takes at least 46 bytes there) before one entry is listed, each entry is bounds-checked as
 * it is read, and an entry is expanded in small steps that stop as soon as it passes its limit. So a file of a few
 * bytes that claims four billion entries costs a few bytes of work, and a zip bomb costs at most its limit.
 * Only the two methods CHARX writers use are read: stored (0) and deflate (8); any other is refused by name.
 * Pure (fflate's inflater, no Node built-ins); what the entries mean is card-charx.ts's.
 *
 * Written here rather than with fflate's own unzip: its listing walks every entry the end record claims before a
 * caller can count them, reading zeros past the buffer's end without an error, so the count cannot be refused in time.
 */
import { Inflate } from 'fflate'
import { ImportError } from '../shared/errors.ts'

/** One entry as the central directory lists it. */
export interface ZipEntry {
  name: string
  method: number
  compressedSize: number
  size: number
  /** Offset of the entry's local header in the file. */
  offset: number
}

const EOCD = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
/** The fixed part of a central directory entry. */
const CENTRAL_SIZE = 46
/** Compressed bytes handed to the inflater per step: one step expands to at most about 1 MB (deflate's ~1032:1). */
const STEP = 1024

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0
/** A little-endian 64-bit field as a number; past 2^53 it is far over any limit anyway, so Infinity stands for it. */
const u64 = (b: Uint8Array, at: number) => {
  const high = u32(b, at + 4)
  return high >= 0x200000 ? Infinity : high * 0x100000000 + u32(b, at)
}

/** A zip we cannot read; `why` is for the log line of the error, the page says only that the archive is damaged. */
const unreadable = (why: string) => new ImportError('file', 'zipUnreadable', { why })

/** Where the central directory is and how many entries it claims, from the end record (and its ZIP64 form). */
function directory(bytes: Uint8Array): { count: number; size: number; offset: number } {
  // The end record is 22 bytes plus a comment of at most 65,535: it is looked for only there.
  let end = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === EOCD) {
      end = at
      break
    }
  }
  if (end < 0) throw unreadable('no end of central directory record')
  let count = u16(bytes, end + 10)
  let size = u32(bytes, end + 12)
  let offset = u32(bytes, end + 16)
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = end - 20
    if (locator < 0 || u32(bytes, locator) !== ZIP64_LOCATOR)
      throw unreadable('a ZIP64 archive without its ZIP64 locator')
    const at = u64(bytes, locator + 8)
    if (at + 56 > bytes.length) throw unreadable('its ZIP64 end record lies past the end of the file')
    if (u32(bytes, at) !== ZIP64_EOCD) throw unreadable('its ZIP64 end record is missing')
    count = u64(bytes, at + 32)
    size = u64(bytes, at + 40)
    offset = u64(bytes, at + 48)
  }
  return { count, size, offset }
}

/** The ZIP64 extra field's sizes and offset, for the fields the entry marks as "in the extra field" (all ones). */
function zip64Fields(extra: Uint8Array, e: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length;) {
    const tag = u16(extra, at)
    const len = u16(extra, at + 2)
    if (tag === 0x0001) {
      let p = at + 4
      const take = () => {
        const v = p + 8 <= at + 4 + len ? u64(extra, p) : Infinity
        p += 8
        return v
      }
      if (e.size === 0xffffffff) e.size = take()
      if (e.compressedSize === 0xffffffff) e.compressedSize = take()
      if (e.offset === 0xffffffff) e.offset = take()
      return
    }
    at += 4 + len
  }
}

/**
 * The entries of a zip, as its central directory lists them. Refuses, before listing any, an archive that claims
 * more than `limit` entries or more than its central directory (or the file) can hold.
 */
export function listZip(bytes: Uint8Array, limit: number): ZipEntry[] {
  const { count, size, offset } = directory(bytes)
  if (count > limit) throw new ImportError('file', 'zipTooManyEntries', { count, limit })
  if (offset + size > bytes.length)
    throw unreadable(
      `its central directory (${size} bytes at ${offset}) lies past the end of the ${bytes.length}-byte file`,
    )
  if (count * CENTRAL_SIZE > size)
    throw unreadable(`it claims ${count} entries in a central directory of ${size} bytes`)
  const entries: ZipEntry[] = []
  const utf8 = new TextDecoder('utf-8')
  const latin1 = new TextDecoder('latin1')
  for (let i = 0, at = offset; i < count; i++) {
    if (at + CENTRAL_SIZE > offset + size || u32(bytes, at) !== CENTRAL)
      throw unreadable(`entry ${i + 1} of its central directory is damaged`)
    const nameLength = u16(bytes, at + 28)
    const extraLength = u16(bytes, at + 30)
    const next = at + CENTRAL_SIZE + nameLength + extraLength + u16(bytes, at + 32)
    if (next > offset + size) throw unreadable(`entry ${i + 1} of its central directory runs past its end`)
    const raw = bytes.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength)
    // Bit 11 says the name is UTF-8; without it, the old DOS code page, of which Latin-1 is close enough for a name.
    const entry: ZipEntry = {
      name: (u16(bytes, at + 8) & 0x800 ? utf8 : latin1).decode(raw),
      method: u16(bytes, at + 10),
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      offset: u32(bytes, at + 42),
    }
    zip64Fields(bytes.subarray(at + CENTRAL_SIZE + nameLength, at + CENTRAL_SIZE + nameLength + extraLength), entry)
    entries.push(entry)
    at = next
  }
  return entries
}

/** What a compression method is called, for the refusal of one we do not read. */
const METHODS: Record<number, string> = {
  1: 'Shrink',
  6: 'Implode',
  9: 'Deflate64',
  12: 'BZIP2',
  14: 'LZMA',
  93: 'Zstandard',
  95: 'XZ',
  99: 'AES encryption',
}

/**
 * Entry `e` expanded, refused (naming `field`) as soon as it passes `cap` bytes — the size it declared, within
 * `limit` — or when its method is neither stored nor deflate. `step` is the compressed bytes handed to the inflater
 * at once: what one step may expand to past the cap is about 1,000 times it, and each step costs a call, so an entry
 * of hundreds of MB (a data export) reads in larger steps than a card's few MB.
 */
export function expandEntry(bytes: Uint8Array, e: ZipEntry, field: string, limit: number, step = STEP): Uint8Array {
  const chunks: Uint8Array[] = []
  const size = streamEntry(bytes, e, field, limit, step, (chunk) => {
    chunks.push(chunk)
  })
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

/**
 * Entry `e` expanded chunk by chunk into `each` (in order; a stored entry's one chunk is a view of `bytes`, copied by
 * a caller that keeps it), within the bounds of
 * {@link expandEntry}: a chunk past the cap is never handed on, and the refusal comes after the chunks before it.
 * Answers the entry's expanded size. What reads an entry as it expands holds a chunk, not the whole entry.
 */
export function streamEntry(
  bytes: Uint8Array,
  e: ZipEntry,
  field: string,
  limit: number,
  step: number,
  each: (chunk: Uint8Array) => void,
): number {
  const cap = Math.min(limit, e.size)
  if (e.method !== 0 && e.method !== 8) {
    const called = Object.hasOwn(METHODS, e.method) ? ` (${METHODS[e.method]})` : ''
    throw new ImportError(field, 'zipMethod', { method: `${e.method}${called}` })
  }
  if (e.offset + 30 > bytes.length || u32(bytes, e.offset) !== LOCAL) throw new ImportError(field, 'zipDamaged')
  const start = e.offset + 30 + u16(bytes, e.offset + 26) + u16(bytes, e.offset + 28)
  if (start + e.compressedSize > bytes.length) throw new ImportError(field, 'zipDamaged')
  const data = bytes.subarray(start, start + e.compressedSize)
  const bomb = () => new ImportError(field, 'zipBomb', { size: cap, limit })
  if (e.method === 0) {
    if (data.length > cap) throw bomb()
    each(data)
    return data.length
  }
  let size = 0
  let done = false
  const inflater = new Inflate((chunk, final) => {
    size += chunk.length
    if (size <= cap) each(chunk)
    if (final) done = true
  })
  try {
    for (let from = 0; from < data.length && size <= cap && !done; from += step) {
      inflater.push(data.subarray(from, from + step), from + step >= data.length)
    }
  } catch (err) {
    if (err instanceof ImportError) throw err
    throw new ImportError(field, 'zipDamaged', { why: (err as Error).message })
  }
  if (size > cap) throw bomb()
  if (!done) throw new ImportError(field, 'zipDamaged')
  return size
}
