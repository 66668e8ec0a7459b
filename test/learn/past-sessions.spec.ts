/**
 * The past-conversations source over the real dsh spine in process: sessions the host's agents really ran, read
 * back as the session query reads them (header and events), keep only the user's own words, and leave out subagent,
 * incognito and already-learned sessions.
 */
import { afterEach, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import { pastConversations } from '../../lib/learn/past-sessions.ts'
import { liveReader } from '../support/past-reader.ts'
import { DEFAULT_CONFIG } from '../../lib/config/config.ts'
import { LearnExports } from '../../lib/learn/run/exports.ts'
import { learnedOrigin } from '../../lib/learn/run/learn-call.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import { mountSpine, RecordingModel, SPINE_MODEL, turnToIdle } from '../support/spine.ts'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.fiber.dispose()
  ctx = undefined
})

async function converse(c: Context, id: string, text: string): Promise<void> {
  const { agent } = await c.agents.create({ sessionId: SessionId(id), agentOptions: SPINE_MODEL })
  await turnToIdle(c, agent, text)
}

it('keeps only what the user typed in each past conversation, never the answers', async () => {
  ctx = await mountSpine(new Context(), new RecordingModel(() => 'ASSISTANT-SAID-THIS'))
  await converse(ctx, 'a', 'I live in Qingdao')
  await converse(ctx, 'b', 'My dog is called Bao')
  const { conversations, unread } = await pastConversations(liveReader(ctx), {
    writesNoMemory: () => false,
    learned: new Set(),
  })
  expect(unread).toEqual([])
  expect(conversations.map((c) => [c.id, c.messages.map((m) => [m.role, m.text])])).toEqual([
    ['a', [['user', 'I live in Qingdao']]],
    ['b', [['user', 'My dog is called Bao']]],
  ])
})

it('leaves out incognito sessions and those a run learned already', async () => {
  ctx = await mountSpine(new Context(), new RecordingModel())
  await converse(ctx, 'a', 'secret words')
  await converse(ctx, 'b', 'learned before')
  await converse(ctx, 'c', 'new words')
  const { conversations } = await pastConversations(liveReader(ctx), {
    writesNoMemory: (id) => id === 'a',
    learned: new Set(['b']),
  })
  expect(conversations.map((c) => c.id)).toEqual(['c'])
})

it('takes the past conversations as the source the pick, plan and provenance read', async () => {
  ctx = await mountSpine(new Context(), new RecordingModel())
  await converse(ctx, 'a', 'I moved to Qingdao last spring')
  await converse(ctx, 'b', 'Tea over coffee, always')
  const { conversations } = await pastConversations(liveReader(ctx), {
    writesNoMemory: () => false,
    learned: new Set(),
  })
  const exports = new LearnExports()
  expect(exports.takePast(conversations).found).toMatchObject({ service: 'dsh', conversations: 2, messages: 2 })
  const state = factoryState(Date.now())
  const plan = await exports.plan({ word: 'qingdao', into: { user: true } }, state, DEFAULT_CONFIG.memory.excerptChars)
  expect(plan).toMatchObject({ conversations: 1, messages: 1, calls: 1 })
  const picked = await exports.picked({ into: { user: true } }, state)
  if (typeof picked === 'string') throw new Error(picked)
  expect(picked.service).toBe('dsh')
  const origins: string[] = []
  for await (const slice of picked.picked) for (const c of slice) origins.push(learnedOrigin(picked.service, c))
  expect(origins[0]).toMatch(/^dsh, \d{4}-\d{2}-\d{2}$/)
})

it('leaves out a subagent session even when it carries the user words it was seeded with', async () => {
  ctx = await mountSpine(new Context(), new RecordingModel())
  await converse(ctx, 'a', 'I play the cello')
  const parent = ctx.sessions.get(SessionId('a'))!
  ctx.sessions.create(SessionId('sub'), {
    seed: [...parent.events],
    meta: { origin: 'subagent', parentSession: parent.id, delegationDepth: 1, seedLength: parent.events.length },
  })
  expect(ctx.sessions.get(SessionId('sub'))?.header.origin).toBe('subagent')
  const { conversations } = await pastConversations(liveReader(ctx), {
    writesNoMemory: () => false,
    learned: new Set(),
  })
  expect(conversations.map((c) => c.id)).toEqual(['a'])
})
