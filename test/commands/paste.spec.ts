/**
 * `memory.paste` through a real store: a pasted list (ChatGPT's saved memories, or any list) becomes memory items,
 * one a line, list marks taken off, repeats of the memory and of each other left out, each the user's own with where
 * it came from; into About you by default or a profile; kept across a reopen; bad input refused naming the field.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS, userItemsOf, type MemoryItem } from '../../lib/state/model.ts'
import { pastedFacts } from '../../lib/learn/paste.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

/** What ChatGPT's "Manage memories" page gives when its list is selected and copied. */
const SAVED_MEMORIES = `• Lives in Qingdao and works as a data engineer.
• Is allergic to peanuts.
- Prefers answers in Chinese.
1. Has a daughter named Mei.
2) Is learning to play the guqin.
（3）喜欢爬山
① 每周三晚上上日语课
一、不喝咖啡
- [x] Runs a half marathon each spring.

• Is allergic to peanuts
`

describe('a pasted list of facts', () => {
  it('splits lines and takes list marks off, linear in the text', () => {
    expect(pastedFacts(SAVED_MEMORIES)).toEqual([
      'Lives in Qingdao and works as a data engineer.',
      'Is allergic to peanuts.',
      'Prefers answers in Chinese.',
      'Has a daughter named Mei.',
      'Is learning to play the guqin.',
      '喜欢爬山',
      '每周三晚上上日语课',
      '不喝咖啡',
      'Runs a half marathon each spring.',
      'Is allergic to peanuts',
    ])
    // Numbers that are the fact, not its mark, stay.
    expect(pastedFacts('2025 is the year I moved\n3 kids')).toEqual(['2025 is the year I moved', '3 kids'])
  })

  it("becomes the user's own facts in About you, with their origin, without repeats of the memory or each other", async () => {
    const store = (ctx = await freshStore()).store
    await store.command({ op: 'memory.add', target: { user: true }, items: [{ text: 'Prefers answers in Chinese' }] })
    const r = await store.command({
      op: 'memory.paste',
      target: { user: true },
      text: SAVED_MEMORIES,
      origin: 'pasted, ChatGPT',
    })
    expect((r.added as MemoryItem[]).map((i) => i.text)).toEqual([
      'Lives in Qingdao and works as a data engineer.',
      'Is allergic to peanuts.',
      'Has a daughter named Mei.',
      'Is learning to play the guqin.',
      '喜欢爬山',
      '每周三晚上上日语课',
      '不喝咖啡',
      'Runs a half marathon each spring.',
    ])
    expect(r.duplicates).toEqual(['Prefers answers in Chinese.', 'Is allergic to peanuts'])
    expect(r.notice).toMatchObject({ key: 'memory.added', params: { count: 8, duplicates: 2 } })
    const items = userItemsOf(store.state)
    expect(items).toHaveLength(9)
    for (const it of items.slice(1)) {
      expect(it).toMatchObject({ source: 'import', origin: 'pasted, ChatGPT' })
      expect(it.pending).toBeUndefined()
    }
    // Kept on disk with their origin.
    await store.close()
    const again = await openStore({ file: ctx.file })
    try {
      expect(
        userItemsOf(again.state)
          .slice(1)
          .map((i) => i.origin),
      ).toEqual(Array(8).fill('pasted, ChatGPT'))
    } finally {
      await again.close()
    }
  })

  it('goes into a chosen profile, which asks first or not: the user chose these lines', async () => {
    const store = (ctx = await freshStore()).store
    await store.command({ op: 'profile.update', id: 'general', patch: { memoryMode: 'ask' } })
    await store.command({ op: 'memory.paste', target: { profileId: 'general' }, text: 'Has a cat\nHas a dog' })
    const items = store.state.profiles.find((p) => p.id === 'general')!.memory.items
    expect(items.map((i) => [i.text, i.source, i.pending, i.origin])).toEqual([
      ['Has a cat', 'import', undefined, undefined],
      ['Has a dog', 'import', undefined, undefined],
    ])
  })

  it('refuses a list with no fact, a line past the limit of a fact and a list past its own limit, changing nothing', async () => {
    const store = (ctx = await freshStore()).store
    await expectRefused(
      store,
      { op: 'memory.paste', target: { user: true }, text: '\n • \n 1. \n' },
      { code: 'invalid', field: 'text' },
    )
    await expectRefused(
      store,
      { op: 'memory.paste', target: { user: true }, text: `fine\n${'x'.repeat(LIMITS.memoryItem + 1)}` },
      { code: 'invalid', field: 'text', limit: LIMITS.memoryItem },
    )
    await expectRefused(
      store,
      { op: 'memory.paste', target: { user: true }, text: 'a\n'.repeat(LIMITS.pastedList) },
      { code: 'invalid', field: 'text', limit: LIMITS.pastedList },
    )
    await expectRefused(
      store,
      { op: 'memory.paste', target: { user: true }, text: 'a', origin: 'x\ny' },
      { code: 'invalid', field: 'origin' },
    )
  })
})
