/**
 * Several profiles in one conversation through the real `dsh web` (this plugin installed, offline model), asserting on
 * what the model received: a message naming a profile is answered by it for that turn only (its persona, only its
 * tools), `@A @B` gives one answer from each in order with the second told whose the first reply was, each answer has
 * its own turn in the ledger, a tool allowed for A is refused for B, and `memory_save` during B's answer — and the
 * background extraction's facts from B's turn — land in B's memory.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { ledgerOf, until } from '../support/memory-requests.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  turnOf,
  turnToolResults,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'

const REVIEW = {
  name: '审阅员',
  role: '你是审阅员，暗号 REV-5521。',
  tools: { profile: 'read-only', add: [], remove: [] },
}
const CODER = {
  name: 'Code Buddy',
  role: '你是 Code Buddy，暗号 COD-8830。',
  tools: { profile: 'full', add: [], remove: [] },
}

let model: ModelServer
let host: Host
let reviewId: string
let coderId: string

const names = (r: RecordedRequest) => r.tools.map((t) => t.function.name)
const who = (r: RecordedRequest) =>
  r.system.includes('REV-5521') ? 'review' : r.system.includes('COD-8830') ? 'coder' : 'own'

/** The conversation requests whose history carries `marker`, once `count` came, in the order they were sent. */
async function requestsWith(marker: string, count: number): Promise<RecordedRequest[]> {
  const carries = (r: RecordedRequest) =>
    !isTitleRequest(r) && r.messages.some((m) => m.role === 'user' && textOf(m).includes(marker))
  return await model.waitFor(carries, count, 60_000)
}

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r): Reply | undefined => {
    if (isTitleRequest(r)) return undefined
    // The background extraction: a fact for each marked turn its excerpt shows, so where it lands shows whose it was.
    if (r.system.includes('对话材料')) {
      const facts = [
        r.lastUser.includes('E2E-X1') ? '- E2E-OWNFACT 用户叫小李' : '',
        r.lastUser.includes('E2E-X2') ? '- E2E-REVFACT 用户希望评审先说结论' : '',
      ]
      return { text: facts.filter((f) => f !== '').join('\n') || '无' }
    }
    if (turnToolResults(r).length > 0)
      return { text: `E2E ${who(r)} 看到了工具结果：${textOf(r.messages.at(-1)!).slice(0, 80)}` }
    const asked = r.messages
      .filter((m) => m.role === 'user')
      .map(textOf)
      .join('\n')
    if (asked.includes('E2E-BASH'))
      return {
        toolCalls: [
          { name: 'bash', arguments: { command: `echo ${who(r)} > ran-${who(r)}.txt`, description: 'write a file' } },
        ],
      }
    if (asked.includes('E2E-STOP') && who(r) === 'coder') return { stall: true }
    if (asked.includes('E2E-SAVE') && who(r) === 'review')
      return { toolCalls: [{ name: 'memory_save', arguments: { facts: ['E2E-FACT 用户在写 Rust'] } }] }
    return { text: `E2E ${who(r)} 回答` }
  })
  host = await bootHost(model)
  reviewId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: REVIEW })).profile.id
  coderId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: CODER })).profile.id
  await host.command({ op: 'profile.activate', id: 'general' })
}, 180_000)

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

describe('several profiles in one conversation (real dsh web)', () => {
  it('a mention makes that profile answer one turn with its persona and only its tools; the next turn is back', async () => {
    const sessionId = await host.conversation()
    const [named] = await host.say(sessionId, '@审阅员 E2E-M1 帮我看看这段代码')
    expect(who(named!)).toBe('review')
    expect(named!.system).toContain('用户点名由你「审阅员」回答这一轮')
    expect(names(named!)).toContain('read')
    for (const tool of ['write', 'edit', 'bash']) expect(names(named!), tool).not.toContain(tool)
    const [back] = await host.say(sessionId, 'E2E-M2 再来')
    expect(who(back!)).toBe('own')
    // Said late, after the user's message, so the own profile's system prompt comes back unchanged.
    expect(textOf(back!.messages.at(-1)!)).toContain('上一条回复出自用户点名的「审阅员」')
    expect(back!.system).not.toContain('本轮发言者')
    expect(names(back!)).toEqual(expect.arrayContaining(['write', 'bash', 'read']))
    const [third] = await host.say(sessionId, 'E2E-M3 还有')
    expect(third!.system).not.toContain('本轮发言者')
    expect(await ledgerOf(host, sessionId, 3)).toEqual({ 1: reviewId, 2: 'general', 3: 'general' })
  })

  it('a Latin name typed in another case, inside a sentence, works the same', async () => {
    const sessionId = await host.conversation()
    const [named] = await host.say(sessionId, '请 @code buddy 看一下 E2E-CASE')
    expect(who(named!)).toBe('coder')
  })

  it('@A @B gives one answer from each, in order, each its own turn; B is told whose the reply before was', async () => {
    const sessionId = await host.conversation()
    await host.prompt(sessionId, '@Code Buddy @审阅员 E2E-AB 你们怎么看')
    const [first, second] = await requestsWith('E2E-AB', 2)
    expect(who(first!)).toBe('coder')
    expect(who(second!)).toBe('review')
    const relay = textOf(second!.messages.at(-1)!)
    expect(relay).toContain('上面的回复出自「Code Buddy」')
    expect(second!.messages.filter((m) => m.role === 'assistant').map(textOf)).toContain('E2E coder 回答')
    expect(await ledgerOf(host, sessionId, 2)).toEqual({ 1: coderId, 2: reviewId })
    const [next] = await host.say(sessionId, 'E2E-AB-NEXT')
    expect(who(next!)).toBe('own')
  })

  it('a tool allowed for A is refused for B in the same message', async () => {
    for (const f of ['ran-coder.txt', 'ran-review.txt']) rmSync(join(host.home.workspace, f), { force: true })
    const sessionId = await host.conversation()
    await host.prompt(sessionId, '@Code Buddy @审阅员 E2E-BASH 各自跑一下')
    const requests = await requestsWith('E2E-BASH', 4)
    const reviewAfterTool = requests.find((r) => who(r) === 'review' && turnToolResults(r).length > 0)!
    const refusal = turnToolResults(reviewAfterTool).join('\n')
    expect(refusal).toContain('工具「bash」不在当前智能体配置「审阅员」的工具档（只读）允许的范围内')
    expect(existsSync(join(host.home.workspace, 'ran-coder.txt'))).toBe(true)
    expect(existsSync(join(host.home.workspace, 'ran-review.txt'))).toBe(false)
  })

  it("memory_save during B's answer lands in B's memory, not A's nor the conversation's own profile's", async () => {
    const sessionId = await host.conversation()
    await host.prompt(sessionId, '@Code Buddy @审阅员 E2E-SAVE 记一下')
    await requestsWith('E2E-SAVE', 3)
    await ledgerOf(host, sessionId, 2)
    const texts = async (id: string) => (await host.profile(id)).memory.items.map((it) => it.text)
    expect(await texts(reviewId)).toContain('E2E-FACT 用户在写 Rust')
    expect(await texts(coderId)).not.toContain('E2E-FACT 用户在写 Rust')
    expect(await texts('general')).not.toContain('E2E-FACT 用户在写 Rust')
  })

  it("the background extraction files a fact from B's turn in B's memory and one from an own turn in the own profile's", async () => {
    const sessionId = await host.conversation()
    const texts = ['E2E-X1 我叫小李', '@审阅员 E2E-X2 评审时请先说结论', 'E2E-X3 好的', 'E2E-X4 继续', 'E2E-X5 谢谢']
    for (const [i, text] of texts.entries()) {
      await host.say(sessionId, text)
      await ledgerOf(host, sessionId, i + 1)
    }
    // Five completed turns (memory.everyTurns): one run, one request per answering profile.
    const asked = await model.waitFor((r) => r.system.includes('对话材料'), 2, 60_000)
    expect(asked.map((r) => r.lastUser.includes('E2E-X2'))).toEqual([false, true])
    expect(asked[1]!.lastUser).not.toContain('E2E-X1')
    const memory = async (id: string) => (await host.profile(id)).memory.items.map((it) => it.text)
    await until('the named profile to keep its fact', async () =>
      (await memory(reviewId)).includes('E2E-REVFACT 用户希望评审先说结论') ? true : undefined,
    )
    expect(await memory(reviewId)).not.toContain('E2E-OWNFACT 用户叫小李')
    expect(await memory('general')).toContain('E2E-OWNFACT 用户叫小李')
    expect(await memory('general')).not.toContain('E2E-REVFACT 用户希望评审先说结论')
  })

  it("@all asks the conversation's cast in the order added; a profile deleted since is dropped from it", async () => {
    const sessionId = await host.conversation()
    const spare = (
      await host.command<{ profile: Profile }>({
        op: 'profile.create',
        profile: { name: '临时', role: '你是临时配置，暗号 TMP-1。' },
      })
    ).profile.id
    await host.command({ op: 'profile.activate', id: 'general' })
    await host.command({ op: 'session.set', sessionId, patch: { cast: [reviewId, spare, coderId] } })
    await host.prompt(sessionId, '@all E2E-ALL1 大家说说')
    const answers = await requestsWith('E2E-ALL1', 3)
    expect(answers.map((r) => (r.system.includes('TMP-1') ? 'spare' : who(r)))).toEqual(['review', 'spare', 'coder'])
    await ledgerOf(host, sessionId, 3)
    const deleted = await host.command<{ notice: { key: string; params: Record<string, unknown> } }>({
      op: 'profile.delete',
      id: spare,
    })
    expect(deleted.notice).toMatchObject({ key: 'profile.deleted', params: { uncast: 1 } })
    await host.prompt(sessionId, '@所有人 E2E-ALL2 再说说')
    const again = await requestsWith('E2E-ALL2', 2)
    expect(again.map(who)).toEqual(['review', 'coder'])
    expect(await ledgerOf(host, sessionId, 5)).toEqual({ 1: reviewId, 2: spare, 3: coderId, 4: reviewId, 5: coderId })
  })

  it("the host's stop during A's answer ends the line: B does not answer, and the next turn is the conversation's own", async () => {
    const sessionId = await host.conversation()
    await host.prompt(sessionId, '@Code Buddy @审阅员 E2E-STOP 说说')
    await requestsWith('E2E-STOP', 1)
    await host.rpc('session.cancel', { sessionId })
    const [next] = await host.say(sessionId, 'E2E-AFTER-STOP 还在吗')
    expect(who(next!)).toBe('own')
    expect(
      model.requests.filter(
        (r) => !isTitleRequest(r) && who(r) === 'review' && r.messages.some((m) => textOf(m).includes('E2E-STOP')),
      ),
    ).toEqual([])
  })

  it("a named speaker's turn recalls from its own memory, never from the conversation's own profile's", async () => {
    // Archived facts are never in a system prompt: only recall can bring them, so what each request carries is recall's.
    // Each memory holds ordinary facts beside the one asked about, as a user's does (relevance is weighed against them).
    const CAT = '用户的猫叫团子'
    const DOG = '用户的狗叫旺财'
    const PLACES = ['杭州', '北京', '成都', '深圳', '武汉', '西安']
    const archived = (text: string) => ({
      summary: '',
      items: [
        text,
        ...Array.from(
          { length: 60 },
          (_, i) => `用户第 ${i} 次去${PLACES[i % PLACES.length]}出差，住了 ${(i % 7) + 1} 天`,
        ),
      ].map((t, i) => ({ text: t, source: 'user', at: Date.now() - (i + 1) * 86_400_000, archived: true })),
    })
    await host.command({ op: 'profile.update', id: reviewId, patch: { memory: archived(CAT) } })
    await host.command({ op: 'profile.update', id: 'general', patch: { memory: archived(DOG) } })
    const sessionId = await host.conversation()
    const [named] = await host.say(sessionId, '@审阅员 E2E-R1 我的猫叫什么名字？')
    expect(who(named!)).toBe('review')
    const carried = (r: RecordedRequest) => JSON.stringify(r.messages)
    expect(carried(named!)).toContain(CAT)
    expect(carried(named!)).not.toContain(DOG)
    expect(named!.system).not.toContain(CAT)
    const [own] = await host.say(sessionId, 'E2E-R2 那我的狗叫什么名字？')
    expect(who(own!)).toBe('own')
    expect(turnOf(own!).map(textOf).join('\n')).toContain(DOG)
    expect(carried(own!).split(CAT).length - 1).toBe(1)
  })
})
