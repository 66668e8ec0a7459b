/**
 * Recall through the real `dsh web` (the pinned host, this plugin installed, offline model scripted), asserting on
 * what the model actually received: a fact saved in turn 2 reaches the model in turn 4 as runtime context after the
 * question while the system prompt stays byte-identical; a new conversation's question recalls the one relevant fact
 * among 5,000, and `memory_search` returns it; the turn ledger marks recalled items; incognito reads recall and writes
 * nothing.
 */
import { describe, expect, it } from 'vitest'
import type { MemorySearchReply } from '../../lib/shared/wire-replies.ts'
import type { UsedMemory } from '../../lib/state/model.ts'
import type { RecordedRequest } from '../support/model-server.ts'
import { memoryHostForSpec, until } from '../support/memory-requests.ts'
import { textOf } from '../../lib/offline-model/requests.ts'

/** Message marker → the tool call the model makes when it reads it (once per turn). */
const calls: Record<string, { name: string; arguments: unknown }> = {
  'RC-SAVE': { name: 'memory_save', arguments: { facts: ['用户住在杭州西湖区'] } },
  'RC-SEARCH': { name: 'memory_search', arguments: { query: '牙医' } },
  'RC-INCOGNITO-SAVE': { name: 'memory_save', arguments: { facts: ['用户在无痕对话里说喜欢猫'] } },
}

// The background job stays off: this spec is about what recall sends, not about what extraction stores.
const env = memoryHostForSpec({ autoExtract: false })

const turn = (sessionId: string, text: string, steps = 1): Promise<RecordedRequest[]> => {
  env.answers.script = (r, kind) => {
    if (kind !== 'turn') return undefined
    const marker = Object.keys(calls).find((m) => r.lastUser.includes(m))
    const answered = r.messages.slice(r.lastUserAt).some((m) => m.role === 'tool')
    return marker !== undefined && !answered ? { toolCalls: [calls[marker]!] } : { text: `已收到：${r.lastUser}` }
  }
  return env.host.say(sessionId, text, steps)
}

/** The texts the host put after the person's message in this request (its runtime-context snapshot among them). */
const after = (r: RecordedRequest) =>
  r.messages
    .slice(r.lastUserAt + 1)
    .filter((m) => m.role === 'user')
    .map(textOf)
    .join('\n')
/** Every runtime-context snapshot a request carried, anywhere in its history. */
const snapshots = (r: RecordedRequest) =>
  r.messages.filter((m) => m.role === 'user' && textOf(m).startsWith('Current runtime context.')).map(textOf)

/** The ledger's items of one turn, once it recorded the recalled ones. */
function ledger(sessionId: string, turnNo: number): Promise<UsedMemory[]> {
  const url = `${env.host.web.url}/__ap/turns/${encodeURIComponent(sessionId)}?turn=${turnNo}`
  return until(`turn ${turnNo}'s recalled items`, async () => {
    const { memories } = (await (await fetch(url)).json()) as { memories: UsedMemory[] | null }
    return memories?.some((m) => m.recalled === true) ? memories : undefined
  })
}

const search = async (query: string) =>
  (await (await fetch(`${env.host.web.url}/__ap/memory/search?${query}`)).json()) as MemorySearchReply

/**
 * The general profile's memory: `n` facts of months of meetings, plus `extra` (oldest first, archived) and `pinned`
 * (the core every request carries once the memory is larger than the budget).
 */
async function fill(
  n: number,
  extra: { id: string; text: string; at: number }[] = [],
  pinned: string[] = [],
): Promise<void> {
  const items = [
    ...pinned.map((text, i) => ({ id: `pin${i}`, text, source: 'user', at: Date.UTC(2024, 0, 1 + i), pinned: true })),
    ...extra.map((e) => ({ ...e, source: 'auto', archived: true })),
    ...Array.from({ length: n }, (_, i) => ({
      id: `e2e${i}`,
      text: `第${i}条记录：项目${i % 41}的周会纪要，讨论了进度、预算和${['代码评审', '招聘', '出差报销', '上线计划'][i % 4]}`,
      source: 'auto',
      at: Date.UTC(2025, 0, 1) + i * 600_000,
    })),
  ]
  await env.host.command({ op: 'profile.update', id: 'general', patch: { memory: { summary: '', items } } })
}

describe('recall through the real dsh web', () => {
  it('a fact saved in turn 2 is recalled in turn 4, after the question, while the system prompt stays byte-identical', async () => {
    await fill(300, [], ['用户希望回答先给结论'])
    const sid = await env.host.conversation()
    const [t1] = await turn(sid, 'RC-1 你好')
    const saving = await turn(sid, 'RC-SAVE 对了，我住在杭州西湖区', 2)
    expect((await env.host.profile('general')).memory.items).toContainEqual(
      expect.objectContaining({ text: '用户住在杭州西湖区', source: 'tool' }),
    )
    const [t3] = await turn(sid, 'RC-3 推荐一部电影吧')
    const [t4] = await turn(sid, 'RC-4 我住在哪个城市来着？')
    for (const r of [...saving, t3!, t4!]) expect(r.system).toBe(t1!.system)
    expect(t4!.system).not.toContain('杭州西湖区')
    expect(after(t3!)).not.toContain('杭州西湖区')
    expect(after(t4!)).toMatch(/# 相关记忆[\s\S]*（\d{4}-\d{2}-\d{2} 记下 · 记忆）用户住在杭州西湖区/)
    const used = await ledger(sid, 4)
    expect(used.filter((u) => u.recalled === true)).toEqual([
      expect.objectContaining({ text: '用户住在杭州西湖区', layer: 'profile', recalled: true, at: expect.any(Number) }),
    ])
    // Beside the core the memory half carries (the pinned fact).
    expect(used.filter((u) => u.recalled !== true).map((u) => u.text)).toEqual(['用户希望回答先给结论'])
    // A fifth turn about the same thing sends it no second time: the snapshot in the log still carries it.
    const [t5] = await turn(sid, 'RC-5 杭州西湖区最近天气怎么样？')
    expect(snapshots(t5!).filter((s) => s.includes('用户住在杭州西湖区'))).toHaveLength(1)
  })

  it('a question in a new conversation recalls the one relevant fact among 5,000, and memory_search returns it', async () => {
    const dentist = {
      id: 'dentist',
      text: '用户的牙医是城西口腔诊所的王医生，每半年洗一次牙',
      at: Date.UTC(2024, 2, 3, 12),
    }
    await fill(4_999, [dentist])
    const state = (await env.host.read<{ meta: { recall?: { index: { items: number } } } }>()).meta
    expect(state.recall?.index.items).toBeGreaterThanOrEqual(5_000)
    const sid = await env.host.conversation()
    const [asked] = await turn(sid, 'RC-5K 我的牙医叫什么来着？')
    expect(asked!.system).not.toContain('王医生')
    const recalled = after(asked!)
    expect(recalled).toContain('（2024-03-03 记下 · 记忆）用户的牙医是城西口腔诊所的王医生')
    expect(recalled.split('\n').filter((l) => l.startsWith('- （'))).toHaveLength(1)
    const searching = await turn(sid, 'RC-SEARCH 查一下', 2)
    const tool = searching
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map(textOf)
      .join('\n')
    expect(tool).toContain('[dentist]')
    expect(tool).toContain('王医生')
    // The settings list finds it through the same index, archived.
    const list = await search(`layer=profile&owner=general&q=${encodeURIComponent('口腔诊所')}&archived=1`)
    expect(list.items.map((it) => it.id)).toEqual(['dentist'])
  })

  it('incognito reads recall as it reads memory, and writes nothing', async () => {
    const sid = await env.host.conversation()
    await env.host.command({ op: 'session.set', sessionId: sid, patch: { incognito: true } })
    const before = await env.host.profile('general')
    const countBefore = (await search('layer=profile&owner=general&limit=1')).total
    const [asked] = await turn(sid, 'RC-INC 我的牙医是哪家诊所的？')
    expect(after(asked!)).toContain('城西口腔诊所')
    const saving = await turn(sid, 'RC-INCOGNITO-SAVE 记住我喜欢猫', 2)
    expect(
      saving
        .at(-1)!
        .messages.filter((m) => m.role === 'tool')
        .map(textOf)
        .join(''),
    ).toContain('无痕模式')
    const now = await env.host.profile('general')
    expect(now.memory.items).toEqual(before.memory.items)
    const countAfter = (await search('layer=profile&owner=general&limit=1')).total
    expect(countAfter).toBe(countBefore)
    const session = (await (await fetch(`${env.host.web.url}/__ap/session/${encodeURIComponent(sid)}`)).json()) as {
      setting: { memories: unknown[] }
    }
    expect(session.setting.memories).toEqual([])
  })
})
