/**
 * The plan of a pick over a whole export (lib/learn/run/exports.ts, with lib/learn/select.ts and
 * lib/learn/run/plan.ts), as the host computes it on its event loop: a slice at a time, the loop turning between two
 * (a page's state request or a conversation's turn waits for one slice, not for the whole export), and the same
 * plan and the same pick as a plain pass over the conversations.
 */
import { createHook } from 'node:async_hooks'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../../lib/config/config.ts'
import { EXTRACTION_SYSTEM, extractionRequest } from '../../../lib/memory/job.ts'
import type { LearnConversation } from '../../../lib/learn/conversation.ts'
import { holdConversations } from '../../../lib/learn/export-parts.ts'
import { LearnExports } from '../../../lib/learn/run/exports.ts'
import { ANSWER_TOKENS, materialParts } from '../../../lib/learn/run/plan.ts'
import { SLICE_CHARS } from '../../../lib/learn/slices.ts'
import { factoryState } from '../../../lib/state/defaults.ts'
import { approxTokens } from '../../../lib/prompt/tokens.ts'

const LIMIT = DEFAULT_CONFIG.memory.excerptChars
const DAY = 86_400_000

/** Conversation `c`: three of the user's lines and two answers; one in a hundred names Qingdao. */
function conversation(c: number): LearnConversation {
  const at = Date.UTC(2025, 0, 1) + c * DAY
  const place = c % 100 === 7 ? 'Qingdao' : 'Chengdu'
  const line = (t: number) => `I wrote this on day ${c}, line ${t}: ${'some plain words of mine '.repeat(12)}`
  return {
    id: `c${c}`,
    title: `Notes ${c}`,
    at,
    messages: [
      { role: 'user', text: `${line(0)} I live in ${place}.`, at },
      { role: 'assistant', text: 'A long answer. '.repeat(40), at },
      { role: 'user', text: line(1), at },
      { role: 'assistant', text: 'Another answer.', at },
      { role: 'user', text: line(2), at },
    ],
  }
}

const conversations = Array.from({ length: 1_500 }, (_, c) => conversation(c))
const learn = new LearnExports()
learn.take({ ok: true, export: { service: 'chatgpt', conversations: holdConversations(conversations) } })
const state = factoryState(0)

/** The plan's figures for `list`, in one plain pass (what the plan must come to). */
function onePass(list: readonly LearnConversation[]) {
  let calls = 0
  let inputTokens = 0
  for (const c of list)
    for (const material of materialParts(c, LIMIT)) {
      calls++
      inputTokens += approxTokens(EXTRACTION_SYSTEM) + approxTokens(extractionRequest(material, []).prompt)
    }
  const messages = list.reduce((n, c) => n + c.messages.length, 0)
  return { conversations: list.length, messages, calls, inputTokens, outputTokens: calls * ANSWER_TOKENS }
}

/** `work`'s result, and how many promises were made while it ran (each await makes one, and a step of a walk too). */
async function promisesDuring<T>(work: () => Promise<T>): Promise<{ result: T; promises: number }> {
  let promises = 0
  const hook = createHook({
    init: (_id, type) => {
      if (type === 'PROMISE') promises++
    },
  }).enable()
  try {
    return { result: await work(), promises }
  } finally {
    hook.disable()
  }
}

/** `work`'s result, and how many times a timer set as it began fired before it was done. */
async function firedDuring<T>(work: () => Promise<T>): Promise<{ result: T; fired: number }> {
  let fired = 0
  const timer = setInterval(() => fired++, 0)
  try {
    return { result: await work(), fired }
  } finally {
    clearInterval(timer)
  }
}

describe('a plan over a whole export', () => {
  it('is the plan of a plain pass, and timers fire while it is computed', async () => {
    // Far more than one slice of characters to parse: a plan in one piece would hold the loop throughout.
    expect(JSON.stringify(conversations).length).toBeGreaterThan(4 * SLICE_CHARS)
    const { result, fired } = await firedDuring(() => learn.plan({ into: { user: true } }, state, LIMIT))
    expect(result).toEqual(onePass(conversations))
    expect(fired).toBeGreaterThan(1)
  })

  it('picks by a word as a plain pass does, and timers fire while the pick reads every conversation', async () => {
    const { result, fired } = await firedDuring(() =>
      learn.plan({ into: { user: true }, word: 'QINGDAO' }, state, LIMIT),
    )
    const naming = conversations.filter((c) => c.messages.some((m) => m.text.toLowerCase().includes('qingdao')))
    expect(naming).toHaveLength(15)
    expect(result).toEqual(onePass(naming))
    // The fifteen conversations picked are far under a slice: the turns are the pick's.
    expect(fired).toBeGreaterThan(1)
  })

  it('awaits once a slice, not once a conversation or a call', async () => {
    // An await for each of the 1,500 conversations and calls (about 12,000 promises for this plan) made the plan of a
    // whole export a quarter slower than the work itself; the loop turns only between two slices (about 30 here,
    // parsing and requests counted), a few promises each.
    for (const word of [undefined, 'zanzibar']) {
      const { promises } = await promisesDuring(() => learn.plan({ into: { user: true }, word }, state, LIMIT))
      expect(promises).toBeLessThan(conversations.length / 3)
    }
  })
})
