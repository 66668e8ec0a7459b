/**
 * A Character Card's lorebook through the real store: always-on entries land in the core memory, keyed ones in the
 * archive with their keys, and both survive ours → card → ours. Every fixture is built in support/card-fixtures.ts.
 */
import { describe, expect, it } from 'vitest'
import { LIMITS, memoryChars, type Profile } from '../../lib/state/model.ts'
import { richV2 } from '../support/card-fixtures.ts'
import { store, importFiles, jsonFile, added, exported, cardStoreEachTest } from '../support/card-import.ts'

cardStoreEachTest()

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
