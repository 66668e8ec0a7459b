/**
 * One profile as a file to download: Character Card V2 as PNG (our avatar, or a plain tile when the avatar is not a
 * PNG or there is none) or as JSON, Character Card V3 as CHARX (the avatar as its icon asset), or a Markdown profile
 * file. Owns the formats' names, file names and the tile.
 * Host only (node:zlib draws the tile). It is given the profile and never looks in the state or the store;
 * `GET /__ap/export/<id>?format=…` serves it (lib/http/routes-profiles.ts).
 */
import { deflateSync } from 'node:zlib'
import type { Profile } from '../state/model.ts'
import { writeCharx } from './card-charx.ts'
import { embedCard, pictureDigest, tileColour } from '../shared/card-png.ts'
import { fileBaseName } from '../shared/card-text.ts'
import { profileToCard } from './profile-to-card.ts'
import { profileToMarkdown } from './markdown.ts'
import { PNG_SIGNATURE, chunkBytes, isPng, walkPng } from '../shared/png.ts'
import { avatarParts, invalid } from '../validate/state.ts'

/** The formats one profile can be exported as. */
const EXPORT_FORMATS = ['card-png', 'card-json', 'charx', 'markdown'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** A download: its content type, the Content-Disposition header value, and the bytes. */
export interface ProfileFile {
  type: string
  disposition: string
  body: Buffer
}

/** Width and height of the tile, the 2:3 portrait that card sites and SillyTavern show. */
const TILE = { width: 512, height: 768 }

/**
 * A plain single-colour PNG tile. The host has no image library to draw an emoji with; the settings page draws the
 * emoji on a canvas instead when it exports.
 */
function tilePng(seed: string): Uint8Array {
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, TILE.width)
  view.setUint32(4, TILE.height)
  header.set([8, 2, 0, 0, 0], 8)
  const [r, g, b] = tileColour(seed)
  const row = new Uint8Array(1 + TILE.width * 3)
  for (let x = 0; x < TILE.width; x++) row.set([r, g, b], 1 + x * 3)
  const rows = new Uint8Array(row.length * TILE.height)
  for (let y = 0; y < TILE.height; y++) rows.set(row, y * row.length)
  const parts = [
    PNG_SIGNATURE,
    chunkBytes('IHDR', header),
    chunkBytes('IDAT', deflateSync(rows)),
    chunkBytes('IEND', new Uint8Array(0)),
  ]
  return Buffer.concat(parts)
}

/** The profile as a Card V2 PNG: its PNG avatar as the picture, or a tile (then our extension carries the avatar). */
function cardPng(p: Profile): Uint8Array {
  const picture = p.avatar === '' ? undefined : avatarParts(p.avatar)
  if (picture !== undefined && picture.type === 'png' && isPng(picture.bytes)) {
    const { v2, v3 } = profileToCard(p, { avatarInExtension: false })
    return embedCard(picture.bytes, JSON.stringify(v2), v3 === undefined ? undefined : JSON.stringify(v3))
  }
  const tile = tilePng(p.id)
  const { v2, v3 } = profileToCard(p, {
    avatarInExtension: p.avatar !== '',
    placeholder: pictureDigest(walkPng(tile).chunks),
  })
  return embedCard(tile, JSON.stringify(v2), v3 === undefined ? undefined : JSON.stringify(v3))
}

/**
 * The profile as a CHARX: its card as V3 (the V3 card it came from, or its V2 card restated as V3) with the avatar,
 * in whatever raster type it is, as the main icon; a profile without an avatar names the reader's default icon.
 */
function charxFile(p: Profile): Uint8Array {
  const { v2, v3 } = profileToCard(p, { avatarInExtension: false })
  const card = v3 ?? { ...v2, spec: 'chara_card_v3', spec_version: '3.0' }
  const data = card.data as Record<string, unknown>
  const picture = p.avatar === '' ? undefined : avatarParts(p.avatar)
  const ext = picture === undefined ? 'png' : picture.type === 'jpeg' ? 'jpg' : picture.type
  const path = `assets/icon/images/main.${ext}`
  // Assets the archive would have to carry (other embedded files) are not kept: only our icon travels.
  const others = (Array.isArray(data.assets) ? data.assets : []).filter((a) => {
    const asset = a as Record<string, unknown>
    return (
      typeof asset.uri === 'string' &&
      !/^embedd?ed:/.test(asset.uri) &&
      !(asset.type === 'icon' && asset.name === 'main')
    )
  })
  const icon = { type: 'icon', uri: picture === undefined ? 'ccdefault:' : `embeded://${path}`, name: 'main', ext }
  const out = { ...card, data: { ...data, assets: [icon, ...others] } }
  return writeCharx(out, picture === undefined ? undefined : { path, bytes: picture.bytes })
}

/** `attachment` with an ASCII fallback name and the real (UTF-8) one, so Chinese names survive every browser. */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/**
 * Profile `p` as a file in `format` (`lang` picks the Markdown headings). Throws StoreError `invalid` for an unknown
 * format; finding the profile is the caller's (the route's).
 */
export function exportFile(p: Profile, format: string | null, lang: string | null): ProfileFile {
  if (!(EXPORT_FORMATS as readonly (string | null)[]).includes(format))
    throw invalid('format', `must be one of ${EXPORT_FORMATS.join(', ')}`)
  const name = fileBaseName(p.name, p.id)
  if (format === 'card-png') {
    return { type: 'image/png', disposition: disposition(`${name}.png`), body: Buffer.from(cardPng(p)) }
  }
  if (format === 'charx') {
    return { type: 'application/zip', disposition: disposition(`${name}.charx`), body: Buffer.from(charxFile(p)) }
  }
  if (format === 'card-json') {
    const { v2 } = profileToCard(p, { avatarInExtension: true })
    return {
      type: 'application/json; charset=utf-8',
      disposition: disposition(`${name}.json`),
      body: Buffer.from(JSON.stringify(v2, null, 2)),
    }
  }
  const md = profileToMarkdown(p, lang === 'en' ? 'en' : 'zh')
  return { type: 'text/markdown; charset=utf-8', disposition: disposition(`${name}.md`), body: Buffer.from(md) }
}
