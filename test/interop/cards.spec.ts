/**
 * Character Cards through the real store: PNG and JSON cards of V1/V2/V3 imported with `profiles.importFiles` (always
 * merged), the field mapping a user relies on, creator notes never reaching the prompt, both round trips (card → ours
 * → card keeps every card field; ours → card → ours keeps every profile field), broken real-world cards (a precise
 * error or a best-effort import, never a crash), and the export route. Every fixture is built in support/card-fixtures.ts.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FileResult } from '../../lib/shared/import-report.ts'
import { findProfile } from '../../lib/commands/kit.ts'
import { exportFile } from '../../lib/interop/file-export.ts'
import { LIMITS, memoryChars, type Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import type { Command, ProfileStore } from '../../lib/store/store.ts'
import { b64, cardIn, picture, pngCard, richV2, richV3, withTexts, withoutTexts } from '../support/card-fixtures.ts'
import { expectFileFailed, expectRefused, freshStore } from '../support/store-helpers.ts'
import { httpClient, routeMeta } from '../support/http.ts'
import { chunk, png, pngDataUrl } from '../support/png.ts'
import { CARD_FILE_LIMIT } from '../../lib/shared/files.ts'

let store: ProfileStore
let dispose: () => Promise<void>

beforeEach(async () => {
  ;({ store, dispose } = await freshStore())
})
afterEach(async () => {
  await dispose()
})

type Reply = { imported: number; files: FileResult[] }

async function importFiles(...files: Record<string, unknown>[]): Promise<Reply> {
  return (await store.command({ op: 'profiles.importFiles', files } as unknown as Command)) as unknown as Reply
}

const pngFile = (name: string, bytes: Buffer, extra: Record<string, unknown> = {}) => ({
  name,
  format: 'card',
  data: bytes.toString('base64'),
  ...extra,
})
const jsonFile = (name: string, card: unknown) => ({
  name,
  format: 'card',
  text: typeof card === 'string' ? card : JSON.stringify(card),
})
const byId = (id: string): Profile => store.state.profiles.find((p) => p.id === id)!
const added = (r: Reply, i = 0): Profile => byId(r.files[i]!.profileIds[0]!)
const exported = (id: string, format: 'card-png' | 'card-json' | 'markdown') =>
  exportFile(findProfile(store.state, id, 'id'), format, null).body
/** What the report says of richV2's greeting and its two alternate greetings. */
const RICH_GREETINGS = { key: 'greetings', params: { length: 42, count: 2 } }
const RICH_BOOK = [
  { key: 'bookDisabled', params: { count: 1 } },
  { key: 'bookArchivedAll', params: { count: 2 } },
]
/** A card's data without our own extension, the part that must survive a round trip unchanged. */
function foreign(data: Record<string, any>): Record<string, any> {
  const { dsh_agent_profiles: _ours, ...ext } = data.extensions
  return { ...data, extensions: ext }
}

describe('importing a PNG card', () => {
  it('maps every field deliberately, keeps the picture as the avatar, and merges beside the existing profiles', async () => {
    const before = store.state.profiles
    const file = pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat')
    const r = await importFiles(pngFile('seraphina.png', file))
    expect(r.imported).toBe(1)
    expect(store.state.profiles.slice(0, before.length)).toEqual(before)
    expect(store.state.activeId).toBe('general')
    const p = added(r)
    expect(p).toMatchObject({
      name: 'Seraphina',
      role: 'Seraphina is a guardian of the forest.\nShe heals the wounded.\n\nScenario: the user wakes up in her glade.',
      personality: 'gentle, protective',
      speakingStyle:
        'Speech: soft and old-fashioned, calls the user "traveler".\n\n<START>\nthe user: Who are you?\nSeraphina: I am Seraphina.',
      rules: 'Stay in character.\n\nKeep replies short.',
      memoryEnabled: true,
    })
    expect(p.memory.items.map((it) => [it.text, it.source])).toEqual([
      ['Seraphina is 300 years old.', 'import'],
      ['The glade is hidden by magic.', 'import'],
    ])
    expect(r.files[0]!.warnings).toEqual([...RICH_BOOK, RICH_GREETINGS])
    expect(Buffer.from(p.avatar.split(',')[1]!, 'base64')).toEqual(picture())
  })

  it('never puts creator notes, greetings or disabled lore into the prompt', async () => {
    const p = added(await importFiles(pngFile('s.png', pngCard([{ keyword: 'chara', card: richV2() }]))))
    const { text } = renderProfile(p)
    expect(text).toContain('Stay in character.')
    for (const hidden of ['CREATOR-NOTE-NEVER-INJECT', 'FIRST-MES', 'DISABLED-ENTRY', 'Hello again.', '{{original}}'])
      expect(text).not.toContain(hidden)
  })

  it('names the greetings it does not use in the report, and keeps them, so an exported card carries them', async () => {
    const card = richV2()
    const r = await importFiles(pngFile('s.png', pngCard([{ keyword: 'chara', card }])))
    expect(r.files[0]!.warnings).toContainEqual(RICH_GREETINGS)
    const out = JSON.parse(exported(added(r).id, 'card-json').toString())
    expect(out.data.first_mes).toBe(card.data.first_mes)
    expect(out.data.alternate_greetings).toEqual(card.data.alternate_greetings)
    // One greeting alone, and none: the report says what there is, and nothing when the card has no greeting.
    const one = { ...card, data: { ...card.data, first_mes: '  ', alternate_greetings: ['Hi.'] } }
    expect((await importFiles(jsonFile('one.json', one))).files[0]!.warnings).toContainEqual({
      key: 'greetings',
      params: { length: 0, count: 1 },
    })
    const none = { ...card, data: { ...card.data, first_mes: '', alternate_greetings: [] } }
    expect((await importFiles(jsonFile('none.json', none))).files[0]!.warnings.map((w) => w.key)).not.toContain(
      'greetings',
    )
  })

  it.each(['before-idat', 'after-idat', 'after-iend'] as const)('finds the card chunk %s', async (place) => {
    const p = added(await importFiles(pngFile('x.png', pngCard([{ keyword: 'chara', card: richV2() }], place))))
    expect(p.name).toBe('Seraphina')
  })

  it('prefers ccv3 over chara when a V3 card carries both, and uses the V3 nickname for {{char}}', async () => {
    const v2 = richV2()
    v2.data.name = 'Old V2 name'
    const file = pngCard([
      { keyword: 'chara', card: v2 },
      { keyword: 'ccv3', card: richV3() },
    ])
    const p = added(await importFiles(pngFile('v3.png', file)))
    expect(p.name).toBe('Seraphina V3')
    expect(p.role.startsWith('Sera is a guardian')).toBe(true)
  })

  it('falls back to chara, with a warning, when the ccv3 chunk is broken', async () => {
    const file = withTexts(
      picture(),
      [
        { keyword: 'ccv3', text: b64(richV3()).slice(0, 101) },
        { keyword: 'chara', text: b64(richV2()) },
      ],
      'after-idat',
    )
    const r = await importFiles(pngFile('v3.png', file))
    expect(added(r).name).toBe('Seraphina')
    expect(r.files[0]!.warnings).toContainEqual({ key: 'chunkSkipped', params: { count: 1 } })
  })

  it('imports the same card twice as one profile: the second is reported unchanged', async () => {
    const file = pngFile('s.png', pngCard([{ keyword: 'chara', card: richV2() }]))
    const r = await importFiles(file, file)
    expect(r.imported).toBe(1)
    expect(r.files[1]).toMatchObject({ imported: 0, unchanged: [{ id: r.files[0]!.profileIds[0], name: 'Seraphina' }] })
    expect(store.state.profiles.filter((p) => p.name === 'Seraphina')).toHaveLength(1)
  })

  it('uses the shrunk avatar the settings page sends instead of a picture over the limit', async () => {
    const big = pngCard(
      [{ keyword: 'chara', card: richV2() }],
      'after-idat',
      Buffer.concat([png(8, 8), Buffer.alloc(0)]),
    )
    const small = pngDataUrl(4, 4, 9)
    expect(added(await importFiles(pngFile('a.png', big, { avatar: small }))).avatar).toBe(small)
  })

  it('keeps only the chunks that draw the picture, so a card with a huge application chunk still gets its avatar', async () => {
    const noisy = withTexts(picture(), [{ keyword: 'Comment', text: 'x'.repeat(LIMITS.avatar) }], 'before-idat')
    const withApp = Buffer.concat([
      noisy.subarray(0, -12),
      chunk('prVt', Buffer.alloc(3_500_000, 7)),
      noisy.subarray(-12),
    ])
    const r = await importFiles(
      pngFile('big.png', pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', withApp)),
    )
    expect(r.files[0]!.warnings).toEqual([...RICH_BOOK, RICH_GREETINGS])
    expect(Buffer.from(added(r).avatar.split(',')[1]!, 'base64')).toEqual(picture())
  })

  it('leaves a picture whose image data alone is over the avatar limit out, and says how to get it in', async () => {
    const pic = picture()
    const huge = Buffer.concat([pic.subarray(0, 33), chunk('IDAT', randomBytes(320_000)), pic.subarray(-12)])
    const r = await importFiles(pngFile('big.png', pngCard([{ keyword: 'chara', card: richV2() }], 'after-idat', huge)))
    expect(added(r).avatar).toBe('')
    expect(r.files[0]!.warnings).toContainEqual({
      key: 'pictureTooBig',
      params: { length: expect.any(Number), limit: 400_000 },
    })
  })
})

describe('card → ours → card keeps every field of the card', () => {
  it('V2 PNG: every data field, the lorebook, unknown extensions and top-level keys come back unchanged', async () => {
    const card = {
      ...richV2(),
      name: 'Seraphina',
      description: richV2().data.description,
      create_date: '2024-1-1',
      fav: false,
    }
    const p = added(await importFiles(pngFile('s.png', pngCard([{ keyword: 'chara', card }]))))
    const out = cardIn(exported(p.id, 'card-png'), 'chara')
    expect(out.spec).toBe('chara_card_v2')
    expect(foreign(out.data)).toEqual(expect.objectContaining(card.data))
    expect(out.name).toBe('Seraphina')
    expect(out.description).toBe(card.description)
    expect(out.create_date).toBe('2024-1-1')
    expect(out.fav).toBe(false)
    expect(withoutTexts(exported(p.id, 'card-png'))).toEqual(picture())
  })

  it('V3 PNG: writes both chunks again; the V3 card keeps its V3 fields', async () => {
    const v3 = richV3()
    const p = added(await importFiles(pngFile('v3.png', pngCard([{ keyword: 'ccv3', card: v3 }]))))
    const file = exported(p.id, 'card-png')
    const back = cardIn(file, 'ccv3')
    expect(back.spec).toBe('chara_card_v3')
    expect(foreign(back.data)).toEqual(expect.objectContaining(v3.data))
    expect(cardIn(file, 'chara').spec).toBe('chara_card_v2')
  })

  it('V1 JSON: comes back as V2 with every V1 field as it was', async () => {
    const v1 = {
      name: 'Old',
      description: 'An old card.',
      personality: 'dry',
      scenario: '',
      first_mes: 'Hi.',
      mes_example: '',
    }
    const p = added(await importFiles(jsonFile('old.json', v1)))
    const out = JSON.parse(exported(p.id, 'card-json').toString())
    expect(out.spec).toBe('chara_card_v2')
    expect(out.data).toEqual(expect.objectContaining(v1))
  })

  it('an edit to one field changes only the card fields made from it', async () => {
    const p = added(await importFiles(pngFile('s.png', pngCard([{ keyword: 'chara', card: richV2() }]))))
    await store.command({ op: 'profile.update', id: p.id, patch: { personality: 'stern now' } })
    const out = cardIn(exported(p.id, 'card-png'), 'chara')
    expect(out.data.personality).toBe('stern now')
    const { personality: _a, ...rest } = foreign(out.data)
    const { personality: _b, ...want } = richV2().data
    expect(rest).toEqual(expect.objectContaining(want))
  })
})

describe('ours → card → ours keeps every field we own', () => {
  async function rich(avatar: string): Promise<Profile> {
    const { profile } = (await store.command({
      op: 'profile.create',
      profile: {
        name: '小林',
        emoji: '🦊',
        avatar,
        role: '你是书店店员。\n## 不是标题',
        personality: '耐心',
        speakingStyle: '短句，{{char}} 不替换',
        rules: '不推荐盗版。',
        memoryEnabled: false,
        memory: { summary: '老顾客多', items: [{ text: '用户喜欢科幻' }] },
        tools: { profile: 'read-only', add: ['bash'], remove: [] },
      },
    })) as unknown as { profile: Profile }
    await store.command({
      op: 'memory.add',
      target: { profileId: profile.id },
      items: [{ text: '记下的', source: 'tool', sessionId: 'session-1' }],
    })
    return byId(profile.id)
  }
  // Every field comes back but the items' provenance: what arrives in a file is the import's, taken now.
  const withoutProvenance = ({ id: _id, memory, ...rest }: Profile) => ({
    ...rest,
    memory: { ...memory, items: memory.items.map(({ source: _s, at: _a, ...it }) => it) },
  })
  const same = (a: Profile, b: Profile) => {
    expect(withoutProvenance(b)).toEqual(withoutProvenance(a))
    expect(b.memory.items.every((it) => it.source === 'import' && it.at >= a.updatedAt)).toBe(true)
  }
  const webp = `data:image/webp;base64,${Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 xxxx', 'latin1').toString('base64')}`

  it.each([
    ['PNG avatar, PNG card', pngDataUrl(10, 10, 5), 'card-png'],
    ['WebP avatar, PNG card (tile picture, avatar carried)', webp, 'card-png'],
    ['no avatar, PNG card (tile picture)', '', 'card-png'],
    ['WebP avatar, JSON card', webp, 'card-json'],
  ] as const)('%s', async (_label, avatar, format) => {
    const p = await rich(avatar)
    const body = exported(p.id, format)
    const file = format === 'card-png' ? pngFile('x.png', body) : jsonFile('x.json', body.toString())
    // Beside the original it is the same profile, so a merge skips it; once the original is gone it comes back whole.
    expect((await importFiles(file)).files[0]).toMatchObject({ imported: 0, unchanged: [{ id: p.id, name: '小林' }] })
    await store.command({ op: 'profile.delete', id: p.id })
    const r = await importFiles(file)
    expect(r.files[0]!.warnings).toEqual([])
    expect(added(r).id).toBe(p.id)
    expect(added(r).tools).toEqual({ profile: 'read-only', add: ['bash'], remove: [] })
    same(p, added(r))
  })

  it('a card edited in another tool after export: the edited field is read from the card, the rest from our fields', async () => {
    const p = await rich('')
    const card = JSON.parse(exported(p.id, 'card-json').toString())
    card.data.description = 'Edited elsewhere.'
    const q = added(await importFiles(jsonFile('x.json', card)))
    expect(q.role).toBe('Edited elsewhere.')
    expect(q.personality).toBe(p.personality)
    expect(q.emoji).toBe('🦊')
    expect(q.memory.items.map((it) => [it.text, it.source])).toEqual([
      ['用户喜欢科幻', 'import'],
      ['记下的', 'import'],
    ])
  })

  it('a placeholder tile replaced by a real picture elsewhere: the picture becomes the avatar', async () => {
    const p = await rich('')
    const card = cardIn(exported(p.id, 'card-png'), 'chara')
    const q = added(
      await importFiles(pngFile('x.png', pngCard([{ keyword: 'chara', card }], 'after-idat', png(6, 6, 2)))),
    )
    expect(Buffer.from(q.avatar.split(',')[1]!, 'base64')).toEqual(png(6, 6, 2))
  })
})

describe('broken cards', () => {
  it('empty name: named after the file, with a warning', async () => {
    const card = richV2()
    card.data.name = '  '
    const r = await importFiles(jsonFile('cards/Nameless One.json', card))
    expect(added(r).name).toBe('Nameless One')
    expect(r.files[0]!.warnings).toContainEqual({ key: 'unnamed', params: { name: 'Nameless One' } })
  })

  it('numbers given as strings and strings as numbers: read as meant, and exported back unchanged', async () => {
    const card = richV2()
    card.data.name = 12345
    card.data.personality = 7
    card.data.character_book.scan_depth = ''
    card.data.character_book.entries[0].insertion_order = '1'
    card.data.character_book.entries[1].insertion_order = '2'
    card.data.character_book.entries[1].content = 42
    const r = await importFiles(jsonFile('n.json', card))
    const p = added(r)
    expect(p.name).toBe('12345')
    expect(p.personality).toBe('7')
    expect(p.memory.items.map((it) => it.text)).toEqual(['The glade is hidden by magic.', '42'])
    const out = JSON.parse(exported(p.id, 'card-json').toString())
    expect(foreign(out.data)).toEqual(expect.objectContaining(card.data))
  })

  it('a PNG without a card chunk is refused, naming the file and what is missing', async () => {
    await expectFileFailed(store, [pngFile('plain.png', png(8, 8))], { key: 'pngNoCard', field: 'file' })
  })

  it('truncated base64 in the chunk is refused as truncated', async () => {
    for (const cut of [b64(richV2()).slice(0, 401), b64(richV2()).slice(0, 400)]) {
      const file = withTexts(picture(), [{ keyword: 'chara', text: cut }], 'after-idat')
      await expectFileFailed(store, [pngFile('cut.png', file)], { key: 'truncated', field: 'chunk chara' })
    }
  })

  it('a PNG cut short after its card chunk: the card is imported, the broken picture is not used', async () => {
    const whole = pngCard([{ keyword: 'chara', card: richV2() }], 'before-idat', png(64, 64, 1))
    const r = await importFiles(pngFile('cut.png', whole.subarray(0, whole.length - 40)))
    expect(added(r).name).toBe('Seraphina')
    expect(added(r).avatar).toBe('')
    expect(r.files[0]!.warnings).toContainEqual({ key: 'pictureCut' })
  })

  it('a file over the size cap is refused before it is read, naming the limit', async () => {
    const huge = 'A'.repeat(Math.ceil(((CARD_FILE_LIMIT + 4) * 4) / 3 / 4) * 4)
    await expectRefused(
      store,
      { op: 'profiles.importFiles', files: [{ name: 'huge.png', format: 'card', data: huge }] },
      { code: 'invalid', field: 'files[0].data', limit: CARD_FILE_LIMIT },
    )
  })

  it('a description over the role limit is cut with a warning, and exported back whole', async () => {
    const card = richV2()
    card.data.description = 'd'.repeat(LIMITS.role + 500)
    card.data.scenario = ''
    const r = await importFiles(jsonFile('long.json', card))
    expect(added(r).role).toHaveLength(LIMITS.role)
    expect(r.files[0]!.warnings).toContainEqual({
      key: 'cutKept',
      params: { where: 'role', length: 4500, limit: 4000 },
    })
    expect(JSON.parse(exported(added(r).id, 'card-json').toString()).data.description).toBe(card.data.description)
  })

  it('extras over their limit: the largest piece is left out, and the warning says an export will not carry it', async () => {
    const card = richV2()
    card.data.alternate_greetings = ['g'.repeat(LIMITS.card)]
    const r = await importFiles(jsonFile('greet.json', card))
    expect(r.files[0]!.warnings).toContainEqual({
      key: 'extrasDropped',
      params: { names: 'alternate_greetings', count: 1, more: 0, limit: 200_000 },
    })
    expect(JSON.stringify(added(r).card).length).toBeLessThanOrEqual(LIMITS.card)
    expect(added(r).card!.data.tags).toEqual(['fantasy', 'healer'])
  })

  it('not JSON, or JSON that is no card: a precise error', async () => {
    await expectFileFailed(store, [jsonFile('a.json', '{"spec": "chara_card_v2", "data": {')], { key: 'truncated' })
    await expectFileFailed(store, [jsonFile('b.json', { hello: 1 })], { key: 'notCard' })
  })

  it('several files: the good ones come in, each broken one is reported on its own', async () => {
    const r = await importFiles(jsonFile('ok.json', richV2()), pngFile('plain.png', png(4, 4)), {
      name: 'p.md',
      format: 'markdown',
      text: '---\nname: 小明\n---\n',
    })
    expect(r.imported).toBe(2)
    expect(r.files.map((f) => [f.name, f.imported, f.error?.field])).toEqual([
      ['ok.json', 1, undefined],
      ['plain.png', 0, 'file'],
      ['p.md', 1, undefined],
    ])
  })
})

describe('a lorebook: always-on entries in the core, keyed ones in the archive', () => {
  const withBook = (entries: Record<string, unknown>[]) => ({
    ...richV2(),
    data: { ...richV2().data, character_book: { extensions: {}, entries } },
  })
  const shape = (p: Profile) => p.memory.items.map(({ text, archived, keys }) => ({ text, archived, keys }))

  it('archives keyed entries with their keys (split ones too), keeps always-on ones in the core, and says so', async () => {
    const long = 'The old road runs north past the mill. '.repeat(30).trim()
    const many = Array.from({ length: 60 }, (_, i) => `key${i}-word`)
    const card = withBook([
      {
        keys: [],
        content: '{{char}} is always kind.',
        constant: true,
        enabled: true,
        insertion_order: 0,
        extensions: {},
      },
      {
        keys: ['glade', 'Dark Forest', '{{char}}'],
        content: 'The glade is hidden by magic.',
        enabled: true,
        insertion_order: 1,
        extensions: {},
      },
      { keys: ['road'], content: long, enabled: true, insertion_order: 2, extensions: {} },
      { keys: many, content: 'Many keys.', enabled: true, insertion_order: 3, extensions: {} },
    ])
    const r = await importFiles(jsonFile('lore.json', card))
    const p = added(r)
    const items = shape(p)
    expect(items[0]).toEqual({ text: 'Seraphina is always kind.', archived: undefined, keys: undefined })
    expect(items[1]).toEqual({
      text: 'The glade is hidden by magic.',
      archived: true,
      keys: 'glade Dark Forest Seraphina',
    })
    expect(items.slice(2, 4).map((it) => [it.archived, it.keys])).toEqual([
      [true, 'road'],
      [true, 'road'],
    ])
    expect(
      items
        .slice(2, 4)
        .map((it) => it.text)
        .join(' '),
    ).toBe(long)
    const cut = items[4]!.keys!
    expect(cut.length).toBeLessThanOrEqual(LIMITS.memoryKeys)
    const kept = cut.split(' ')
    expect(kept).toEqual(many.slice(0, kept.length))
    expect(`${cut} ${many[kept.length]}`.length).toBeGreaterThan(LIMITS.memoryKeys)
    // The core the prompt always carries is the always-on entry alone.
    expect(memoryChars(p.memory)).toBe('Seraphina is always kind.'.length)
    expect(r.files[0]!.warnings).toEqual(
      expect.arrayContaining([
        {
          key: 'bookKeys',
          params: { where: 'bookEntry', n: 4, count: 60, kept: kept.length, limit: LIMITS.memoryKeys },
        },
        { key: 'bookArchived', params: { count: 4, core: 1 } },
      ]),
    )
    // card → ours → card: the lorebook comes back as it came.
    expect(JSON.parse(exported(p.id, 'card-json').toString()).data.character_book).toEqual(card.data.character_book)
  })

  it('ours → card → ours keeps archived items and their keys, through our extension and through the lorebook alone', async () => {
    const { profile } = (await store.command({
      op: 'profile.create',
      profile: {
        name: 'Lore',
        emoji: '📚',
        avatar: '',
        role: 'A keeper of lore.',
        personality: '',
        speakingStyle: '',
        rules: '',
        memoryEnabled: true,
        memory: {
          summary: '',
          items: [{ text: 'Always on.' }, { text: 'The glade is hidden.', archived: true, keys: 'glade Dark Forest' }],
        },
      },
    })) as unknown as { profile: Profile }
    const want = shape(profile)
    expect(want).toEqual([
      { text: 'Always on.', archived: undefined, keys: undefined },
      { text: 'The glade is hidden.', archived: true, keys: 'glade Dark Forest' },
    ])
    const body = exported(profile.id, 'card-json').toString()
    const card = JSON.parse(body)
    // Another app reads the archive as entries their keys trigger, the core as always-on entries.
    expect(card.data.character_book.entries.map((e: any) => [e.content, e.constant, e.keys])).toEqual([
      ['Always on.', true, []],
      ['The glade is hidden.', false, ['glade', 'Dark', 'Forest']],
    ])
    await store.command({ op: 'profile.delete', id: profile.id })
    const back = added(await importFiles(jsonFile('lore.json', body)))
    expect(shape(back)).toEqual(want)
    await store.command({ op: 'profile.delete', id: back.id })
    delete card.data.extensions.dsh_agent_profiles
    expect(shape(added(await importFiles(jsonFile('bare.json', card))))).toEqual(want)
  })
})

describe('GET /__ap/export/<id>', () => {
  let server: Server
  afterEach(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  })

  it('serves a card PNG, a card JSON and Markdown as downloads named after the profile; refuses unknown ids and formats', async () => {
    const log = { warn() {}, error() {} }
    server = createServer(
      createHandler({
        store,
        preview: () => ({ text: '', chars: 0, tokens: 0 }),
        meta: () => routeMeta(store),
        trustedHosts: () => [],
        log,
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const api = httpClient((server.address() as AddressInfo).port)
    const pngReply = await api.send({ path: '/__ap/export/general?format=card-png' })
    expect(pngReply.status).toBe(200)
    expect(pngReply.headers['content-type']).toBe('image/png')
    expect(pngReply.headers['content-disposition']).toBe(
      `attachment; filename="____.png"; filename*=UTF-8''${encodeURIComponent('通用助手')}.png`,
    )
    expect(cardIn(pngReply.body, 'chara').data.name).toBe('通用助手')
    const json = await api.send({ path: '/__ap/export/general?format=card-json' })
    expect(json.json.data.system_prompt).toBe(byId('general').rules)
    const md = await api.send({ path: '/__ap/export/general?format=markdown&lang=en' })
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expect(md.text).toMatch(/^---\nname: 通用助手\n[\s\S]*\n## Ground rules\n/)
    expect((await api.send({ path: '/__ap/export/nobody?format=card-png' })).status).toBe(404)
    const bad = await api.send({ path: '/__ap/export/general?format=gif' })
    expect(bad.status).toBe(400)
    expect(bad.json.error.field).toBe('format')
  })
})
