/**
 * Crafted files from the internet, as `profiles.importFiles` takes them: each case of the "files must not freeze or
 * crash dsh" report (a 129-byte CHARX claiming four billion entries, Markdown lines that made patterns backtrack, a
 * card of 4,000 unknown keys, a PNG of 300,000 broken card chunks, front matter 400,000 brackets deep, a file of
 * 247,500 headings), and the small ones (a CHARX of an unknown compression method, a deeply nested card). Shared by
 * the unit, property and end-to-end specs and the benchmark; it asserts nothing.
 */
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import { chunk, png } from './png.ts'
import { richV2, zip } from './card-fixtures.ts'

/** Bytes as a card file argument. */
export const binaryFile = (name: string, bytes: Uint8Array): ImportFile => ({
  name,
  format: 'card',
  data: Buffer.from(bytes).toString('base64'),
})
/** Text as a Markdown or card file argument. */
export const textFile = (
  name: string,
  text: string,
  format: 'markdown' | 'card' | 'envelope' = 'markdown',
): ImportFile => ({ name, format, text })

/**
 * A zip of one local file header and an end record (with its ZIP64 form) that claims `count` entries in a central
 * directory that is not there: 129 bytes for any count.
 */
export function claimingZip(count: number): Buffer {
  const local = Buffer.alloc(31)
  local.writeUInt32LE(0x04034b50, 0)
  local.writeUInt16LE(1, 26)
  local.write('a', 30)
  const z64 = Buffer.alloc(56)
  z64.writeUInt32LE(0x06064b50, 0)
  z64.writeBigUInt64LE(44n, 4)
  z64.writeBigUInt64LE(BigInt(count), 24)
  z64.writeBigUInt64LE(BigInt(count), 32)
  z64.writeBigUInt64LE(0n, 40)
  z64.writeBigUInt64LE(0n, 48)
  const locator = Buffer.alloc(20)
  locator.writeUInt32LE(0x07064b50, 0)
  locator.writeBigUInt64LE(BigInt(local.length), 8)
  locator.writeUInt32LE(1, 16)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(0xffff, 8)
  end.writeUInt16LE(0xffff, 10)
  end.writeUInt32LE(0xffffffff, 12)
  end.writeUInt32LE(0xffffffff, 16)
  return Buffer.concat([local, z64, locator, end])
}

/** A CHARX whose card.json says it is compressed with `method` (its bytes stored as they are). */
export function charxWithMethod(method: number): Buffer {
  const file = zip({ 'card.json': JSON.stringify(richV2()) }, 0)
  for (let at = 0; at + 4 <= file.length; at++) {
    const sig = file.readUInt32LE(at)
    if (sig === 0x04034b50) file.writeUInt16LE(method, at + 8)
    if (sig === 0x02014b50) file.writeUInt16LE(method, at + 10)
  }
  return file
}

/** A card with `keys` unknown keys of `chars` characters of text each. */
export function manyKeysCard(keys: number, chars = 150): string {
  const card = richV2()
  for (let i = 0; i < keys; i++) card.data[`unknown_key_${i}`] = 'x'.repeat(chars)
  return JSON.stringify(card)
}

/** A PNG picture followed by `count` `chara` tEXt chunks that hold no card. */
export function brokenChunksPng(count: number): Buffer {
  const pic = png(8, 8, 1)
  const bad = chunk('tEXt', Buffer.from('chara\0!', 'latin1'))
  return Buffer.concat([pic.subarray(0, -12), Buffer.alloc(bad.length * count).fill(bad), pic.subarray(-12)])
}

/** A card whose unknown key holds objects nested `depth` deep. */
export function deepCard(depth: number): string {
  return `{"name":"Deep","description":"a card nested deep","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`
}

/** One crafted file of the report, by name, with what the issue measured before the fix. */
export interface HostileCase {
  name: string
  file: () => ImportFile
}

/** Every crafted file the report lists, one import each. */
export const HOSTILE_CASES: HostileCase[] = [
  {
    name: 'charx claiming 4,294,967,280 entries (129 bytes)',
    file: () => binaryFile('claims.charx', claimingZip(4_294_967_280)),
  },
  { name: 'charx claiming 1,000,000 entries', file: () => binaryFile('million.charx', claimingZip(1_000_000)) },
  {
    name: 'markdown "# a" + 40,000 spaces + "b"',
    file: () => textFile('spaces.md', `# a${' '.repeat(40_000)}b\n\ntext\n`),
  },
  {
    name: 'markdown "##" title of 40,000 spaces',
    file: () => textFile('title.md', `## a${' '.repeat(40_000)}b\n\ntext\n`),
  },
  {
    name: 'front matter tools: "((((…" 40,000 long',
    file: () => textFile('tools.md', `---\ntools: "${'('.repeat(40_000)}"\n---\nbody\n`),
  },
  { name: 'card with 4,000 unknown keys (643 KB)', file: () => textFile('keys.json', manyKeysCard(4_000), 'card') },
  { name: 'png with 300,000 broken chara chunks', file: () => binaryFile('chunks.png', brokenChunksPng(300_000)) },
  {
    name: 'front matter 400,000 brackets deep',
    file: () => textFile('deep.md', `---\na: ${'['.repeat(400_000)}\n---\nbody\n`),
  },
  { name: 'markdown of 247,500 headings', file: () => textFile('headings.md', '# a\n'.repeat(247_500)) },
  { name: 'card nested 100,000 objects deep', file: () => textFile('deep.json', deepCard(100_000), 'card') },
  { name: 'charx with compression method 99', file: () => binaryFile('method.charx', charxWithMethod(99)) },
]

/**
 * An envelope text of `profiles` profiles of `items` tiny memory items each: the 16 MB file of 95 × 10,000 items that
 * froze the host 37 s on import and made every later start take 32 s.
 */
export function itemsEnvelope(profiles: number, items: number): string {
  const list = Array.from({ length: profiles }, (_, p) => ({
    id: `p${p}`,
    name: `Profile ${p}`,
    memory: { summary: '', items: Array.from({ length: items }, (_, i) => ({ text: i.toString(36) })) },
  }))
  return JSON.stringify({ format: 'dsh-agent-profiles', version: 1, profiles: list })
}

/**
 * The body the page sends for a large file once the user said it is theirs (conflicts asked about): an envelope of
 * `profiles` profiles, ids `${prefix}${p}` and names `${name} ${p}`, of `items` memory items whose texts `text` gives.
 */
export function ownImportBody(
  prefix: string,
  name: string,
  profiles: number,
  items: number,
  text: (profile: number, item: number) => string,
) {
  const list = Array.from({ length: profiles }, (_, p) => ({
    id: `${prefix}${p}`,
    name: `${name} ${p}`,
    memory: { summary: '', items: Array.from({ length: items }, (_, i) => ({ text: text(p, i) })) },
  }))
  return {
    op: 'profiles.importFiles',
    conflicts: 'ask',
    files: [
      {
        name: 'mine.json',
        format: 'envelope',
        own: true,
        text: JSON.stringify({ format: 'dsh-agent-profiles', version: 1, profiles: list }),
      },
    ],
  }
}

/** A file of one's own: `profiles` profiles (ids `${tag}${p}`, names `${tag} ${p}`) of `items` items (ids `m${k}`) each. */
export const ownEnvelope = (tag: string, profiles: number, items: number, text: (p: number, k: number) => string) => ({
  format: 'dsh-agent-profiles',
  version: 1,
  profiles: Array.from({ length: profiles }, (_, p) => ({
    id: `${tag}${p}`,
    name: `${tag} ${p}`,
    memory: { summary: '', items: Array.from({ length: items }, (_, k) => ({ id: `m${k}`, text: text(p, k) })) },
  })),
})

/** `envelope` as the page sends a file the user said is theirs. */
export const ownFileOf = (envelope: unknown) => ({
  name: 'mine.json',
  format: 'envelope' as const,
  text: JSON.stringify(envelope),
  own: true,
})
