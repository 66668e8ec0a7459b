/**
 * The reader of past conversations over the real host (lib/learn/past-reader.ts), on the real dsh spine in process:
 * sessions its agents really ran are listed by the session query and, while the host's session persistence is
 * mounted, each is read through the persistence's `inspect` (one log found by its id), never through the query's
 * `readSession`, which lists every kept session again for each read; without the persistence the query reads them.
 */
import { afterEach, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import { pastConversations } from '../../lib/learn/past-sessions.ts'
import { pastReader, type KeptSessions } from '../../lib/learn/past-reader.ts'
import { liveReader } from '../support/past-reader.ts'
import { mountSpine, RecordingModel, SPINE_MODEL, turnToIdle } from '../support/spine.ts'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.fiber.dispose()
  ctx = undefined
})

it('reads each session through the session persistence while it is mounted, else through the query', async () => {
  const c = (ctx = await mountSpine(new Context(), new RecordingModel(() => 'ok')))
  for (const [id, said] of [
    ['a', 'I live in Qingdao'],
    ['b', 'My dog is called Bao'],
  ] as const) {
    const { agent } = await c.agents.create({ sessionId: SessionId(id), agentOptions: SPINE_MODEL })
    await turnToIdle(c, agent, said)
  }
  const live = liveReader(c)
  const queried: string[] = []
  const query = { ...live, readSession: (id: SessionId) => (queried.push(id), live.readSession(id)) }
  const inspected: string[] = []
  const persistence: KeptSessions = {
    inspect: async (id) => {
      inspected.push(id)
      const { session, events } = await live.readSession(id)
      return { meta: session, events }
    },
  }
  let mounted: KeptSessions | undefined = persistence
  const reader = pastReader(query, () => mounted)
  const pick = { writesNoMemory: () => false, learned: new Set<string>() }

  const read = await pastConversations(reader, pick)
  expect(read.conversations.map((x) => [x.id, x.messages.map((m) => m.text)])).toEqual([
    ['a', ['I live in Qingdao']],
    ['b', ['My dog is called Bao']],
  ])
  expect([inspected.sort(), queried]).toEqual([['a', 'b'], []])

  mounted = undefined
  expect((await pastConversations(reader, pick)).conversations).toHaveLength(2)
  expect([inspected.length, queried.sort()]).toEqual([2, ['a', 'b']])
})
