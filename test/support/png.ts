/**
 * Real PNG files made in code, for avatar uploads in browser tests and benchmarks: an RGB gradient (so an encoder has
 * something to shrink), tinted by `seed` so each picture is distinct. Never used by the plugin itself.
 */
import { crc32, deflateSync } from 'node:zlib'

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const out = Buffer.alloc(body.length + 8)
  out.writeUInt32BE(data.length, 0)
  body.copy(out, 4)
  out.writeUInt32BE(crc32(body), body.length + 4)
  return out
}

/** A `width`×`height` 8-bit RGB PNG. */
export function png(width: number, height: number, seed = 0): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const stride = width * 3 + 1
  const rows = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set([(x * 255) / width, (y * 255) / height, (seed * 37) % 256], y * stride + 1 + x * 3)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0)),
  ])
}

/** The same picture as a data URL, the form the store keeps. */
export function pngDataUrl(width: number, height: number, seed = 0): string {
  return `data:image/png;base64,${png(width, height, seed).toString('base64')}`
}
