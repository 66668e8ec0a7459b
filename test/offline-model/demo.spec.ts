/**
 * The offline demo model's answers, request by request, read back through the plugin's own protocol: a chat turn
 * says it is offline, in the language of the person's message (in a turn a relay handed over too); "记住 …" becomes a memory_save call with the user's words and then a confirmation; the
 * extraction request gets only what the user said about themselves (or "无"); compression gets a valid, shorter
 * memory; the title request gets a short title. The same request always gets the same answer.
 */
import { describe, expect, it } from 'vitest'
import { compressionRequest, compressionSystem, parseCompressed } from '../../lib/memory/compress.ts'
import { EXTRACTION_SYSTEM, extractionRequest } from '../../lib/memory/job.ts'
import { parseFacts } from '../../lib/memory/lines.ts'
import { demoReply, rememberedWords } from '../../lib/offline-model/demo.ts'
import { recordRequest, type ChatMessage, type Reply } from '../../lib/offline-model/requests.ts'
import { renderRelay } from '../../lib/prompt/speakers.ts'

const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/

const MEMORY_SAVE = { type: 'function', function: { name: 'memory_save', parameters: {} } }

function ask(messages: ChatMessage[], options: { system?: string; tools?: unknown[] } = {}): Reply {
  return demoReply(
    recordRequest({
      messages: [{ role: 'system', content: options.system ?? '你是助手。' }, ...messages],
      tools: options.tools ?? [MEMORY_SAVE],
    }),
  )
}

const textOfReply = (r: Reply): string => ('text' in r ? (r.text ?? '') : '')

describe('offline demo: chat turns', () => {
  it("says it is offline, in the user's language, and never pretends to answer", () => {
    const zh = textOfReply(ask([{ role: 'user', content: '帮我写一首关于秋天的诗' }]))
    expect(zh).toContain('（离线模型）')
    expect(zh).toContain('离线演示模型')
    expect(zh).toContain('请记住')
    const en = textOfReply(ask([{ role: 'user', content: 'What is a closure?' }]))
    expect(en).toContain('offline demo model')
    expect(ask([{ role: 'user', content: 'What is a closure?' }])).toEqual(
      ask([{ role: 'user', content: 'What is a closure?' }]),
    )
  })

  it("calls memory_save with the user's own words when asked to remember, then confirms with the tool's result", () => {
    const said: ChatMessage = { role: 'user', content: '请记住我喜欢乌龙茶' }
    expect(ask([said])).toEqual({ toolCalls: [{ name: 'memory_save', arguments: { facts: ['我喜欢乌龙茶'] } }] })
    const after = ask([
      said,
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', function: { name: 'memory_save', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '已记住，存入「通用助手」的长期记忆：我喜欢乌龙茶' },
      { role: 'user', content: '<system-reminder>host context</system-reminder>' },
    ])
    expect(textOfReply(after)).toContain('已记住，存入「通用助手」的长期记忆：我喜欢乌龙茶')
    expect(textOfReply(ask([said], { tools: [] }))).toContain('没有提供 memory_save 工具')
  })

  it("answers an English message in English, never quoting the tool's Chinese text for the model", () => {
    const en = textOfReply(ask([{ role: 'user', content: 'What is a closure?' }]))
    expect(en.startsWith('(offline model) Received: What is a closure?')).toBe(true)
    expect(en).not.toMatch(CJK)
    const said: ChatMessage = { role: 'user', content: 'Please remember that I like oolong tea.' }
    expect(ask([said])).toEqual({ toolCalls: [{ name: 'memory_save', arguments: { facts: ['I like oolong tea'] } }] })
    const after = textOfReply(
      ask([
        said,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', function: { name: 'memory_save', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '已记住，存入「Helper」的长期记忆：I like oolong tea' },
      ]),
    )
    expect(after).toContain('"I like oolong tea"')
    expect(after).not.toMatch(CJK)
  })

  it("answers the person's message, in its language, in a turn a relay handed to the next profile named", () => {
    const relay = renderRelay('Writer', 'Helper')
    const reply = textOfReply(
      ask([
        { role: 'user', content: '@Helper @Writer what do you both think' },
        { role: 'user', content: '<system-reminder>skills</system-reminder>' },
        { role: 'assistant', content: '(offline model) Received: @Helper @Writer what do you both think' },
        { role: 'user', content: relay },
      ]),
    )
    expect(reply.startsWith('(offline model) Received: @Helper @Writer what do you both think')).toBe(true)
    expect(reply).not.toMatch(CJK)
  })

  it.each([
    ['请记住我喜欢乌龙茶', '我喜欢乌龙茶'],
    ['记住：我的猫叫年糕。', '我的猫叫年糕'],
    ['帮我记一下，周会在周二', '周会在周二'],
    ['Please remember that I like oolong tea.', 'I like oolong tea'],
    ['remember: my editor is Helix', 'my editor is Helix'],
    ['你能记住我说的话吗？', undefined],
    ['我记住了', undefined],
    ['你好', undefined],
  ])('reads a request to remember from %j', (text, words) => {
    expect(rememberedWords(text)).toBe(words)
  })
})

describe('offline demo: background requests', () => {
  function extract(excerpt: string, known: string[] = []): string[] {
    const request = extractionRequest(excerpt, known)
    const reply = ask([{ role: 'user', content: request.prompt }], { system: EXTRACTION_SYSTEM, tools: [] })
    const parsed = parseFacts(textOfReply(reply), { known, max: 10, framing: request.framing })
    expect(parsed.echo).toBeUndefined()
    expect(parsed.inShape).toBe(true)
    return parsed.facts
  }

  it('writes the dates a fact names as search keys in standard form, in the same answer', () => {
    const request = extractionRequest('用户：我住在杭州，2025年3月4日搬来的', [])
    const reply = ask([{ role: 'user', content: request.prompt }], { system: EXTRACTION_SYSTEM, tools: [] })
    const parsed = parseFacts(textOfReply(reply), { known: [], max: 10, framing: request.framing })
    expect(parsed.facts).toEqual(['我住在杭州，2025年3月4日搬来的'])
    expect(parsed.tags[0]?.keys).toBe('2025-03, 2025-03-04')
  })

  it("answers extraction in the protocol: nothing for ordinary turns, the user's statements about themselves otherwise", () => {
    const ordinary = [
      '用户：你好',
      '助手：（离线模型）已收到：你好',
      '用户：帮我写一首关于秋天的短诗',
      '用户：什么是闭包？',
      '用户：今天适合出门吗',
      '用户：谢谢',
    ].join('\n')
    expect(extract(ordinary)).toEqual([])
    const personal = [
      '用户：我住在杭州。你知道西湖吗？',
      '助手：我住在云端',
      '用户：请记住我喜欢乌龙茶',
      '用户：I work on a Rust compiler',
      '用户：我是后端工程师，我想知道怎么学 Go',
    ].join('\n')
    expect(extract(personal)).toEqual(['我住在杭州', 'I work on a Rust compiler', '我是后端工程师'])
    expect(extract(personal, ['我住在杭州'])).toEqual(['I work on a Rust compiler', '我是后端工程师'])
  })

  it('never offers a question as a fact, and keeps a statement whole across its commas', () => {
    const asked = ['用户：我住在哪里', '用户：我住在哪里？', '用户：我叫什么名字', '用户：Where do I live?'].join('\n')
    expect(extract(asked)).toEqual([])
    const told = [
      '用户：我住在北京，在一家书店上班。你觉得呢？',
      '用户：I live in Berlin, near the river.',
      '用户：我养了一只猫，叫年糕，你知道猫为什么怕水吗？',
    ].join('\n')
    expect(extract(told)).toEqual([
      '我住在北京，在一家书店上班',
      'I live in Berlin, near the river',
      '我养了一只猫，叫年糕',
    ])
  })

  it('answers compression with a valid memory shorter than the one it was given, keeping the newest items', () => {
    const items = Array.from(
      { length: 120 },
      (_, i) => `第${i}条：用户在第${i}个项目里用过这套工具链，对它的构建速度印象深刻`,
    )
    items.push(items[3]!)
    const request = compressionRequest('用户是后端工程师', items)
    const reply = ask([{ role: 'user', content: request.prompt }], { system: compressionSystem(2500), tools: [] })
    const parsed = parseCompressed(textOfReply(reply), request.framing)
    if (!parsed.ok) throw new Error(parsed.reason)
    const chars = parsed.memory.items.reduce((n, t) => n + t.length, parsed.memory.summary.length)
    expect(chars).toBeLessThanOrEqual(2500)
    // The repeated item counts once, at its newest place.
    expect(parsed.memory.items.slice(-2)).toEqual([items.at(-2), items[3]])
    expect(parsed.memory.items.filter((t) => t === items[3])).toHaveLength(1)
    expect(parsed.memory.summary).toMatch(/离线演示模型的压缩：合并重复，保留最新的 \d+ 条，省略较早的 \d+ 条/)
  })

  it('gives the host a short title from the first message', () => {
    const framed = (text: string) =>
      `Generate the session title from this JSON array of human messages:\n${JSON.stringify([{ seq: 3, text }])}`
    const system =
      'Create a concise title for an AI coding-assistant session from the supplied human messages.\nAim for about 6 words in non-CJK languages or 12 CJK characters.'
    expect(ask([{ role: 'user', content: framed('请记住我喜欢乌龙茶') }], { system, tools: [] })).toEqual({
      text: '请记住我喜欢乌龙茶',
    })
    expect(
      ask([{ role: 'user', content: framed('帮我把这个很长很长的记账应用的分类逻辑重新设计一遍吧') }], {
        system,
        tools: [],
      }),
    ).toEqual({ text: '帮我把这个很长很长的记账' })
    expect(
      ask([{ role: 'user', content: framed('Please explain how closures capture variables in JavaScript') }], {
        system,
        tools: [],
      }),
    ).toEqual({ text: 'Please explain how closures capture variables' })
  })
})
