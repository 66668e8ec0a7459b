// Ranked search through the store's real index (lib/memory/search.ts over lib/store/db/memory-index.ts): which items a
// query's terms find, as recall and memory_search meet them.
import { afterEach, describe, expect, it } from 'vitest'
import { recallQuery } from '../../lib/memory/recall.ts'
import { RANKED_ROWS, scopeLists, searchLists } from '../../lib/memory/search.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const d of disposers.splice(0)) await d()
})

async function storeWith(texts: string[]): Promise<ProfileStore> {
  const t = await freshStore()
  disposers.push(t.dispose)
  const items = texts.map((text, i) => ({
    id: `f${i}`,
    text,
    source: 'user' as const,
    at: Date.UTC(2025, 0, 1) + i * 60_000,
  }))
  await t.store.command({ op: 'profile.update', id: t.store.state.activeId, patch: { memory: { summary: '', items } } })
  return t.store
}

function search(store: ProfileStore, message: string, limit = 10): string[] {
  const { profile, setting } = store.effective('s-search')
  const lists = scopeLists(store.state, profile, 's-search', setting)
  return searchLists(store, lists, recallQuery(message, [], Date.UTC(2025, 5, 1)).weights, limit, 1).map(
    (s) => s.item.text,
  )
}

describe('ranked search', () => {
  it('a word held by more items than the index ranks at once still finds the newest of them, and a rarer word first', async () => {
    const notes = Array.from({ length: RANKED_ROWS + 100 }, (_, i) => `第${i}次团队周会：讨论了排期`)
    const store = await storeWith([...notes.slice(0, 50), '周会改到周四下午，地点在三楼会议室', ...notes.slice(50)])
    const found = search(store, '周会是什么时候？', 40)
    // The note saved last is among what one word, held by hundreds, finds.
    expect(found).toContain(notes.at(-1))
    expect(search(store, '周会在三楼吗？')[0]).toBe('周会改到周四下午，地点在三楼会议室')
  })

  it('matches two-character Chinese words and Latin words of two letters, in text and in keys', async () => {
    const facts = [
      '用户住在杭州',
      '用户的女儿今年六岁',
      '用户每天早上喝一杯咖啡',
      '用户写后端用 Go',
      '用户在做 AI 产品',
    ]
    const filler = Array.from({ length: 60 }, (_, i) => `第${i}条：项目进度与预算的会议纪要`)
    const store = await storeWith([...filler, ...facts])
    expect(search(store, '杭州')[0]).toBe('用户住在杭州')
    expect(search(store, '女儿几岁了')[0]).toBe('用户的女儿今年六岁')
    expect(search(store, '咖啡')[0]).toBe('用户每天早上喝一杯咖啡')
    expect(search(store, 'Go')[0]).toBe('用户写后端用 Go')
    expect(search(store, 'Which language, Go or Rust?')[0]).toBe('用户写后端用 Go')
    expect(search(store, 'AI')[0]).toBe('用户在做 AI 产品')
    // A word of one Latin letter says nothing alone.
    expect(search(store, 'A')).toEqual([])
  })
})
