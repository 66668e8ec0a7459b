/**
 * Reference PNGs made in code from node:zlib (never from the code under test), for specs and benchmarks: real files
 * (an RGB gradient, so an encoder has something to shrink, tinted by `seed` so each picture is distinct), single chunk
 * records, a file split back into its records by hand, and the pixels of a screenshot. Never used by the plugin itself.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib'

/** A chunk record (length, type, data, CRC) with zlib's CRC. */
export function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(data.length + 12)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** The chunk records of a PNG, split by hand after the 8-byte signature. */
export function records(bytes: Buffer): { type: string; data: Buffer; record: Buffer }[] {
  const out: { type: string; data: Buffer; record: Buffer }[] = []
  for (let at = 8; at + 12 <= bytes.length;) {
    const len = bytes.readUInt32BE(at)
    out.push({
      type: bytes.toString('latin1', at + 4, at + 8),
      data: bytes.subarray(at + 8, at + 8 + len),
      record: bytes.subarray(at, at + 12 + len),
    })
    at += 12 + len
  }
  return out
}

/** An 8-bit RGB PNG of `rows` (each a filter byte and `width` RGB pixels). */
function rgbPng(width: number, height: number, rows: Buffer): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A `width`×`height` 8-bit RGB PNG. */
export function png(width: number, height: number, seed = 0): Buffer {
  const stride = width * 3 + 1
  const rows = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++)
      rows.set([(x * 255) / width, (y * 255) / height, (seed * 37) % 256], y * stride + 1 + x * 3)
  }
  return rgbPng(width, height, rows)
}

/** The same picture as a data URL, the form the store keeps. */
export function pngDataUrl(width: number, height: number, seed = 0): string {
  return `data:image/png;base64,${png(width, height, seed).toString('base64')}`
}

/** A `width`×`height` RGB PNG of seeded noise: it barely compresses, so its image data alone is large. */
export function noisyPng(width: number, height: number, seed = 1): Buffer {
  const stride = width * 3 + 1
  const rows = Buffer.alloc(stride * height)
  let x = seed >>> 0
  for (let i = 0; i < rows.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    if (i % stride !== 0) rows[i] = x >>> 24
  }
  return rgbPng(width, height, rows)
}

/** The Paeth predictor of the PNG filter type 4. */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/**
 * The pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are): width, height, channels
 * per pixel and the unfiltered samples, row after row. Throws on any other kind of PNG.
 */
export function decodePng(bytes: Buffer): { width: number; height: number; channels: number; samples: Buffer } {
  const parts = records(bytes)
  const header = parts.find((r) => r.type === 'IHDR')?.data
  if (header === undefined || header[8] !== 8 || (header[9] !== 2 && header[9] !== 6) || header[12] !== 0) {
    throw new Error('decodePng reads 8-bit non-interlaced RGB or RGBA only')
  }
  const width = header.readUInt32BE(0)
  const height = header.readUInt32BE(4)
  const channels = header[9] === 6 ? 4 : 3
  const raw = inflateSync(Buffer.concat(parts.filter((r) => r.type === 'IDAT').map((r) => r.data)))
  const stride = width * channels
  const samples = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? samples[y * stride + x - channels] : 0
      const up = y > 0 ? samples[(y - 1) * stride + x] : 0
      const corner = x >= channels && y > 0 ? samples[(y - 1) * stride + x - channels] : 0
      const predicted =
        filter === 1
          ? left
          : filter === 2
            ? up
            : filter === 3
              ? (left + up) >> 1
              : filter === 4
                ? paeth(left, up, corner)
                : 0
      samples[y * stride + x] = (raw[y * (stride + 1) + 1 + x] + predicted) & 0xff
    }
  }
  return { width, height, channels, samples }
}
