/**
 * Character Cards round trips through the real store (card → ours → card keeps every card field; ours → card → ours
 * keeps every profile field) and the export route. Every fixture is built in support/card-fixtures.ts.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Profile } from '../../lib/state/model.ts'
import { createHandler } from '../../lib/http/routes.ts'
import { cardIn, picture, pngCard, richV2, richV3, withoutTexts } from '../support/card-fixtures.ts'
import { httpClient, routeMeta } from '../support/http.ts'
import { png, pngDataUrl } from '../support/png.ts'
import {
  store,
  importFiles,
  pngFile,
  jsonFile,
  byId,
  added,
  exported,
  foreign,
  cardStoreEachTest,
} from '../support/card-import.ts'

cardStoreEachTest()

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
