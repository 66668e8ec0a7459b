import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { installSearchTool, SEARCH_RESULTS, SEARCH_TOOL } from '../../lib/memory/search-tool.ts'
import { boot, type Harness } from '../support/memory-harness.ts'
import { toolResult } from '../support/spine.ts'

let h: Harness
let tool: { searches(): number }

beforeEach(async () => {
  h = await boot()
  await h.ctx.plugin({
    name: 'ap-search-tool',
    apply: (ctx: Context) => {
      tool = installSearchTool(ctx, h.store, h.log)
    },
  })
})
afterEach(async () => {
  await h.close()
})

/** One turn in which the model calls memory_search with `args`; returns what the tool answered. */
async function search(agent: Agent, args: unknown): Promise<string> {
  h.model.script('turn', { tool: SEARCH_TOOL, args }, { text: '好的' })
  const before = h.model.of('turn').length
  await h.turn(agent, '查一下')
  return toolResult(h.model.of('turn')[before + 1]!.options)
}

/** The active profile holding 5,000 facts, one of them (long ago, archived) the one the test looks for. */
async function fiveThousand(): Promise<string> {
  const id = h.store.state.activeId
  const items = Array.from({ length: 5_000 }, (_, i) => ({
    id: `n${i}`,
    text: `第${i}条：${['周会', '预算', '代码评审', '出差报销', '招聘面试'][i % 5]}相关的记录，编号${i}`,
    source: 'auto' as const,
    at: Date.UTC(2024, 0, 1) + i * 3_600_000,
    ...(i < 4_000 ? { archived: true as const } : {}),
  }))
  items[123] = {
    id: 'dentist',
    text: '用户的牙医是城西口腔诊所的王医生，每半年洗一次牙',
    source: 'auto',
    at: Date.UTC(2024, 2, 3, 12),
    archived: true,
  }
  await h.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
  return id
}

describe('memory_search', () => {
  it('finds the one relevant fact among 5,000, archived, with its id, layer and date; says when to use it', async () => {
    await fiveThousand()
    const agent = await h.conversation('s-search')
    const said = await search(agent, { query: '我的牙医叫什么' })
    expect(said.split('\n')[1]).toMatch(
      /^- \[dentist\] （2024-03-03 记下 · profile · 已归档）用户的牙医是城西口腔诊所的王医生/,
    )
    const offered = h.model.of('turn')[0]!.options.tools?.find((t) => t.name === SEARCH_TOOL)
    expect(offered?.description).toMatch(/何时使用/)
    expect(tool.searches()).toBe(1)
  })

  it("stays in the caller's scope, never returns a suggestion, and is bounded", async () => {
    const owner = await fiveThousand()
    const other = (await h.store.command({ op: 'profile.create', profile: { name: '别的', role: '助手' } }))
      .profile as { id: string }
    await h.store.command({
      op: 'memory.add',
      target: { profileId: other.id },
      items: [{ text: '别的配置里：用户的牙医姓李' }],
    })
    await h.store.command({ op: 'profile.update', id: owner, patch: { memoryMode: 'ask' } })
    await h.store.command({ op: 'profile.activate', id: owner })
    await h.store.command({
      op: 'memory.add',
      target: { profileId: owner },
      items: [{ text: '待确认：用户换了牙医', source: 'tool' }],
    })
    const agent = await h.conversation('s-scope')
    const said = await search(agent, { query: '牙医', limit: SEARCH_RESULTS.max })
    expect(said).toContain('王医生')
    expect(said).not.toContain('姓李')
    expect(said).not.toContain('待确认')
    const many = await search(agent, { query: '预算 记录', limit: SEARCH_RESULTS.max })
    expect(many.split('\n').filter((l) => l.startsWith('- ['))).toHaveLength(SEARCH_RESULTS.max)
    expect(Buffer.byteLength(many)).toBeLessThan(8_000)
    expect(await search(agent, { query: '牙医', limit: 500 })).toMatch(/^\[error\].*limit 必须是 1 到 20/)
    expect(await search(agent, { query: '' })).toMatch(/^\[error\].*query 不能为空/)
  })
})
