/**
 * What one call of a learning run brings (lib/learn/run/learn-call.ts): the facts of the answer by the extraction's
 * rules — one a line, at most FACTS_PER_RUN, none the memory already holds or the answer says twice, a superseded fact
 * named by its id — each with where it came from ("ChatGPT, 2025-03-14, 'Trip to Qingdao'", within the item's limit)
 * and the day it was true; an answer that echoes the request or is no answer brings nothing and says so.
 */
import { describe, expect, it } from 'vitest'
import { FACTS_PER_RUN, extractionRequest, type KnownFact } from '../../../lib/memory/job.ts'
import { conversationTime, learnedFacts, learnedOrigin } from '../../../lib/learn/run/learn-call.ts'
import type { LearnConversation } from '../../../lib/learn/conversation.ts'
import { LIMITS } from '../../../lib/state/model.ts'

const MARCH14 = Date.UTC(2025, 2, 14, 9, 30)
const trip: LearnConversation = {
  id: 'c1',
  title: 'Trip to Qingdao',
  at: MARCH14,
  messages: [{ role: 'user', text: '我下个月去青岛，对海鲜过敏', at: MARCH14 + 1000 }],
}
const known: KnownFact[] = [
  { text: '住在杭州', layer: 'user', id: 'u-1' },
  { text: '喜欢爬山', layer: 'user', id: 'u-2' },
]

describe('where a learned fact came from', () => {
  it('names the service, the day and the title', () => {
    expect(learnedOrigin('chatgpt', trip)).toBe("ChatGPT, 2025-03-14, 'Trip to Qingdao'")
    expect(learnedOrigin('claude', { ...trip, title: '  two\n lines ' })).toBe("Claude, 2025-03-14, 'two lines'")
  })

  it('leaves out what the export does not say, and takes the first dated message when the conversation is not', () => {
    expect(learnedOrigin('claude', { ...trip, at: 0, messages: [], title: '' })).toBe('Claude')
    expect(conversationTime({ ...trip, at: 0 })).toBe(MARCH14 + 1000)
  })

  it('cuts a long title so the origin fits the item', () => {
    const origin = learnedOrigin('chatgpt', { ...trip, title: '长'.repeat(500) })
    expect(origin.length).toBeLessThanOrEqual(LIMITS.memoryOrigin)
    expect(origin).toMatch(/^ChatGPT, 2025-03-14, '长+…'$/)
  })
})

describe('the facts of an answer', () => {
  const request = extractionRequest('用户：我下个月去青岛，对海鲜过敏', known)
  const source = { service: 'chatgpt' as const, conversation: trip }

  it('keeps new facts with their origin and day, drops what memory holds and repeats, names what is superseded', () => {
    const answer = [
      '- [用户] 对海鲜过敏 ｜检索词：海鲜, seafood',
      '- [用户] 住在杭州',
      '- [用户] 对海鲜过敏',
      '- [替换 m2] 不再爬山，改为游泳',
    ].join('\n')
    expect(learnedFacts(answer, request, known, source)).toEqual([
      { text: '对海鲜过敏', origin: "ChatGPT, 2025-03-14, 'Trip to Qingdao'", at: MARCH14, keys: '海鲜, seafood' },
      { text: '不再爬山，改为游泳', origin: "ChatGPT, 2025-03-14, 'Trip to Qingdao'", at: MARCH14, replaces: 'u-2' },
    ])
  })

  it('keeps at most the facts one extraction keeps', () => {
    const answer = Array.from({ length: 30 }, (_, i) => `- [用户] 第${i}个长期事实：养了${i}只猫`).join('\n')
    expect(learnedFacts(answer, request, known, source)).toHaveLength(FACTS_PER_RUN)
  })

  it('brings nothing from "无", and nothing at all from an echo of the request or an answer out of shape', () => {
    expect(learnedFacts('无', request, known, source)).toEqual([])
    expect(learnedFacts(request.prompt, request, known, source)).toBeUndefined()
    expect(learnedFacts('Sure! Here is what I learned.', request, known, source)).toBeUndefined()
  })
})
