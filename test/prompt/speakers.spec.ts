/**
 * Several speakers in one conversation: the bookkeeping of who answers each turn (lib/prompt/speakers.ts), and, on the
 * real dsh spine in process (agent loop, system prompt, tools), a message naming profiles answered by each in order
 * with that profile's persona, tool profile (hidden and refused at execution) and memory, the turn ledger naming each.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import { renderBackNotice, SpeakerBook } from '../../lib/prompt/speakers.ts'
import { recordRequest } from '../../lib/offline-model/requests.ts'
import type { ToolSettings } from '../../lib/state/model.ts'
import type { Harness } from '../support/memory-harness.ts'
import { bootSpeakers } from '../support/speakers-harness.ts'
import { toolResult } from '../support/spine.ts'

const PROFILES = [
  { id: 'a', name: 'Alpha' },
  { id: 'b', name: '贝塔' },
  { id: 'c', name: 'Gamma' },
]

describe('the speaker of each turn', () => {
  it('the first profile named answers the turn, the others wait in the order named', () => {
    const book = new SpeakerBook()
    book.claimed('s', 1, 'm1', '@贝塔 先说，然后 @Alpha', PROFILES, [])
    expect(book.speaker('s')).toBe('b')
    expect(book.next('s', 'r1', () => true)).toBe('a')
    book.claimed('s', 2, 'r1', undefined, PROFILES, [])
    expect(book.speaker('s')).toBe('a')
    expect(book.previous('s')).toBe('b')
    expect(book.next('s', 'r2', () => true)).toBeUndefined()
  })

  it('@all asks the cast after those named, skipping cast members that no longer exist', () => {
    const book = new SpeakerBook()
    book.claimed('s', 1, 'm1', '@Gamma 和 @all 说说', PROFILES, ['a', 'gone', 'c', 'b'])
    expect(book.speaker('s')).toBe('c')
    expect(book.next('s', 'r1', () => true)).toBe('a')
    book.claimed('s', 2, 'r1', undefined, PROFILES, [])
    expect(book.next('s', 'r2', (id) => id !== 'b')).toBeUndefined()
  })

  it("a message naming nobody is the conversation's own turn; steering mid-turn changes nothing", () => {
    const book = new SpeakerBook()
    book.claimed('s', 1, 'm1', '@Alpha 看看', PROFILES, [])
    book.claimed('s', 1, 'm2', '@Gamma 等等', PROFILES, [])
    expect(book.speaker('s')).toBe('a')
    book.claimed('s', 2, 'm3', '没有点名', PROFILES, [])
    expect(book.speaker('s')).toBeUndefined()
    expect(book.previous('s')).toBe('a')
  })

  it("going idle (done, stopped or failed) ends the line and keeps who spoke last for the next turn's notice", () => {
    const book = new SpeakerBook()
    book.claimed('s', 1, 'm1', '@Alpha @Gamma 说', PROFILES, [])
    book.idle('s')
    expect(book.speaker('s')).toBeUndefined()
    expect(book.next('s', 'r', () => true)).toBeUndefined()
    book.claimed('s', 2, 'm2', '继续', PROFILES, [])
    expect(book.previous('s')).toBe('a')
    // A relay cleared with the inbox is never claimed: a later message of that id is an ordinary one.
    book.claimed('t', 1, 'x', '@Alpha @Gamma', PROFILES, [])
    expect(book.next('t', 'relay', () => true)).toBe('c')
    book.idle('t')
    book.claimed('t', 2, 'relay', undefined, PROFILES, [])
    expect(book.speaker('t')).toBeUndefined()
  })
})

describe("the late line back to the conversation's own profile", () => {
  it("is not taken for the person's message by the offline model, which answers the message before it", () => {
    const r = recordRequest({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: '回到你' },
        { role: 'user', content: renderBackNotice('读者', '通用助手') },
      ],
    })
    expect(r.lastUser).toBe('回到你')
  })
})

// ---- on the real spine -------------------------------------------------------------------------------------------

let h: Harness
let ran: string[]

async function profile(name: string, role: string, tools: ToolSettings): Promise<string> {
  const reply = await h.store.command({ op: 'profile.create', profile: { name, role, tools } })
  return (reply as unknown as { profile: { id: string } }).profile.id
}

const names = (o: GenerateOptions) => (o.tools ?? []).map((t) => t.name).sort()
const turns = () => h.model.of('turn').map((s) => s.options)

beforeEach(async () => {
  ran = []
  h = await bootSpeakers(ran)
})
afterEach(async () => {
  await h.close()
})

describe('each speaker is itself (real spine)', () => {
  let agent: Agent
  let writer: string
  let reader: string

  beforeEach(async () => {
    writer = await profile('Writer', '你是 Writer，暗号 W-1。', { profile: 'full', add: [], remove: [] })
    reader = await profile('读者', '你是读者，暗号 R-2。', { profile: 'read-only', add: [], remove: [] })
    await h.store.command({ op: 'profile.activate', id: 'general' })
    agent = await h.conversation('s-cast')
  })

  it("A then B answer in the order named, each with its persona and tools; the next turn is the conversation's own", async () => {
    await h.turn(agent, '@Writer @读者 你们看看')
    const [a, b] = turns()
    expect(a!.system).toContain('W-1')
    expect(a!.system).not.toContain('R-2')
    expect(names(a!)).toEqual(['bash', 'memory_save', 'read', 'write'])
    expect(b!.system).toContain('R-2')
    expect(b!.system).not.toContain('W-1')
    expect(names(b!)).toEqual(['memory_save', 'read'])
    await h.turn(agent, '谢谢')
    const own = turns().at(-1)!
    expect(own.system).not.toContain('W-1')
    expect(own.system).not.toContain('R-2')
    expect(own.system).not.toContain('读者')
    const late = own.messages
      .at(-1)!
      .content.map((b) => (b.type === 'text' ? b.text : ''))
      .join('')
    expect(late).toContain('上一条回复出自用户点名的「读者」')
    expect(names(own)).toEqual(['bash', 'memory_save', 'read', 'write'])
    expect(h.store.turnsOf('s-cast')).toEqual({ 1: writer, 2: reader, 3: 'general' })
  })

  it('a tool A may use is refused for B a moment later, and is not run', async () => {
    h.model.script(
      'turn',
      { tool: 'write', args: { path: 'a.txt' } },
      { text: 'A 写好了' },
      { tool: 'write', args: { path: 'b.txt' } },
      { text: 'B 不能写' },
    )
    await h.turn(agent, '@Writer @读者 各写一个文件')
    expect(ran).toEqual(['write'])
    const [, afterA, , afterB] = turns()
    expect(toolResult(afterA!)).toBe('write done')
    expect(toolResult(afterB!)).toMatch(/工具「write」不在当前智能体配置「读者」的工具档（只读）允许的范围内/)
  })

  it("memory_save during B's answer writes to B's memory, and B's ask-first mode holds it as a suggestion", async () => {
    await h.store.command({ op: 'profile.update', id: reader, patch: { memoryMode: 'ask' } })
    h.model.script(
      'turn',
      { text: 'A 说完了' },
      { tool: 'memory_save', args: { facts: ['用户在学 Rust'] } },
      { text: '记下了' },
    )
    await h.turn(agent, '@Writer @读者 记一下')
    const items = (id: string) => h.store.state.profiles.find((p) => p.id === id)!.memory.items
    expect(items(reader).map((it) => [it.text, it.pending])).toEqual([['用户在学 Rust', true]])
    expect(items(writer)).toEqual([])
  })

  it("back with the conversation's own profile, the system prompt and tools are byte for byte those before the excursion", async () => {
    await h.turn(agent, '第一个问题')
    await h.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '模型在对话里存的', source: 'tool', sessionId: 's-cast' }],
    })
    await h.turn(agent, '@读者 看看')
    await h.turn(agent, '回到你')
    await h.turn(agent, '再问一个')
    const [before, , back, after] = turns()
    expect(back!.system).toBe(before!.system)
    expect(JSON.stringify(back!.tools)).toBe(JSON.stringify(before!.tools))
    expect(after!.system).toBe(before!.system)
  })
})
