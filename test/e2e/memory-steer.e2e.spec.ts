/**
 * Steering memory through the real `dsh web` (pinned host, this plugin, offline model scripted per test), driven
 * over the host's own `/api` like the web client: a pinned item survives a compression whose answer drops it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MemoryItem, Profile } from '../../lib/state/model.ts'
import type { RunRecord } from '../../lib/shared/diagnostics.ts'
import type { WireSession, WireState } from '../../lib/shared/wire-state.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import {
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'
import { kindOf, until as poll, type RequestKind as Kind } from '../support/memory-requests.ts'

const CONFIG = { everyTurns: 5, excerptChars: 6000, compressAt: 600, timeoutMs: 5000 }

let model: ModelServer
let host: Host

let script: (r: RecordedRequest, kind: Kind) => Reply | undefined = () => undefined

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r) => script(r, kindOf(r)))
  host = await bootHost(model, { patch: `- id: agent-profiles\n  config:\n    memory: ${JSON.stringify(CONFIG)}\n` })
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

const read = async () => (await host.read<{ state: WireState }>()).state
const memoryOf = async (id: string) => (await host.profile(id)).memory

const until = <T>(what: string, probe: () => Promise<T | undefined>) =>
  poll(what, probe, 30_000, () => host.web.output().slice(-3000))

describe('pinned memory items through the real host', () => {
  it('a pinned item survives a compression whose answer drops it, verbatim, and is never sent to be compressed', async () => {
    const PINNED = '用户对花生严重过敏，任何食谱都不能含花生'
    const { profile: created } = await host.command<{ profile: { id: string } }>({
      op: 'profile.create',
      profile: { name: '压缩置顶', role: '你是厨师。', memory: { items: [{ text: PINNED }] } },
    })
    const p = await host.profile(created.id)
    const pinned = p.memory.items[0]!
    await host.command({
      op: 'profile.update',
      id: p.id,
      patch: { memory: { items: [{ ...pinned, pinned: true }] }, basedOn: [pinned.id] },
    })
    script = (_r, kind) => (kind === 'compress' ? { text: '摘要：用户做过很多菜。\n- 用户常做川菜' } : undefined)
    const items = Array.from({ length: 16 }, (_, i) => ({
      text: `第${i}道菜：用户在第${i}次聚会上做过这道菜，客人都很喜欢它的味道，说下次还想再吃一次`,
    }))
    await host.command({ op: 'memory.add', target: { profileId: p.id }, items })
    const [request] = await model.waitFor(
      (r) => kindOf(r) === 'compress' && textOf(r.messages.at(-1)!).includes('第0道菜'),
      1,
      30_000,
    )
    expect(textOf(request!.messages.at(-1)!)).not.toContain('花生')
    const after = await until('the compressed memory', async () => {
      const m = await memoryOf(p.id)
      return m.summary !== '' ? m : undefined
    })
    expect(after.summary).toBe('用户做过很多菜。')
    expect(after.items.map((it: MemoryItem) => [it.text, it.pinned ?? false])).toEqual([
      [PINNED, true],
      ['用户常做川菜', false],
    ])
    expect(after.items[0]!.id).toBe(pinned.id)
  })
})

describe('incognito conversations through the real host', () => {
  it('still read memory, but the tool refuses and no extraction request is sent after five turns', async () => {
    const sid = await host.conversation()
    const marker = 'INCOGNITO-7'
    const activeId = (await read()).activeId
    await host.command({ op: 'memory.add', target: { profileId: activeId }, items: [{ text: '用户的名字叫阿青' }] })
    const { notice } = await host.command<{ notice: { key: string } }>({
      op: 'session.set',
      sessionId: sid,
      patch: { incognito: true },
    })
    expect(notice.key).toBe('session.incognitoOn')
    const session = (await (
      await fetch(`${host.web.url}/__ap/session/${encodeURIComponent(sid)}`)
    ).json()) as WireSession
    expect(session.setting).toMatchObject({ incognito: true })
    const before = await memoryOf(activeId)
    const toolAfter = (r: RecordedRequest) => {
      const at = r.messages.findLastIndex((m) => m.role === 'user' && textOf(m).includes(`${marker} 第1轮`))
      return at < 0 ? undefined : r.messages.slice(at).find((m) => m.role === 'tool')
    }
    script = (r, kind) => {
      if (kind === 'extract') return { text: '- 用户住在无痕城' }
      if (kind !== 'turn' || !r.lastUser.includes(`${marker} 第1轮`)) return undefined
      return toolAfter(r)
        ? { text: '好的' }
        : { toolCalls: [{ name: 'memory_save', arguments: { facts: ['用户住在无痕城'] } }] }
    }
    const [first] = await host.say(sid, `${marker} 第1轮 我住在无痕城`)
    expect(first!.system).toContain('用户的名字叫阿青')
    const [followUp] = await model.waitFor((r) => toolAfter(r) !== undefined, 1, 60_000)
    expect(textOf(toolAfter(followUp!)!)).toContain('无痕模式')
    for (let i = 2; i <= 5; i++) await host.say(sid, `${marker} 第${i}轮`)
    // The fifth turn's run is recorded as skipped for incognito: the job ran, and asked the model nothing.
    const run = await until('the skipped run in diagnostics', async () =>
      (await host.read<{ meta: { memoryJob: { runs: RunRecord[] } } }>()).meta.memoryJob.runs.find(
        (x) => x.sessionId === sid,
      ),
    )
    expect(run).toMatchObject({ outcome: 'skipped', skip: 'incognito' })
    expect(
      model.requests.filter((r) => kindOf(r) === 'extract' && r.messages.some((m) => textOf(m).includes(marker))),
    ).toHaveLength(0)
    expect(await memoryOf(activeId)).toEqual(before)
  })
})

describe('ask-first mode through the real host', () => {
  it("keeps the tool's and the job's facts out of the next request until approved, and an approved one is in it", async () => {
    const { profile: p } = await host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { name: '先问我', role: '你是助手。', memoryMode: 'ask' },
    })
    const sid = await host.conversation()
    await host.command({ op: 'session.set', sessionId: sid, patch: { profileId: p.id } })
    const marker = 'ASK-3'
    const toolAfter = (r: RecordedRequest) => {
      const at = r.messages.findLastIndex((m) => m.role === 'user' && textOf(m).includes(`${marker} 第1轮`))
      return at < 0 ? undefined : r.messages.slice(at).find((m) => m.role === 'tool')
    }
    script = (r, kind) => {
      if (kind === 'extract' && r.messages.some((m) => textOf(m).includes(marker))) return { text: '- 用户每周去爬山' }
      if (kind !== 'turn' || !r.lastUser.includes(`${marker} 第1轮`)) return undefined
      return toolAfter(r)
        ? { text: '好的' }
        : { toolCalls: [{ name: 'memory_save', arguments: { facts: ['用户喜欢乌龙茶'] } }] }
    }
    await host.say(sid, `${marker} 第1轮 请记住我喜欢乌龙茶`)
    const [followUp] = await model.waitFor((r) => toolAfter(r) !== undefined, 1, 60_000)
    expect(textOf(toolAfter(followUp!)!)).toContain('已提交给用户确认')
    const tea = (await memoryOf(p.id)).items.find((it) => it.text === '用户喜欢乌龙茶')!
    expect(tea).toMatchObject({ source: 'tool', pending: true })
    const [second] = await host.say(sid, `${marker} 第2轮`)
    expect(second!.system).not.toContain('用户喜欢乌龙茶')
    for (let i = 3; i <= 5; i++) await host.say(sid, `${marker} 第${i}轮`)
    const hiking = await until('the extracted suggestion', async () =>
      (await memoryOf(p.id)).items.find((it) => it.text === '用户每周去爬山'),
    )
    expect(hiking).toMatchObject({ source: 'auto', pending: true })
    const [sixth] = await host.say(sid, `${marker} 第6轮`)
    expect(sixth!.system).not.toContain('用户每周去爬山')
    expect(sixth!.system).not.toContain('用户喜欢乌龙茶')
    await host.command({
      op: 'memory.approve',
      target: { profileId: p.id },
      itemId: hiking.id,
      text: '用户每周六去爬山',
      sessionId: sid,
    })
    await host.command({ op: 'memory.remove', target: { profileId: p.id }, itemId: tea.id })
    const [seventh] = await host.say(sid, `${marker} 第7轮`)
    expect(seventh!.system).toContain('用户每周六去爬山')
    expect(seventh!.system).not.toContain('乌龙茶')
    expect((await memoryOf(p.id)).items.map((it) => [it.text, it.pending ?? false])).toEqual([
      ['用户每周六去爬山', false],
    ])
  })
})
