/**
 * CHARX, the Character Card V3 zip container: read its `card.json` and the main icon asset the card names, and write
 * one (the card and the avatar as its icon). Reading stays within limits whatever the archive claims: entry names
 * that climb out of the archive (`..`, absolute paths, drive letters) refuse the file, the directory is listed
 * without expanding anything, and an entry is expanded in small steps that stop as soon as it passes its limit or
 * the size it declared, so a zip bomb costs at most its limit in memory and time. Pure (fflate, no Node built-ins).
 */
import { Unzip, UnzipInflate, unzipSync, zipSync, type UnzipFile, type Zippable } from 'fflate'
import { ImportError } from '../shared/card-text.ts'

/** Limits of what a CHARX may hold and what of it we expand. */
export const CHARX_LIMITS = {
  /** Entries in the archive. */
  entries: 10_000,
  /** Bytes of `card.json` expanded (the card JSON limit, as UTF-8 of mostly one-byte characters). */
  card: 16 * 1024 * 1024,
  /** Bytes of the icon expanded; a picture this size is far over the avatar limit already. */
  icon: 8 * 1024 * 1024,
} as const

/** Compressed bytes handed to the inflater per step: one step expands to at most about 1000 times this. */
const STEP = 16 * 1024

/** True when bytes start like a zip archive (a local file header). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
}

/** An entry name that leaves the archive's root: `..` segments, absolute paths, drive letters, NUL. */
function escapes(name: string): boolean {
  return name.includes('\0') || /^[\\/]/.test(name) || /^[A-Za-z]:/.test(name) || name.split(/[\\/]/).includes('..')
}

/** An opened CHARX: its entry names (as listed by the central directory) and a bounded reader of one entry. */
export interface Charx {
  names: Set<string>
  read(name: string, limit: number, field: string): Uint8Array
}

/** List a CHARX without expanding anything; refuses archives that are not zips, too many entries, or path tricks. */
export function openCharx(bytes: Uint8Array): Charx {
  const listed: { name: string; originalSize: number }[] = []
  try {
    unzipSync(bytes, { filter: (f) => { listed.push({ name: f.name, originalSize: f.originalSize }); return false } })
  } catch (e) {
    throw new ImportError('file', `is not a readable zip archive (${(e as Error).message}); a CHARX is a zip`)
  }
  if (listed.length > CHARX_LIMITS.entries) {
    throw new ImportError('file', `is a zip of ${listed.length} entries, over the limit of ${CHARX_LIMITS.entries}`, CHARX_LIMITS.entries)
  }
  const bad = listed.find((f) => escapes(f.name))
  if (bad !== undefined) throw new ImportError('file', `has an entry named ${JSON.stringify(bad.name.slice(0, 80))} that points outside the archive; the CHARX is refused`)
  const declared = new Map(listed.map((f) => [f.name, f.originalSize]))
  return {
    names: new Set(declared.keys()),
    read(name, limit, field) {
      const size = declared.get(name)
      if (size === undefined) throw new ImportError(field, `is not in the archive`)
      if (size > limit) throw new ImportError(field, `says it expands to ${size} bytes, over the limit of ${limit}`, limit)
      return expand(bytes, name, Math.min(limit, size), field, limit)
    },
  }
}

/** Expand one entry, stopping (and refusing) as soon as it passes `cap` bytes: the size it declared, within `limit`. */
function expand(bytes: Uint8Array, name: string, cap: number, field: string, limit: number): Uint8Array {
  const chunks: Uint8Array[] = []
  let size = 0
  // Held in an object: the callbacks change it, which the type checker cannot see through the calls to push().
  const at: { state: 'waiting' | 'reading' | 'done' | 'over' } = { state: 'waiting' }
  let failure: Error | undefined
  const unzip = new Unzip((file: UnzipFile) => {
    if (file.name !== name || at.state !== 'waiting') return
    at.state = 'reading'
    file.ondata = (err, chunk, final) => {
      if (at.state !== 'reading') return
      if (err !== null) {
        failure = err
        at.state = 'done'
        return
      }
      size += chunk.length
      if (size > cap) {
        at.state = 'over'
        file.terminate()
        return
      }
      chunks.push(chunk)
      if (final) at.state = 'done'
    }
    file.start()
  })
  unzip.register(UnzipInflate)
  try {
    for (let from = 0; from < bytes.length && (at.state === 'waiting' || at.state === 'reading'); from += STEP) {
      unzip.push(bytes.subarray(from, from + STEP), from + STEP >= bytes.length)
    }
  } catch (e) {
    failure = e as Error
  }
  if (at.state === 'over') throw new ImportError(field, `expands past ${cap} bytes (${cap === limit ? 'the limit' : 'the size its archive entry declares'}); the archive looks like a zip bomb and is refused`, limit)
  if (failure !== undefined) throw new ImportError(field, `cannot be expanded (${failure.message})`)
  if (at.state !== 'done') throw new ImportError(field, 'is cut short in the archive')
  const out = new Uint8Array(size)
  let offset = 0
  for (const c of chunks) {
    out.set(c, offset)
    offset += c.length
  }
  return out
}

/** The path inside the archive an asset URI names (`embeded://…`, the spec's own spelling, or `embedded://…`). */
export function assetPath(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined
  const m = /^embedd?ed:\/\/(.+)$/.exec(uri)
  return m === null ? undefined : m[1]!.replace(/^\/+/, '')
}

/** The main icon a V3 card's `assets` names: `{type: 'icon', name: 'main'}`, else its first icon. */
export function mainIcon(data: Record<string, unknown>): { path: string; ext: string } | undefined {
  const assets = Array.isArray(data.assets) ? data.assets.filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null) : []
  const icons = assets.filter((a) => a.type === 'icon' && assetPath(a.uri) !== undefined)
  const icon = icons.find((a) => a.name === 'main') ?? icons[0]
  if (icon === undefined) return undefined
  const path = assetPath(icon.uri)!
  const ext = typeof icon.ext === 'string' && icon.ext !== '' ? icon.ext : (/\.([^.]+)$/.exec(path)?.[1] ?? '')
  return { path, ext: ext.toLowerCase() }
}

/** A CHARX holding `card` (a V3 card object, written as given) and, when given, the icon picture under `iconPath`. */
export function writeCharx(card: unknown, icon?: { path: string; bytes: Uint8Array }): Uint8Array {
  const files: Zippable = { 'card.json': new TextEncoder().encode(JSON.stringify(card)) }
  // Pictures are compressed already: stored as they are.
  if (icon !== undefined) files[icon.path] = [icon.bytes, { level: 0 }]
  return zipSync(files, { level: 6 })
}
