/**
 * Character Cards read into profiles through the real store: PNG and JSON cards of V1/V2/V3 imported with
 * `profiles.importFiles` (always merged), the field mapping a user relies on, creator notes never reaching the prompt,
 * and broken real-world cards (a precise error or a best-effort import, never a crash). Every fixture is built in
 * support/card-fixtures.ts.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { LIMITS } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { b64, picture, pngCard, richV2, richV3, withTexts } from '../support/card-fixtures.ts'
import { expectFileFailed, expectRefused } from '../support/store-helpers.ts'
import { chunk, png, pngDataUrl } from '../support/png.ts'
import { CARD_FILE_LIMIT } from '../../lib/shared/files.ts'
import {
  store,
  importFiles,
  pngFile,
  jsonFile,
  added,
  exported,
  foreign,
  cardStoreEachTest,
} from '../support/card-import.ts'

cardStoreEachTest()

/** What the report says of richV2's greeting and its two alternate greetings. */
const RICH_GREETINGS = { key: 'greetings', params: { length: 42, count: 2 } }
const RICH_BOOK = [
  { key: 'bookDisabled', params: { count: 1 } },
  { key: 'bookArchivedAll', params: { count: 2 } },
]

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
