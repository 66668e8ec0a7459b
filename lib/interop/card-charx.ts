/**
 * CHARX, the Character Card V3 zip container: read its `card.json` and the main icon asset the card names, and write
 * one (the card and the avatar as its icon). Reading stays within limits whatever the archive claims: entry names
 * that climb out of the archive (`..`, absolute paths, drive letters) refuse the file; listing and expanding are
 * zip-read.ts's, bounded by the file's real size and the limits here. Pure (fflate, no Node built-ins).
 */
import { zipSync, type Zippable } from 'fflate'
import { expandEntry, listZip, type ZipEntry } from './zip-read.ts'
import { ImportError } from '../shared/errors.ts'

/** Limits of what a CHARX may hold and what of it we expand. */
export const CHARX_LIMITS = {
  /** Entries in the archive. */
  entries: 10_000,
  /** Bytes of `card.json` expanded (the card JSON limit, as UTF-8 of mostly one-byte characters). */
  card: 4 * 1024 * 1024,
  /** Bytes of the icon expanded; a picture this size is far over the avatar limit already. */
  icon: 8 * 1024 * 1024,
} as const

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
  const listed = listZip(bytes, CHARX_LIMITS.entries)
  const bad = listed.find((f) => escapes(f.name))
  if (bad !== undefined) throw new ImportError('file', 'charxOutside', { name: bad.name.slice(0, 80) })
  // The first entry of a name wins, as readers that stop at the first match see the archive.
  const entries = new Map<string, ZipEntry>()
  for (const e of listed) if (!entries.has(e.name)) entries.set(e.name, e)
  return {
    names: new Set(entries.keys()),
    read(name, limit, field) {
      const entry = entries.get(name)
      if (entry === undefined) throw new ImportError(field, 'charxMissing')
      if (entry.size > limit) throw new ImportError(field, 'charxEntryTooBig', { size: entry.size, limit })
      return expandEntry(bytes, entry, field, limit)
    },
  }
}

/** The path inside the archive an asset URI names (`embeded://…`, the spec's own spelling, or `embedded://…`). */
function assetPath(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined
  const m = /^embedd?ed:\/\/(.+)$/.exec(uri)
  return m === null ? undefined : m[1]!.replace(/^\/+/, '')
}

/** The main icon a V3 card's `assets` names: `{type: 'icon', name: 'main'}`, else its first icon. */
export function mainIcon(data: Record<string, unknown>): { path: string; ext: string } | undefined {
  const assets = Array.isArray(data.assets)
    ? data.assets.filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null)
    : []
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
