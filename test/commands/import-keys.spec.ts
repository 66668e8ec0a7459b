// Search keys on every way memory arrives from elsewhere, through a real store: a pasted list (`memory.paste`), a
// Markdown file and our own files (the envelope, a Character Card with our extension, our Markdown export) keep or
// derive an item's keys the way extraction and memory_save do (`｜检索词：` after a line, lib/shared/memory-keys.ts),
// and a key that breaks a rule is dropped while the fact stays.
import { mkdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findProfile } from '../../lib/commands/kit.ts'
import { exportFile } from '../../lib/interop/file-export.ts'
import { userItemsOf, type MemoryItem, type Profile } from '../../lib/state/model.ts'
import { freshStore, importFilesInto } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())
const open = async () => (ctx = await freshStore()).store
type Store = Awaited<ReturnType<typeof open>>

/** A second store in a data directory of its own: another machine the file is taken to. */
async function elsewhere(): Promise<Store> {
  mkdirSync(join(ctx.dir, 'other'))
  return ctx.open(join(ctx.dir, 'other', basename(ctx.file)))
}
const general = (store: Store): MemoryItem[] => store.state.profiles.find((p) => p.id === 'general')!.memory.items
const byText = (items: readonly MemoryItem[]) => Object.fromEntries(items.map((it) => [it.text, it.keys]))

/** The general profile holding a fact with keys, one without and one of two lines with keys. */
async function withKeyedFacts(store: Store): Promise<Profile> {
  await store.command({
    op: 'memory.add',
    target: { profileId: 'general' },
    items: [
      { text: '用户住在杭州西湖区', keys: '杭州, Hangzhou, 西湖' },
      { text: '喜欢乌龙茶' },
      { text: '周会纪要：\n周三上线新版本', keys: '发布, release' },
    ],
  })
  return store.state.profiles.find((p) => p.id === 'general')!
}

describe('search keys from a pasted list', () => {
  it('takes the keys after a line, drops a key that breaks a rule, and keeps every fact', async () => {
    const store = await open()
    await store.command({
      op: 'memory.paste',
      target: { user: true },
      text: [
        '• 用户住在杭州西湖区｜检索词：杭州, Hangzhou, 西湖',
        '- Is allergic to peanuts | keys: peanut, 花生, allergy',
        '- 女儿在读三年级｜检索词：女儿, <b>x</b>, sk-abcdefghijklmnop1234',
        '- 不喝咖啡',
      ].join('\n'),
    })
    expect(byText(userItemsOf(store.state))).toEqual({
      用户住在杭州西湖区: '杭州, Hangzhou, 西湖',
      'Is allergic to peanuts': 'peanut, 花生, allergy',
      女儿在读三年级: '女儿',
      不喝咖啡: undefined,
    })
  })
})

describe('search keys from files', () => {
  it('a Markdown file from elsewhere gives its items the keys after their lines', async () => {
    const store = await open()
    const md =
      '---\nname: 旅行搭档\n---\n\n## 记忆条目\n\n- 用户对贝类过敏｜检索词：海鲜, shellfish\n- 护照明年三月到期\n'
    const reply = await importFilesInto(store, { name: 'trip.md', format: 'markdown', text: md })
    const p = store.state.profiles.find((x) => x.id === reply.files[0]!.profileIds[0])!
    expect(byText(p.memory.items)).toEqual({ 用户对贝类过敏: '海鲜, shellfish', 护照明年三月到期: undefined })
  })

  it.each(['markdown', 'card-json'] as const)('our own %s export reads back with every item’s keys', async (format) => {
    const store = await open()
    const p = await withKeyedFacts(store)
    const body = exportFile(findProfile(store.state, p.id, 'id'), format, null).body.toString('utf8')
    if (format === 'markdown') expect(body).toContain('- 用户住在杭州西湖区｜检索词：杭州, Hangzhou, 西湖')
    const other = await elsewhere()
    const reply = await importFilesInto(other, {
      name: `own.${format === 'markdown' ? 'md' : 'json'}`,
      format: format === 'markdown' ? 'markdown' : 'card',
      text: body,
    })
    const back = other.state.profiles.find((x) => x.id === reply.files[0]!.profileIds[0])!
    expect(byText(back.memory.items)).toEqual(byText(general(store)))
  })

  it('our own envelope reads back with every item’s keys', async () => {
    const store = await open()
    await withKeyedFacts(store)
    const text = JSON.stringify(store.exportEnvelope(['general']))
    const other = await elsewhere()
    const reply = await importFilesInto(other, { name: 'own.json', format: 'envelope', text })
    const back = other.state.profiles.find((x) => x.id === reply.files[0]!.profileIds[0])!
    expect(byText(back.memory.items)).toEqual(byText(general(store)))
  })
})
