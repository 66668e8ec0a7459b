/**
 * The plan of learning from an export (lib/learn/run/plan.ts, lib/learn/select.ts), on the 300-conversation fixtures:
 * which conversations a date range or a word picks; every call's material within the extraction's bound, every word
 * the user said in some call, the assistant's words only as short context; and the cost said before anything runs —
 * the number of calls and the tokens of the very requests the run sends.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../lib/config/config.ts'
import { EXTRACTION_SYSTEM, extractionRequest } from '../../../lib/memory/job.ts'
import { parseExport } from '../../../lib/learn/export-read.ts'
import { selectConversations, type LearnFilter } from '../../../lib/learn/select.ts'
import { holdConversations } from '../../../lib/learn/export-parts.ts'
import { ANSWER_TOKENS, ASSISTANT_CONTEXT_CHARS, materialParts, planLearning } from '../../../lib/learn/run/plan.ts'
import { approxTokens } from '../../../lib/prompt/tokens.ts'
import { chatGptExport, claudeExport } from '../../support/learn-exports.ts'

const LIMIT = DEFAULT_CONFIG.memory.excerptChars
const read = (v: unknown) => parseExport(new TextEncoder().encode(JSON.stringify(v)))

describe('picking what to learn from', () => {
  const { conversations } = read(claudeExport(300, 4).conversations)
  const held = holdConversations(conversations)
  const pick = async (f: LearnFilter) => (await selectConversations(held, f)).map((i) => conversations[i]!)

  it('picks all, a date range (inclusive), or the conversations naming a word, as plain text', async () => {
    expect(await pick({})).toHaveLength(300)
    const day = (n: number) => Date.UTC(2025, 0, 1) + n * 86_400_000
    const range = await pick({ from: day(10), to: day(19) })
    expect(range.map((c) => c.id)).toEqual(Array.from({ length: 10 }, (_, i) => `claude-${10 + i}`))
    const qingdao = await pick({ word: '  QINGDAO ' })
    expect(qingdao.length).toBeGreaterThan(0)
    expect(qingdao.length).toBeLessThan(300)
    for (const c of qingdao) expect(JSON.stringify(c).toLowerCase()).toContain('qingdao')
    expect((await pick({ word: '(#1.' })).length).toBeGreaterThan(0)
    expect(await pick({ word: '.*' })).toEqual([])
  })
})

describe('a plan', () => {
  const { conversations } = read(chatGptExport(300, 9).conversations)

  it('cuts every conversation into calls within the bound, and every word of the user reaches a call', async () => {
    const plan = await planLearning(conversations, LIMIT)
    expect(plan.calls.length).toBeGreaterThanOrEqual(300)
    for (const call of plan.calls) expect(call.material.length).toBeLessThanOrEqual(LIMIT)
    const sent = plan.calls.map((c) => c.material).join('\n')
    for (const c of conversations)
      for (const m of c.messages) if (m.role === 'user') expect(sent).toContain(`用户：${m.text}`)
  })

  it('keeps the assistant to short context, and cuts a long message into calls of its own', () => {
    const long = {
      id: 'x',
      title: 't',
      at: 0,
      messages: [
        { role: 'assistant' as const, text: 'A'.repeat(5_000), at: 0 },
        { role: 'user' as const, text: 'u'.repeat(20_000), at: 0 },
      ],
    }
    const parts = materialParts(long, LIMIT)
    expect(parts.length).toBe(
      Math.ceil(('助手：'.length + ASSISTANT_CONTEXT_CHARS + 1 + '用户：'.length + 20_000) / LIMIT),
    )
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(LIMIT)
    expect(parts.join('').split('A').length - 1).toBe(ASSISTANT_CONTEXT_CHARS - 1)
    expect(parts.join('').split('u').length - 1).toBe(20_000)
    // The assistant alone gives nothing to learn from: no call.
    expect(materialParts({ ...long, messages: [long.messages[0]!] }, LIMIT)).toEqual([])
  })

  it('says its cost before it runs: the calls, the tokens of the requests it will send, the most they may answer', async () => {
    const plan = await planLearning(conversations.slice(0, 50), LIMIT)
    const sent = plan.calls.reduce(
      (n, c) => n + approxTokens(EXTRACTION_SYSTEM) + approxTokens(extractionRequest(c.material, []).prompt),
      0,
    )
    expect(plan.inputTokens).toBe(sent)
    expect(plan.outputTokens).toBe(plan.calls.length * ANSWER_TOKENS)
    // A bigger bound, fewer calls for the same conversations.
    expect((await planLearning(conversations, 100)).calls.length).toBeGreaterThan(
      (await planLearning(conversations, LIMIT)).calls.length,
    )
  })
})
