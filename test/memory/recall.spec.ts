import { describe, expect, it } from 'vitest'
import {
  MIN_SCORE,
  mergeHits,
  pickRecall,
  recallQuery,
  renderRecall,
  RECALL_HEAD,
  lineSize,
  type Scored,
} from '../../lib/memory/recall.ts'
import { dateTerms, distinctTerms, relativeDateTerms, termCode, termsColumn } from '../../lib/shared/search-terms.ts'
import type { MemoryItem } from '../../lib/state/model.ts'

const item = (id: string, text: string, extra: Partial<MemoryItem> = {}): MemoryItem => ({
  id,
  text,
  source: 'user',
  at: Date.UTC(2025, 2, 4),
  ...extra,
})
const hit = (id: string, text: string, score: number, extra: Partial<MemoryItem> = {}): Scored => ({
  item: item(id, text, extra),
  layer: 'profile',
  score,
})

describe('search terms', () => {
  it('Chinese as bigrams without function words, English lightly stemmed, the same concept in both languages', () => {
    expect(distinctTerms('我住在杭州')).toEqual(expect.arrayContaining(['住在', '杭州']))
    expect(distinctTerms('什么')).toEqual([])
    expect(distinctTerms('She visited two cats')).toEqual(expect.arrayContaining(['visit', 'cat']))
    const live = distinctTerms('Where do I live?').filter((t) => t.startsWith('c'))
    expect(live.length).toBe(1)
    expect(distinctTerms('用户住在杭州')).toContain(live[0])
  })

  it('writes one date in every form the same way, and resolves 昨天 / last month against now', () => {
    const day = ['d2025', 'm03', 'd2025-03', 'd03-04', 'd2025-03-04']
    for (const text of ['2025-03-04', '2025年3月4日', '2025/3/4', 'March 4, 2025', '4th of March 2025'])
      expect(dateTerms(text)).toEqual(expect.arrayContaining(day))
    expect(dateTerms('三月二十四日')).toEqual(expect.arrayContaining(['m03', 'd03-24']))
    expect(dateTerms('3月4号')).toEqual(expect.arrayContaining(['m03', 'd03-04']))
    const now = new Date(2025, 2, 5, 10).getTime()
    expect(relativeDateTerms('我昨天说了什么', now)).toContain('d2025-03-04')
    expect(relativeDateTerms('what did I do last month', now)).toContain('d2025-02')
    // An item's terms carry the day it was saved, so a question about that day finds it.
    expect(termsColumn('去爬山', undefined, new Date(2025, 2, 4, 9).getTime())).toContain(`|${termCode('d2025-03-04')}`)
  })

  it('is linear on a long hostile line', () => {
    const started = performance.now()
    distinctTerms(`${'2025年'.repeat(5_000)}${'march '.repeat(5_000)}`)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('recall ranking and budget', () => {
  it('takes the best first, passing over one too long for what is left, within the budget', () => {
    const long = 'x'.repeat(300)
    const hits = [hit('a', '最相关', 9), hit('b', long, 8), hit('c', '第三', 7), hit('d', '第四', 6.5)]
    const budget = RECALL_HEAD.length + lineSize(hits[0]!) + lineSize(hits[2]!) + lineSize(hits[3]!) + 10
    expect(pickRecall(hits, budget, () => false).map((s) => s.item.id)).toEqual(['a', 'c', 'd'])
    expect(pickRecall(hits, RECALL_HEAD.length + lineSize(hits[0]!), () => false).map((s) => s.item.id)).toEqual(['a'])
  })

  it('sends nothing weak: under the floor, under a share of the best, a suggestion, or skipped', () => {
    const hits = [
      hit('a', '强', 10),
      hit('weak', '弱', 2.5),
      hit('p', '待批准', 9, { pending: true }),
      hit('s', '已发过', 8),
      hit('low', '低', MIN_SCORE - 0.1),
    ]
    expect(pickRecall(hits, 2000, (s) => s.item.id === 's').map((s) => s.item.id)).toEqual(['a'])
    expect(pickRecall([hit('low', '低', MIN_SCORE - 0.1)], 2000, () => false)).toEqual([])
  })

  it('between equal scores prefers the pinned item, then the newest', () => {
    const hits = [
      hit('old', '旧', 5, { at: 1 }),
      hit('new', '新', 5, { at: 2 }),
      hit('pin', '钉', 5, { at: 0, pinned: true }),
    ]
    expect(pickRecall(hits, 2000, () => false).map((s) => s.item.id)).toEqual(['pin', 'new', 'old'])
  })

  it('the recent turns only raise what the question found', () => {
    const merged = mergeHits([hit('a', 'A', 3)], [hit('a', 'A', 4), hit('b', 'B', 40)])
    expect(merged.map((s) => [s.item.id, s.score])).toEqual([['a', 3 + 4 * 0.35]])
    const q = recallQuery('那里天气怎么样', ['我下周去杭州出差'], Date.now())
    expect(q.context).toContain('杭州')
    expect(q.question).not.toContain('杭州')
  })

  it('says when each fact was saved, in a block that neutralises nothing it should not', () => {
    const text = renderRecall([hit('a', '用户住在杭州', 5)])
    expect(text.startsWith('# 相关记忆')).toBe(true)
    expect(text).toContain('- （2025-03-04 记下 · 记忆）用户住在杭州')
    expect(renderRecall([])).toBe('')
  })
})
