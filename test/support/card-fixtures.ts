/**
 * Character Card fixtures for the card specs, built here from plain JSON and the node:zlib PNGs of support/png.ts
 * (never from the code under test): PNG cards with the card chunk before or after the image data or after IEND, and
 * a reader that pulls a card back out of an exported PNG, and CHARX zips (made with fflate directly), honest or bombs.
 */
import { strToU8, zipSync } from 'fflate'
import { chunk, png, records } from './png.ts'

/** A tEXt chunk holding `text` under `keyword`. */
export function textRecord(keyword: string, text: string): Buffer {
  return chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'))
}

/** Base64 of the UTF-8 JSON of `card`, as card writers store it. */
export function b64(card: unknown): string {
  return Buffer.from(JSON.stringify(card), 'utf8').toString('base64')
}

/** Where a card chunk goes in the file. */
export type Place = 'before-idat' | 'after-idat' | 'after-iend'

/** `picture` with these tEXt chunks placed at `place`. */
export function withTexts(picture: Buffer, texts: { keyword: string; text: string }[], place: Place): Buffer {
  const recs = records(picture)
  const extra = texts.map((t) => textRecord(t.keyword, t.text))
  const parts: Buffer[] = [picture.subarray(0, 8)]
  for (const r of recs) {
    if (place === 'before-idat' && r.type === 'IDAT') parts.push(...extra)
    parts.push(r.record)
    if (place === 'after-idat' && r.type === 'IDAT') parts.push(...extra)
  }
  if (place === 'after-iend') parts.push(...extra)
  return Buffer.concat(parts)
}

/** The default picture of a fixture card. */
export const picture = (seed = 3): Buffer => png(24, 36, seed)

/** A PNG card: `cards` are (keyword, card JSON) pairs, stored as base64 JSON. */
export function pngCard(
  cards: { keyword: string; card: unknown }[],
  place: Place = 'after-idat',
  pic: Buffer = picture(),
): Buffer {
  return withTexts(
    pic,
    cards.map((c) => ({ keyword: c.keyword, text: b64(c.card) })),
    place,
  )
}

/** The card JSON under `keyword` in a PNG, or undefined. */
export function cardIn(file: Buffer, keyword: string): any {
  const rec = records(file).find((r) => r.type === 'tEXt' && r.data.toString('latin1').startsWith(`${keyword}\0`))
  if (rec === undefined) return undefined
  return JSON.parse(Buffer.from(rec.data.toString('latin1').slice(keyword.length + 1), 'base64').toString('utf8'))
}

/** The file without its tEXt chunks, to compare pictures. */
export function withoutTexts(file: Buffer): Buffer {
  return Buffer.concat([
    file.subarray(0, 8),
    ...records(file)
      .filter((r) => r.type !== 'tEXt')
      .map((r) => r.record),
  ])
}

/** A rich V2 card: every field set, macros, a speaking cue, a lorebook with a disabled entry, unknown extensions. */
export function richV2(): any {
  return {
    spec: 'chara_card_v2',
    spec_version: '2.0',
    data: {
      name: 'Seraphina',
      description:
        '{{char}} is a guardian of the forest.\nSpeech: soft and old-fashioned, calls {{user}} "traveler".\nShe heals the wounded.',
      personality: 'gentle, protective',
      scenario: '{{user}} wakes up in her glade.',
      first_mes: '*You wake up.* "Rest, traveler." FIRST-MES',
      mes_example: '<START>\n{{user}}: Who are you?\n{{char}}: I am Seraphina.',
      creator_notes: 'CREATOR-NOTE-NEVER-INJECT',
      system_prompt: '{{original}}\nStay in character.',
      post_history_instructions: 'Keep replies short.',
      alternate_greetings: ['Hello again.', 'The forest is quiet.'],
      character_book: {
        name: 'Glade',
        scan_depth: 4,
        token_budget: 500,
        recursive_scanning: false,
        extensions: {},
        entries: [
          {
            keys: ['glade'],
            content: 'The glade is hidden by magic.',
            extensions: {},
            enabled: true,
            insertion_order: 2,
          },
          { keys: ['age'], content: 'Seraphina is 300 years old.', extensions: {}, enabled: true, insertion_order: 1 },
          { keys: ['secret'], content: 'DISABLED-ENTRY', extensions: {}, enabled: false, insertion_order: 0 },
        ],
      },
      tags: ['fantasy', 'healer'],
      creator: 'someone',
      character_version: '1.2',
      extensions: {
        talkativeness: '0.5',
        fav: false,
        depth_prompt: { prompt: 'x', depth: 4 },
        unknown_tool: { a: [1, 2] },
      },
    },
  }
}

/** A V3 card with V3-only fields. */
export function richV3(): any {
  const v2 = richV2()
  return {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...v2.data,
      name: 'Seraphina V3',
      nickname: 'Sera',
      creator_notes_multilingual: { en: 'notes', zh: '说明' },
      source: ['https://example.invalid/card'],
      group_only_greetings: ['Hi all.'],
      creation_date: 1700000000,
      modification_date: 1700000500,
      assets: [{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }],
    },
  }
}

/** A zip of `files`, made with fflate directly (not with the CHARX writer under test). */
export function zip(files: Record<string, string | Uint8Array>, level: 0 | 6 | 9 = 6): Buffer {
  const entries = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v]))
  return Buffer.from(zipSync(entries, { level }))
}

/** A CHARX: `card.json` holding `card`, and an icon picture at `assets/icon/images/main.png` when given. */
export function charx(card: unknown, icon?: Uint8Array): Buffer {
  return zip({
    'card.json': JSON.stringify(card),
    ...(icon === undefined ? {} : { 'assets/icon/images/main.png': icon }),
  })
}

/** `file` (a zip) with every entry's declared uncompressed size set to `size`, as a zip bomb that lies about itself does. */
export function lyingSizes(file: Buffer, size: number): Buffer {
  const out = Buffer.from(file)
  for (let at = 0; at + 4 <= out.length; at++) {
    const sig = out.readUInt32LE(at)
    if (sig === 0x04034b50) out.writeUInt32LE(size, at + 22)
    if (sig === 0x02014b50) out.writeUInt32LE(size, at + 24)
  }
  return out
}

/** A V3 card whose main icon is embedded in its CHARX. */
export function charxCard(): any {
  const v3 = richV3()
  v3.data.assets = [{ type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' }]
  return v3
}
