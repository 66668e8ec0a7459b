/**
 * Cache-stable memory through the real `dsh web` (the pinned host, this plugin installed, offline model scripted),
 * asserting on the system prompts the model actually received: a fact the model saves with `memory_save` mid-
 * conversation leaves that conversation's system prompt byte-identical and reaches a new conversation; a hand edit
 * applies on the next turn; the ⚙ panel's refresh makes the conversation take the current memory. And the per-turn
 * attribution: the memory items recorded for a turn are exactly those its request carried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server.ts'
import { kindOf, until } from '../support/memory-requests.ts'

let model: ModelServer
let host: Host

/** Message marker → the fact the model saves with memory_save when it reads it. */
const saves: Record<string, string> = {
  'CS-SAVE-1': '用户的狗叫豆豆',
  'CS-SAVE-2': '用户在学大提琴',
  'AT-SAVE': '用户喜欢爬山',
}

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r) => {
    if (isTitleRequest(r)) return undefined
    if (kindOf(r) !== 'turn') return { text: '无' }
    const marker = Object.keys(saves).find((m) => r.lastUser.includes(m))
    const answered = r.messages.slice(r.lastUserAt).some((m) => m.role === 'tool')
    if (marker !== undefined && !answered)
      return { toolCalls: [{ name: 'memory_save', arguments: { facts: [saves[marker]] } }] }
    return { text: `已收到：${r.lastUser}` }
  })
  host = await bootHost(model)
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

/** Send `text`; resolves with every conversation request of that turn once `steps` came (a tool call makes two). */
const turn = (sessionId: string, text: string, steps = 1): Promise<RecordedRequest[]> =>
  host.say(sessionId, text, steps)

describe('cache-stable memory through the real dsh web (on by default)', () => {
  let sid: string
  let first: string

  it('a fact saved by memory_save mid-conversation leaves its system prompt byte-identical and reaches a new conversation', async () => {
    sid = await host.conversation()
    await host.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小林' }] })
    const [t1] = await turn(sid, 'CS-1 你好')
    first = t1!.system
    expect(first).toContain('- 用户叫小林')
    const saving = await turn(sid, 'CS-SAVE-1 请记住', 2)
    expect((await host.profile('general')).memory.items).toContainEqual(
      expect.objectContaining({ text: '用户的狗叫豆豆', source: 'tool', sessionId: sid }),
    )
    const [t3] = await turn(sid, 'CS-3 继续')
    for (const r of [...saving, t3!]) expect(r.system).toBe(first)
    const [other] = await turn(await host.conversation(), 'CS-NEW 你好')
    expect(other!.system).toContain('- 用户的狗叫豆豆')
    expect(other!.system).toContain('- 用户叫小林')
  })

  it('a hand edit applies on the next turn, bringing what the model saved meanwhile with it', async () => {
    await host.command({ op: 'memory.add', target: { sessionId: sid }, items: [{ text: '本对话在准备面试' }] })
    const [r] = await turn(sid, 'CS-4 继续')
    expect(r!.system).not.toBe(first)
    expect(r!.system).toContain('- 本对话在准备面试')
    expect(r!.system).toContain('- 用户的狗叫豆豆')
    first = r!.system
  })

  it('the ⚙ refresh makes the conversation take the current memory on its next turn', async () => {
    await turn(sid, 'CS-SAVE-2 请记住', 2)
    const [kept] = await turn(sid, 'CS-6 继续')
    expect(kept!.system).toBe(first)
    const reply = await host.command<{ session: { setting: { memoryRefreshedAt?: number } } }>({
      op: 'session.refreshMemory',
      sessionId: sid,
    })
    expect(reply.session.setting.memoryRefreshedAt).toBeTypeOf('number')
    const [fresh] = await turn(sid, 'CS-7 继续')
    expect(fresh!.system).toContain('- 用户在学大提琴')
    const [after] = await turn(sid, 'CS-8 继续')
    expect(after!.system).toBe(fresh!.system)
  })
})

/** The memory items a request's system prompt carried, as the model read them. */
function carried(r: RecordedRequest): string[] {
  const system = r.system.replaceAll('\u200D', '')
  const at = system.lastIndexOf('# 长期记忆')
  return at < 0
    ? []
    : system
        .slice(at)
        .split('\n')
        .filter((l) => l.startsWith('- '))
        .map((l) => l.slice(2))
}

/** The memory items `turn` of `sessionId` carried, once the ledger has them (written as the turn's request goes out). */
async function attribution(sessionId: string, turn: number): Promise<{ text: string; layer: string }[]> {
  const url = `${host.web.url}/__ap/turns/${encodeURIComponent(sessionId)}?turn=${turn}`
  return until(`the memories of turn ${turn}`, async () => {
    const { memories } = (await (await fetch(url)).json()) as { memories: { text: string; layer: string }[] | null }
    return memories ?? undefined
  })
}

describe('per-turn memory attribution through the real dsh web', () => {
  it('the items recorded for each turn are exactly the memory items its request carried', async () => {
    const sid = await host.conversation()
    await host.command({
      op: 'memory.add',
      target: { sessionId: sid },
      items: [{ text: '本对话只谈 Rust {{生命周期}}' }],
    })
    const requests: RecordedRequest[] = []
    requests.push(...(await turn(sid, 'AT-1 你好')))
    requests.push((await turn(sid, 'AT-SAVE 请记住', 2)).at(-1)!)
    await host.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户偏好短句' }] })
    requests.push(...(await turn(sid, 'AT-3 继续')))
    const { turns, memories } = (await (
      await fetch(`${host.web.url}/__ap/turns/${encodeURIComponent(sid)}`)
    ).json()) as { turns: Record<string, string>; memories: Record<string, number> }
    expect(Object.keys(turns)).toEqual(['1', '2', '3'])
    for (const [i, request] of requests.entries()) {
      const used = await attribution(sid, i + 1)
      expect(carried(request).length).toBeGreaterThan(0)
      expect(used!.map((u) => u.text)).toEqual(carried(request))
      expect(memories[i + 1]).toBe(used!.length)
    }
    const third = (await attribution(sid, 3))!
    expect(third).toContainEqual({ id: expect.any(String), text: '用户偏好短句', layer: 'profile' })
    expect(third).toContainEqual({
      id: expect.any(String),
      text: '本对话只谈 Rust {{生命周期}}',
      layer: 'conversation',
    })
    // The tool's fact stayed out of this conversation's prompt (cache-stable); turn 1 still reads as it was.
    expect(third.map((u) => u.text)).toContain('用户喜欢爬山')
    expect((await attribution(sid, 2))!.map((u) => u.text)).not.toContain('用户喜欢爬山')
    expect((await attribution(sid, 1))!.map((u) => u.text)).not.toContain('用户偏好短句')
  })
})
