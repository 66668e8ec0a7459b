/**
 * The rules of a profile's name, typed or imported (lib/shared/profile-names.ts, applied by lib/commands/dispatch.ts
 * and lib/commands/transfer.ts): `@all` and its translations are never names, no two profiles share a name, and an
 * imported name is cleaned exactly as a typed one; a file whose profile has the name of one already there asks
 * whether to update that profile or keep both.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { FileResult } from '../../lib/shared/import-report.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

const stores: Awaited<ReturnType<typeof freshStore>>[] = []
async function open() {
  const s = await freshStore()
  stores.push(s)
  return s.store
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

/** A Character Card V2 as JSON text, the way cards are shared. */
function card(name: string, description = '一个导入的角色'): { name: string; format: 'card'; text: string } {
  return {
    name: `${name}.json`,
    format: 'card',
    text: JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name, description } }),
  }
}

const names = (store: Awaited<ReturnType<typeof open>>) => store.state.profiles.map((p) => p.name)

describe('a typed name', () => {
  it.each(['所有人', 'all', 'ALL', '大家', 'everyone', '全部', 'ａｌｌ', '\u0430ll', '所\u200b有人'])(
    'refuses %j: @all and its translations are words of the plugin, however written',
    async (name) => {
      const store = await open()
      const e = await expectRefused(store, { op: 'profile.create', profile: { name } }, { code: 'invalid' })
      expect(e).toMatchObject({ field: 'profile.name', rule: 'name.reserved' })
      await expectRefused(store, { op: 'profile.update', id: 'coder', patch: { name } }, { code: 'invalid' })
    },
  )

  it("refuses another profile's name, compared as a mention compares it, and keeps one's own", async () => {
    const store = await open()
    for (const name of ['编程搭档', ' 编程\u200d搭档 ', '编程搭档\ufe0f']) {
      const e = await expectRefused(store, { op: 'profile.create', profile: { name } }, { code: 'invalid' })
      expect(e).toMatchObject({ field: 'profile.name', rule: 'name.taken' })
    }
    await expectRefused(store, { op: 'profile.update', id: 'writer', patch: { name: '编程搭档' } }, { code: 'invalid' })
    await store.command({ op: 'profile.update', id: 'coder', patch: { name: '编程搭档', role: '改过' } })
    await store.command({ op: 'profile.create', profile: { name: 'Seraphina' } })
    const e = await expectRefused(store, { op: 'profile.create', profile: { name: 'seraphina' } }, { code: 'invalid' })
    expect(e.rule).toBe('name.taken')
  })

  it('is stored clean: characters that draw nothing removed, full-width letters and spaces made plain', async () => {
    const store = await open()
    const r = await store.command({ op: 'profile.create', profile: { name: '  Ｂｏ\u200bｂ\u2060  the  bot ' } })
    expect(r.profile?.name).toBe('Bob the bot')
    await store.command({ op: 'profile.update', id: 'coder', patch: { name: '乙\u200c帮我' } })
    expect(names(store)).toContain('乙帮我')
  })
})

describe('an imported name', () => {
  it('is never a word of the plugin: a card named 所有人, all or 大家 is renamed, and the report says so', async () => {
    const store = await open()
    const r = await store.command({
      op: 'profiles.importFiles',
      files: [card('所有人'), card('all'), card('大\u200b家')],
    })
    expect(r.imported).toBe(3)
    expect(names(store).slice(-3)).toEqual(['所有人 2', 'all 2', '大家 2'])
    const files = r.files as FileResult[]
    expect(files.map((f) => f.warnings.filter((w) => w.key.startsWith('name')))).toEqual([
      [{ key: 'nameReserved', params: { from: '所有人', to: '所有人 2' } }],
      [{ key: 'nameReserved', params: { from: 'all', to: 'all 2' } }],
      [{ key: 'nameReserved', params: { from: '大家', to: '大家 2' } }],
    ])
  })

  it('is cleaned as a typed one is, then kept distinct from the names there (keep both)', async () => {
    const store = await open()
    const r = await store.command({
      op: 'profiles.importFiles',
      files: [card('Ｓｅｒａ\u200dphina'), card('写作\u200b顾问', '另一个写作顾问'), card('Seraphina', '又一个')],
    })
    expect(r.imported).toBe(3)
    expect(names(store).slice(-3)).toEqual(['Seraphina', '写作顾问 2', 'Seraphina 2'])
    const notes = (r.files as FileResult[]).map((f) => f.warnings.filter((w) => w.key.startsWith('name')))
    expect(notes).toEqual([
      [],
      [{ key: 'nameTaken', params: { from: '写作顾问', to: '写作顾问 2' } }],
      [{ key: 'nameTaken', params: { from: 'Seraphina', to: 'Seraphina 2' } }],
    ])
  })

  it('an envelope restored in replace mode cannot bring a word of the plugin or two of one name either', async () => {
    const store = await open()
    const env = store.exportEnvelope(['general', 'coder'])
    const profiles = [
      { ...env.profiles[0]!, name: '所有人' },
      { ...env.profiles[1]!, name: '所有人' },
    ]
    await store.command({ op: 'state.import', mode: 'replace', payload: { ...env, profiles } })
    expect(names(store)).toEqual(['所有人 2', '所有人 3'])
  })
})

describe('importing a profile whose name is already there', () => {
  it('asks: update that profile (saying what differs) or keep both under a distinct name', async () => {
    const store = await open()
    await store.command({ op: 'profiles.importFiles', files: [card('Seraphina', '林间守护者')] })
    const mine = store.state.profiles.at(-1)!
    await store.command({ op: 'session.set', sessionId: 'session-1', patch: { profileId: mine.id } })
    const edited = card('Seraphina', '林间守护者，改过的版本')
    const asked = await store.command({ op: 'profiles.importFiles', conflicts: 'ask', files: [edited] })
    expect(asked.imported).toBe(0)
    expect((asked.files as FileResult[])[0]!.conflicts).toEqual([
      {
        id: mine.id,
        name: 'Seraphina',
        existing: 'Seraphina',
        differs: [{ field: 'role' }],
        byName: true,
        keepAs: 'Seraphina 2',
      },
    ])
    expect(store.state.profiles.filter((p) => p.name === 'Seraphina')).toHaveLength(1)

    // Update: the profile there takes the file's content, in place (its id, and the conversation pinned to it, stay).
    const updated = await store.command({ op: 'profiles.importFiles', replace: [mine.id], files: [edited] })
    expect(updated.imported).toBe(1)
    const after = store.state.profiles.filter((p) => p.name === 'Seraphina')
    expect(after.map((p) => p.id)).toEqual([mine.id])
    expect(after[0]!.role).toContain('改过的版本')
    expect(store.state.sessions.get('session-1')?.profileId).toBe(mine.id)

    // Keep both: the file's profile comes in beside it under the distinct name it was offered.
    const again = card('Seraphina', '第三个版本')
    const kept = await store.command({ op: 'profiles.importFiles', conflicts: 'keep-both', files: [again] })
    expect(kept.imported).toBe(1)
    expect(names(store).slice(-2)).toEqual(['Seraphina', 'Seraphina 2'])
  })

  it("one's own Markdown export, edited and imported again, is the same question", async () => {
    const store = await open()
    const md = '---\nname: 编程搭档\n---\n## 身份\n改过的编程搭档\n'
    const r = await store.command({
      op: 'profiles.importFiles',
      conflicts: 'ask',
      files: [{ name: '编程搭档.md', format: 'markdown', text: md }],
    })
    expect(r.imported).toBe(0)
    expect((r.files as FileResult[])[0]!.conflicts[0]).toMatchObject({
      id: 'coder',
      byName: true,
      keepAs: '编程搭档 2',
    })
  })
})
