import { describe, expect, it } from 'vitest'
import {
  carriesOn,
  heldBy,
  MIN_SCORE,
  pickRecall,
  recallQuery,
  renderRecall,
  RECALL_HEAD,
  lineSize,
  type Scored,
} from '../../lib/memory/recall.ts'
import { idf, itemTerms, relevance, scoreTerms, type RankStats } from '../../lib/memory/rank.ts'
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

  it('resolves a season or last week against now: 去年夏天, last autumn, last winter, 上周', () => {
    const now = new Date(2025, 5, 24, 10).getTime() // a Tuesday in June
    expect(relativeDateTerms('去年夏天我去哪儿旅游了？', now)).toEqual(['d2024-06', 'd2024-07', 'd2024-08'])
    expect(relativeDateTerms('Where did I travel last spring?', now)).toEqual(['d2025-03', 'd2025-04', 'd2025-05'])
    expect(relativeDateTerms('Where did I travel last autumn?', now)).toEqual(['d2024-09', 'd2024-10', 'd2024-11'])
    expect(relativeDateTerms('Any trips last winter?', now)).toEqual(['d2024-12', 'd2025-01', 'd2025-02'])
    // 去年 in 去年夏天 names the season, not the whole year.
    expect(relativeDateTerms('去年夏天', now)).not.toContain('d2024')
    const week = relativeDateTerms('上周我的车做了什么？', now).filter((t) => t.length === 11)
    expect(week).toEqual(
      [
        'd2025-06-16',
        'd2025-06-17',
        'd2025-06-18',
        'd2025-06-19',
        'd2025-06-20',
        'd2025-06-21',
        'd2025-06-22',
      ].reverse(),
    )
    expect(relativeDateTerms('last week', now)).toEqual(relativeDateTerms('上周', now))
  })

  it('is linear on a long hostile line', () => {
    const started = performance.now()
    distinctTerms(`${'2025年'.repeat(5_000)}${'march '.repeat(5_000)}`)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('relevance of one item', () => {
  const stats = (docs: number, df: Record<string, number>): RankStats => ({
    docs,
    meanTerms: 6,
    df: new Map(Object.entries(df)),
  })

  it('a word every item holds still counts, and finds first the one item keyed by it (the lorebook glade)', () => {
    // FTS5's own idf is below zero past half the items, and was clamped to nothing: no question found the glade.
    expect(idf(4, 4)).toBeGreaterThan(0)
    expect(idf(1, 1_000)).toBeGreaterThan(idf(500, 1_000))
    const entries = [
      item('seraphina', 'Seraphina guards the glade and the forest around it', { keys: 'Seraphina' }),
      item('glade', 'The glade is hidden by magic; only the lost find it', { keys: 'glade' }),
      item('shadow', 'Shadowfangs prowl the forest beyond the glade at night', { keys: 'Shadowfang beast' }),
    ]
    const query = new Map([['glade', 1]])
    const s = stats(3, { glade: 3 })
    const scores = entries
      .map((it) => [it.id, scoreTerms(itemTerms(it), query, s)] as const)
      .sort((a, b) => b[1] - a[1])
    expect(scores[0]![0]).toBe('glade')
    expect(scores[0]![1]).toBeGreaterThanOrEqual(MIN_SCORE)
  })

  it('weighs each term by its weight in the query: the newest message above what was said before', () => {
    const it1 = item('a', '用户对贝类海鲜过敏')
    const s = stats(100, { 过敏: 2 })
    const now = scoreTerms(itemTerms(it1), new Map([['过敏', 1]]), s)
    const before = scoreTerms(itemTerms(it1), new Map([['过敏', 0.35]]), s)
    expect(before).toBeCloseTo(now * 0.35)
  })

  it("a word in many items (推荐 in a recommender engineer's memory) finds nothing alone; a concept, a date or a key does", () => {
    const it1 = item('a', '推荐系统的接口文档还没写完', { keys: '文档' })
    const s = stats(600, { 推荐: 25, 文档: 25, c1: 25 })
    const sure = (t: string) => relevance(itemTerms(it1), new Map([[t, 1]]), s)
    expect(sure('推荐').score).toBeGreaterThan(MIN_SCORE)
    expect(sure('推荐').sure).toBe(0)
    // Rare in a larger memory, the same word counts.
    expect(relevance(itemTerms(it1), new Map([['推荐', 1]]), stats(3_000, { 推荐: 40 })).sure).toBeGreaterThan(
      MIN_SCORE,
    )
    expect(sure('文档').sure).toBe(sure('文档').score)
    const work = relevance(itemTerms(item('w', '用户在银行工作')), new Map([['c1', 1]]), s)
    expect(work.sure).toBe(work.score)
    expect(work.sure).toBeGreaterThan(0)
  })
})

describe('what the conversation before counts for', () => {
  const said = (...texts: string[]) =>
    texts.map((text, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), text }))
  const carries = (message: string, earlier: ReturnType<typeof said>) =>
    carriesOn(
      message,
      new Set(distinctTerms(message)),
      earlier,
      earlier.map((m) => new Set(distinctTerms(m.text))),
    )

  it('a message that points back, answers the question just asked, shares a word or is a short reply carries on', () => {
    expect(carries('那边有什么要注意的？', said('下周要去青岛出差三天', '好的，祝顺利。'))).toBe(true)
    expect(
      carries("She's a tree. Remind me, what's her school called again?", said('My daughter has a play', 'Nice.')),
    ).toBe(true)
    expect(carries('川菜吧，下单的时候帮我备注一下', said('今晚想点外卖', '想吃中餐还是西餐？'))).toBe(true)
    expect(carries('青岛冬天冷不冷，要带厚衣服吗', said('下周要去青岛出差三天', '好的。'))).toBe(true)
    expect(carries('好', said('下周要去青岛出差三天', '好的。'))).toBe(true)
  })

  it('a message that opens a subject of its own does not, and its query holds only its own words', () => {
    const before = said('我的柯基豆豆刚打完疫苗', '打完疫苗注意观察一下它的精神状态。')
    expect(carries('推荐一部周末看的电影吧', before)).toBe(false)
    expect(
      carries(
        "What's the time difference between London and New York?",
        said('I moved my one-on-one with Kevin to Thursday', 'Noted.'),
      ),
    ).toBe(false)
    const q = recallQuery('推荐一部周末看的电影吧', before, 0)
    expect(q.weights.has('柯基')).toBe(false)
    // What was said still tells what the conversation holds.
    expect(q.earlier[0]!.has('柯基')).toBe(true)
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
      hit('weak', '弱', 2),
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

  it('asks with the whole conversation, the newest message weighing most and a subject said twice more than once', () => {
    const q = recallQuery(
      '那边有什么要注意的？',
      [
        { role: 'user', text: '我下周去青岛出差' },
        { role: 'assistant', text: '好的，青岛这个季节海风大。' },
      ],
      Date.now(),
    )
    const w = (t: string) => q.weights.get(t) ?? 0
    expect(w('注意')).toBe(1)
    // Said by the user two messages back and by the assistant just before: it counts, less than the newest message.
    expect(w('出差')).toBeGreaterThan(0)
    expect(w('出差')).toBeLessThan(w('注意'))
    expect(w('青岛')).toBeGreaterThan(w('出差'))
    // Only the last few messages are read.
    const said = Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, text: `好的${i}` }))
    said[0] = { role: 'user', text: '乌鲁木齐' }
    said[19] = { role: 'user', text: '哈尔滨' }
    const long = recallQuery('好', said, 0)
    expect(long.weights.has('哈尔')).toBe(true)
    expect(long.weights.has('乌鲁')).toBe(false)
  })

  it('an item the user said a message before is held by the conversation, unless the new message asks about it', () => {
    const said = [{ role: 'user' as const, text: '对了，我住在杭州西湖区' }]
    const q = recallQuery('推荐一部电影吧', said, 0)
    expect(heldBy('用户住在杭州西湖区', q)).toBe(true)
    expect(heldBy('用户的公司在杭州西溪园区', q)).toBe(false)
    expect(heldBy('用户住在杭州西湖区', recallQuery('推荐一部电影吧', [], 0))).toBe(false)
    // Asked about it, the user gets it.
    expect(heldBy('用户住在杭州西湖区', recallQuery('我住在哪个城市来着？', said, 0))).toBe(false)
  })

  it('says when each fact was saved, in a block that neutralises nothing it should not', () => {
    const text = renderRecall([hit('a', '用户住在杭州', 5)])
    expect(text.startsWith('# 相关记忆')).toBe(true)
    expect(text).toContain('- （2025-03-04 记下 · 记忆）用户住在杭州')
    expect(renderRecall([])).toBe('')
  })
})
