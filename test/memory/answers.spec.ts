/**
 * The answer protocol, fed the answers real chat models give: for each extraction answer the exact facts it stores
 * (and nothing else), and for each compression answer the exact memory it yields or that memory stays as it was.
 * Prefaces, headings, notes, "nothing" in its many wordings, emphasis, code fences, echoes of the request, two
 * languages mixed.
 */
import { describe, expect, it } from 'vitest'
import { compressionRequest, parseCompressed, type Compressed } from '../../lib/memory/compress.ts'
import { EXTRACTION_SYSTEM, extractionRequest, FACTS_PER_RUN, placeFacts } from '../../lib/memory/job.ts'
import { parseFacts } from '../../lib/memory/lines.ts'
import { KEYS_MAX as FACT_KEYS } from '../../lib/shared/memory-keys.ts'

const KNOWN = ['用户叫小王']
const EXCERPT = '用户：我喜欢乌龙茶，住在杭州\n助手：好的，记下了。\n用户：The user likes oolong tea'

/** What an answer comes to: its facts, and whether it was in the protocol, said nothing, or echoed the request. */
type Verdict = 'facts' | 'nothing' | 'unusable' | 'echo'

function extract(answer: (prompt: string, nonce: string) => string): { facts: string[]; verdict: Verdict } {
  const request = extractionRequest(EXCERPT, KNOWN)
  const parsed = parseFacts(answer(request.prompt, request.framing[0]!), {
    known: KNOWN,
    max: FACTS_PER_RUN,
    framing: request.framing,
  })
  const verdict: Verdict =
    parsed.echo !== undefined ? 'echo' : parsed.facts.length > 0 ? 'facts' : parsed.inShape ? 'nothing' : 'unusable'
  return { facts: parsed.facts, verdict }
}

const TEA = '用户喜欢乌龙茶'
const CITY = '用户住在杭州'
const TEA_EN = 'The user likes oolong tea'
const CITY_EN = 'The user lives in Hangzhou'

type Answer = string | ((prompt: string, nonce: string) => string)

const EXTRACTION: Array<[string, Answer, string[], Verdict]> = [
  ['a plain bullet', `- ${TEA}`, [TEA], 'facts'],
  ['a zh preface before bullets', `以下是新的长期事实：\n- ${TEA}\n- ${CITY}`, [TEA, CITY], 'facts'],
  [
    'a zh preface with a blank line and a closing offer',
    `根据对话，我整理了以下事实：\n\n* ${TEA}\n* ${CITY}\n\n如需调整请告诉我。`,
    [TEA, CITY],
    'facts',
  ],
  ['（无）', '（无）', [], 'nothing'],
  ['材料中没有新的长期事实。', '材料中没有新的长期事实。', [], 'nothing'],
  ['没有值得记住的新内容。', '没有值得记住的新内容。', [], 'nothing'],
  ['无新的长期事实。', '无新的长期事实。', [], 'nothing'],
  ['a bare 无', '无', [], 'nothing'],
  ['暂无新增事实', '暂无新增事实', [], 'nothing'],
  ['a preface then （无）', '新增的长期事实：\n（无）', [], 'nothing'],
  ['"nothing" as a bullet', '- 无', [], 'nothing'],
  ['"nothing" worded as a bullet', '- 没有新的长期事实', [], 'nothing'],
  ['a note that says nothing', '（注：材料里没有新的事实）', [], 'nothing'],
  ['a trailing note', `- ${TEA}\n\n注：以上为新增事实，已去重。`, [TEA], 'facts'],
  ['a trailing note as a bullet', `- ${TEA}\n- 注：其余内容都已在已知记忆中`, [TEA], 'facts'],
  ['a numbered list', `1. ${TEA}\n2. ${CITY}`, [TEA, CITY], 'facts'],
  ['a numbered list with 、', `1、${TEA}\n2、${CITY}`, [TEA, CITY], 'facts'],
  ['bold facts', `- **${TEA}**\n- **居住地**：${CITY}`, [TEA, `居住地：${CITY}`], 'facts'],
  ['a Markdown heading', `### 新的长期事实\n- ${TEA}`, [TEA], 'facts'],
  ['a bold heading with a colon', `**新事实：**\n- ${CITY}`, [CITY], 'facts'],
  ['bullets inside a code fence', `\`\`\`\n- ${TEA}\n\`\`\``, [TEA], 'facts'],
  ['JSON in a code fence', `\`\`\`json\n{"facts": ["${TEA}"]}\n\`\`\``, [], 'unusable'],
  ['facts as prose, no bullets', `${TEA}。\n${CITY}。`, [], 'unusable'],
  ['a horizontal rule around the list', `---\n- ${TEA}\n---`, [TEA], 'facts'],
  ['other bullet glyphs', `• ${CITY}\n· ${TEA}`, [CITY, TEA], 'facts'],
  ['a quoted fact', `- “${TEA}”`, [TEA], 'facts'],
  ['a repeat of a known memory', `- 用户叫小王\n- ${TEA}`, [TEA], 'facts'],
  ['the same fact twice', `- ${TEA}\n- ${TEA}。`, [TEA], 'facts'],
  ['a secret among the facts', `- 用户的密码是 hunter2hunter2\n- ${TEA}`, [TEA], 'facts'],
  ['only a known memory', '- 用户叫小王', [], 'nothing'],
  ['an over-long line', `- ${'很长'.repeat(501)}`, [], 'nothing'],
  ['the whole request echoed', (prompt) => prompt, [], 'echo'],
  ["the old offline model's echo", (prompt) => `（离线模型）已收到：${prompt.slice(0, 200)}`, [], 'echo'],
  [
    'the material markers echoed with a fact',
    (_p, nonce) => `<<<材料 ${nonce}>>>\n用户：我喜欢乌龙茶\n<<<材料结束 ${nonce}>>>\n- ${TEA}`,
    [],
    'echo',
  ],
  ['the known-memory header echoed', `已知记忆（不要重复）：\n- 用户叫小王\n- ${TEA}`, [], 'echo'],
  ['an en preface', `Here are the new long-term facts:\n- ${TEA_EN}\n- ${CITY_EN}`, [TEA_EN, CITY_EN], 'facts'],
  ['None.', 'None.', [], 'nothing'],
  ['No new long-term facts.', 'No new long-term facts.', [], 'nothing'],
  ['Nothing new to remember.', 'Nothing new to remember.', [], 'nothing'],
  ['an en list numbered with )', `1) ${TEA_EN}\n2) ${CITY_EN}`, [TEA_EN, CITY_EN], 'facts'],
  ['an en bold fact', `- **${TEA_EN}**`, [TEA_EN], 'facts'],
  ['an en heading and note', `**Facts:**\n- ${TEA_EN}\n\nNote: duplicates were removed.`, [TEA_EN], 'facts'],
  ['an en fact as prose', `${TEA_EN}.`, [], 'unusable'],
  [
    'mixed languages',
    `以下是新的长期事实 / New facts:\n- 用户喜欢 oolong tea\n- The user lives in 杭州`,
    ['用户喜欢 oolong tea', 'The user lives in 杭州'],
    'facts',
  ],
  ['a mixed note', `- 用户使用 Rust 和 TypeScript\nNote：以上为新增事实。`, ['用户使用 Rust 和 TypeScript'], 'facts'],
  ['an en "nothing" as a bullet', '- None', [], 'nothing'],
]

describe('extraction answers', () => {
  it('the table covers at least 30 answers', () => {
    expect(EXTRACTION.length).toBeGreaterThanOrEqual(30)
  })

  it.each(EXTRACTION)('%s', (_name, answer, facts, verdict) => {
    const result = extract(typeof answer === 'string' ? () => answer : answer)
    expect(result).toEqual({ facts, verdict })
  })

  it('counts every dropped line by reason', () => {
    const request = extractionRequest(EXCERPT, KNOWN)
    const answer = [
      '以下是新的长期事实：',
      '',
      '- **用户喜欢乌龙茶**',
      '- 用户叫小王',
      '- （无）',
      '用户住在杭州。',
      '```',
      '注：以上为新增事实，已去重。',
    ].join('\n')
    expect(parseFacts(answer, { known: KNOWN, max: 5, framing: request.framing })).toEqual({
      facts: [TEA],
      tags: [{}],
      dropped: { preface: 1, duplicate: 1, nothing: 1, prose: 1, fence: 1, note: 1 },
      inShape: true,
    })
  })

  it('keeps at most `max` facts and counts the rest', () => {
    const answer = Array.from({ length: 12 }, (_, i) => `- 用户的第${i}个长期目标`).join('\n')
    const parsed = parseFacts(answer, { known: [], max: FACTS_PER_RUN, framing: [] })
    expect(parsed.facts).toHaveLength(FACTS_PER_RUN)
    expect(parsed.dropped).toEqual({ 'over-limit': 12 - FACTS_PER_RUN })
  })
})

describe('layer tags and replacements in extraction answers', () => {
  const TAGS: Array<[string, string, string[], object[]]> = [
    ['a user-layer fact', `- [用户] ${CITY}`, [CITY], [{ layer: 'user' }]],
    ['a profile fact', `- [配置] ${TEA}`, [TEA], [{ layer: 'profile' }]],
    ['an untagged fact (the profile, as before tags)', `- ${TEA}`, [TEA], [{}]],
    ['full-width brackets and a colon', `1. 【用户】：${CITY}`, [CITY], [{ layer: 'user' }]],
    ['a bold tag', `- **[用户]** ${CITY}`, [CITY], [{ layer: 'user' }]],
    ['a replacement', `- [替换 m3] 用户搬到了上海`, ['用户搬到了上海'], [{ replaces: 'm3' }]],
    [
      'a layer and a replacement, any case',
      `- [用户][替换 M2] 用户搬到了上海`,
      ['用户搬到了上海'],
      [{ layer: 'user', replaces: 'm2' }],
    ],
    ['a tag on a "nothing" line', '- [用户] 无', [], []],
    ['a tag on a known fact', '- [用户] 用户叫小王', [], []],
    ['a tagged line that is no bullet stays prose', `[用户] ${CITY}`, [], []],
    [
      'mixed layers',
      `- [用户] ${CITY}
- [配置] ${TEA}
- ${TEA_EN}`,
      [CITY, TEA, TEA_EN],
      [{ layer: 'user' }, { layer: 'profile' }, {}],
    ],
  ]
  it.each(TAGS)('%s', (_name, answer, facts, tags) => {
    const request = extractionRequest(EXCERPT, KNOWN)
    const parsed = parseFacts(answer, { known: KNOWN, max: FACTS_PER_RUN, framing: request.framing })
    expect({ facts: parsed.facts, tags: parsed.tags }).toEqual({ facts, tags })
  })

  it('keeps the search keys written after a fact apart from its text: distinct, bounded, without markup', () => {
    const long = 'x'.repeat(41)
    const answer = [
      `- [用户] 用户下个月搬到杭州 ｜检索词：杭州、Hangzhou，搬家; 杭州, hangzhou, ${long}, <b>, 2025-04。`,
      '- 用户写代码用 Go | keys: Go, golang',
      `- ${TEA}`,
      `- 用户喜欢咖啡 ｜检索词：${Array.from({ length: 20 }, (_, i) => `k${i}`).join(', ')}`,
    ].join('\n')
    const parsed = parseFacts(answer, { known: [], max: FACTS_PER_RUN, framing: [] })
    expect(parsed.facts).toEqual(['用户下个月搬到杭州', '用户写代码用 Go', TEA, '用户喜欢咖啡'])
    expect(parsed.tags).toEqual([
      { layer: 'user', keys: '杭州, Hangzhou, 搬家, 2025-04' },
      { keys: 'Go, golang' },
      {},
      { keys: Array.from({ length: FACT_KEYS }, (_, i) => `k${i}`).join(', ') },
    ])
    expect(placeFacts(parsed.facts.slice(0, 1), parsed.tags, new Map(), 'p', 's')).toEqual([
      {
        target: { user: true },
        items: [{ text: '用户下个月搬到杭州', source: 'auto', sessionId: 's', keys: '杭州, Hangzhou, 搬家, 2025-04' }],
      },
    ])
    // The request asks for them in the same call.
    expect(EXTRACTION_SYSTEM).toContain('｜检索词：')
  })

  it('shows known facts with handles and layers, and places facts by tag; an unknown handle keeps the fact as new', () => {
    const request = extractionRequest(EXCERPT, [
      { text: '用户住在北京', layer: 'user', id: 'u1' },
      { text: '用户喜欢乌龙茶', layer: 'profile', id: 'p1' },
      { text: '本对话要写周报', layer: 'conversation', id: 'c1' },
    ])
    expect(request.prompt).toContain(
      '- [m1][用户] 用户住在北京\n- [m2][配置] 用户喜欢乌龙茶\n- [m3][本对话] 本对话要写周报',
    )
    const parsed = parseFacts(
      '- [替换 m1] 用户搬到了上海\n- [替换 m3] 本对话改写月报\n- [替换 m9] 用户改喝红茶\n- [用户] 用户养猫',
      { known: [], max: 10, framing: request.framing },
    )
    expect(placeFacts(parsed.facts, parsed.tags, request.handles, 'p-main', 's-1')).toEqual([
      {
        target: { user: true },
        items: [
          { text: '用户搬到了上海', source: 'auto', sessionId: 's-1', replaces: 'u1' },
          { text: '用户养猫', source: 'auto', sessionId: 's-1' },
        ],
      },
      {
        target: { sessionId: 's-1' },
        items: [{ text: '本对话改写月报', source: 'auto', sessionId: 's-1', replaces: 'c1' }],
      },
      { target: { profileId: 'p-main' }, items: [{ text: '用户改喝红茶', source: 'auto', sessionId: 's-1' }] },
    ])
  })
})

const SUMMARY = '用户是后端工程师'
const ITEMS = ['用户住在杭州', '用户喜欢乌龙茶', '用户在写 Rust', '用户在写 Rust。', '用户希望回答先给结论']

function compress(answer: (prompt: string, nonce: string) => string): Compressed | string {
  const request = compressionRequest(SUMMARY, ITEMS)
  const parsed = parseCompressed(answer(request.prompt, request.framing[0]!), request.framing)
  return parsed.ok ? parsed.memory : parsed.failure
}

const S = '用户是杭州的后端工程师，写 Rust，喜欢乌龙茶。'

const COMPRESSION: Array<[string, Answer, Compressed | 'echo' | 'unusable']> = [
  ['the asked shape', `摘要：${S}\n- 用户希望回答先给结论`, { summary: S, items: ['用户希望回答先给结论'] }],
  [
    'a preface',
    `以下是压缩后的记忆：\n\n摘要：${S}\n- 用户希望回答先给结论`,
    { summary: S, items: ['用户希望回答先给结论'] },
  ],
  ['a bold summary label', `**摘要**：${S}\n- 用户希望回答先给结论`, { summary: S, items: ['用户希望回答先给结论'] }],
  [
    'a bold summary label with the colon inside',
    `**摘要：** ${S}\n- 用户希望回答先给结论`,
    { summary: S, items: ['用户希望回答先给结论'] },
  ],
  ['the summary as a bullet', `- 摘要：${S}\n- 用户希望回答先给结论`, { summary: S, items: ['用户希望回答先给结论'] }],
  [
    'a code fence around it',
    `\`\`\`\n摘要：${S}\n- 用户希望回答先给结论\n\`\`\``,
    { summary: S, items: ['用户希望回答先给结论'] },
  ],
  [
    'a trailing note',
    `摘要：${S}\n- 用户希望回答先给结论\n\n注：已合并重复条目。`,
    { summary: S, items: ['用户希望回答先给结论'] },
  ],
  [
    'numbered items',
    `摘要：${S}\n1. 用户住在杭州\n2. 用户希望回答先给结论`,
    { summary: S, items: ['用户住在杭州', '用户希望回答先给结论'] },
  ],
  ['a repeated item', `摘要：${S}\n- 用户住在杭州\n- 用户住在杭州。`, { summary: S, items: ['用户住在杭州'] }],
  ['a "nothing" item', `摘要：${S}\n- 无`, { summary: S, items: [] }],
  [
    'an empty summary with items',
    '摘要：（无）\n- 用户住在杭州\n- 用户喜欢乌龙茶',
    { summary: '', items: ['用户住在杭州', '用户喜欢乌龙茶'] },
  ],
  ['a secret item', `摘要：${S}\n- 用户的令牌是 ghp_abcdefghijklmnopqrstuvwxyz0123`, { summary: S, items: [] }],
  [
    'en',
    'Summary: The user is a backend engineer in Hangzhou.\n- Prefers conclusions first\n\nThese are all the facts.',
    { summary: 'The user is a backend engineer in Hangzhou.', items: ['Prefers conclusions first'] },
  ],
  [
    'mixed languages',
    '摘要：用户是 backend engineer，住在杭州。\n- Prefers 乌龙茶',
    { summary: '用户是 backend engineer，住在杭州。', items: ['Prefers 乌龙茶'] },
  ],
  ['the whole request echoed', (prompt) => prompt, 'echo'],
  ["the old offline model's echo", (prompt) => `（离线模型）已收到：${prompt.slice(0, 200)}`, 'echo'],
  [
    'the memory block echoed back',
    (_p, nonce) => `<<<记忆 ${nonce}>>>\n摘要：${SUMMARY}\n- 用户住在杭州\n<<<记忆结束 ${nonce}>>>`,
    'echo',
  ],
  ['items with no summary line', '- 用户住在杭州\n- 用户喜欢乌龙茶', 'unusable'],
  ['two summary lines', `摘要：${S}\n摘要：另一个摘要\n- 用户住在杭州`, 'unusable'],
  [
    'a fact written as prose between the items',
    `摘要：${S}\n- 用户住在杭州\n用户喜欢乌龙茶。\n- 用户希望回答先给结论`,
    'unusable',
  ],
  ['an item before the summary', `- 用户住在杭州\n摘要：${S}`, 'unusable'],
  ['JSON', `\`\`\`json\n{"summary": "${S}", "items": []}\n\`\`\``, 'unusable'],
  ['only "nothing"', '摘要：（无）', 'unusable'],
  ['an over-long item', `摘要：${S}\n- ${'很长'.repeat(501)}`, 'unusable'],
]

describe('compression answers', () => {
  it('the table covers at least 20 answers', () => {
    expect(COMPRESSION.length).toBeGreaterThanOrEqual(20)
  })

  it.each(COMPRESSION)('%s', (_name, answer, expected) => {
    expect(compress(typeof answer === 'string' ? () => answer : answer)).toEqual(expected)
  })

  it("frames the memory between markers that carry the request's own nonce", () => {
    const { prompt, framing } = compressionRequest(SUMMARY, ITEMS)
    const nonce = framing[0]!
    expect(prompt).toMatch(
      new RegExp(`<<<记忆 ${nonce}>>>\\n摘要：${SUMMARY}\\n- 用户住在杭州[\\s\\S]*\\n<<<记忆结束 ${nonce}>>>`),
    )
    expect(compressionRequest(SUMMARY, ITEMS).framing[0]).not.toBe(nonce)
  })
})
