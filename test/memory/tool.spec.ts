import { dirname } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { installMemoryTool, MEMORY_TOOL } from '../../lib/memory/tool.ts'
import { LIMITS } from '../../lib/state/model.ts'
import { boot, type Harness } from '../support/memory-harness.ts'
import { toolResult } from '../support/spine.ts'
import type { MemoryToolStatus } from '../../lib/shared/diagnostics.ts'

// A commit that fails the way the OS words a file it cannot write (naming the file) while `denied.on` is set.
const denied = vi.hoisted(() => ({ on: false }))
vi.mock('../../lib/store/db/sqlite.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/store/db/sqlite.ts')>()
  class DatabaseSync extends real.DatabaseSync {
    override exec(sql: string): void {
      if (sql === 'COMMIT' && denied.on)
        throw Object.assign(new Error(`EACCES: permission denied, open '${String(this.location())}-wal'`), {
          code: 'EACCES',
        })
      return super.exec(sql)
    }
  }
  return { ...real, DatabaseSync }
})

let h: Harness
let tool: { status(): MemoryToolStatus }
let unload: () => Promise<void>

beforeEach(async () => {
  h = await boot()
  const fiber = await h.ctx.plugin({
    name: 'ap-memory-tool',
    apply: (ctx: Context) => {
      tool = installMemoryTool(ctx, h.store, h.config, h.log)
    },
  })
  unload = () => fiber.dispose()
})
afterEach(async () => {
  denied.on = false
  await h.close()
})

/** One turn in which the model calls memory_save with `args`; returns what the tool answered. */
async function save(agent: Agent, args: unknown): Promise<string> {
  h.model.script('turn', { tool: MEMORY_TOOL, args }, { text: '好的' })
  const before = h.model.of('turn').length
  await h.turn(agent, '请记住')
  const followUp = h.model.of('turn')[before + 1]
  expect(followUp, 'the model got the tool result back').toBeDefined()
  return toolResult(followUp!.options)
}

function active() {
  return h.store.state.profiles.find((p) => p.id === h.store.state.activeId)!
}

describe('memory_save', () => {
  it('is offered to a conversation, and stores into the profile that conversation uses, saying where', async () => {
    const agent = await h.conversation('s-offer')
    const said = await save(agent, { facts: ['用户偏好先给结论再给理由'] })
    const first = h.model.of('turn')[0]!
    expect(first.options.tools?.map((t) => t.name)).toContain(MEMORY_TOOL)
    expect(first.options.tools?.find((t) => t.name === MEMORY_TOOL)?.description).toMatch(/密码.*临时状态.*工具输出/s)
    const item = active().memory.items.find((it) => it.text === '用户偏好先给结论再给理由')
    expect(item).toMatchObject({ source: 'tool', sessionId: 's-offer' })
    expect(said).toContain(`已记住，存入「${active().name}」的长期记忆`)
    expect(said).toContain('用户偏好先给结论再给理由')
    expect(tool.status()).toMatchObject({ available: true, saved: 1, refused: 0 })
  })

  it('follows a profile switch made in the middle of the conversation', async () => {
    const agent = await h.conversation('s-switch')
    const original = active()
    await save(agent, { facts: ['事实一：用户住在杭州'] })
    const { profile: other } = (await h.store.command({
      op: 'profile.create',
      profile: { name: '翻译官', role: '翻译' },
    })) as unknown as { profile: { id: string } }
    await h.store.command({ op: 'profile.activate', id: original.id })
    await h.store.command({ op: 'session.set', sessionId: 's-switch', patch: { profileId: other.id } })
    const said = await save(agent, { facts: ['事实二：用户在学德语'] })
    const texts = (id: string) => h.store.state.profiles.find((p) => p.id === id)!.memory.items.map((it) => it.text)
    expect(texts(other.id)).toContain('事实二：用户在学德语')
    expect(texts(original.id)).not.toContain('事实二：用户在学德语')
    expect(texts(original.id)).toContain('事实一：用户住在杭州')
    expect(said).toContain('「翻译官」')
  })

  it('saves into the conversation only when asked to', async () => {
    const agent = await h.conversation('s-conv')
    const said = await save(agent, { facts: ['这次对话讨论的是发票模块'], scope: 'conversation' })
    expect(h.store.state.sessions.get('s-conv')?.memories.map((m) => m.text)).toEqual(['这次对话讨论的是发票模块'])
    expect(active().memory.items.some((it) => it.text === '这次对话讨论的是发票模块')).toBe(false)
    expect(said).toContain('本对话的记忆')
  })

  it('saves into the user layer with scope user, and its description says when to use each scope', async () => {
    const agent = await h.conversation('s-user')
    const said = await save(agent, { facts: ['用户叫王小明'], scope: 'user' })
    expect(h.store.state.user?.items).toMatchObject([{ text: '用户叫王小明', source: 'tool', sessionId: 's-user' }])
    expect(active().memory.items.some((it) => it.text === '用户叫王小明')).toBe(false)
    expect(said).toContain('关于用户的记忆（所有配置共用）')
    const definition = h.model.of('turn')[0]!.options.tools?.find((t) => t.name === MEMORY_TOOL)
    expect(definition?.description).toMatch(/"user"：关于用户本人.*"profile"（默认）.*"conversation"：只和本对话有关/s)
  })

  it('keeps the search keys written after a fact apart from it, never a secret among them', async () => {
    const agent = await h.conversation('s-keys')
    const said = await save(agent, {
      facts: ['用户在杭州的一家书店上班 ｜检索词：杭州, Hangzhou, bookstore, sk-abcdefghijklmnop1234'],
      scope: 'user',
    })
    expect(h.store.state.user?.items).toMatchObject([
      { text: '用户在杭州的一家书店上班', keys: '杭州, Hangzhou, bookstore', source: 'tool' },
    ])
    expect(said).toContain('用户在杭州的一家书店上班')
    expect(said).not.toContain('检索词')
    const definition = h.model.of('turn')[0]!.options.tools?.find((t) => t.name === MEMORY_TOOL)
    expect(definition?.description).toContain('｜检索词：')
  })

  it('replaces a fact the conversation sees, named by its text, in the layer it lived in; an unknown one keeps both', async () => {
    const agent = await h.conversation('s-replace')
    await h.store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户住在北京' }] })
    const said = await save(agent, { facts: ['用户搬到了上海'], replaces: '用户住在北京。' })
    expect(h.store.state.user?.items.map((it) => it.text)).toEqual(['用户搬到了上海'])
    expect(said).toContain('它取代了这条旧记忆')
    const again = await save(agent, { facts: ['用户换了新工作'], replaces: '用户在银行上班' })
    expect(active().memory.items.map((it) => it.text)).toContain('用户换了新工作')
    expect(h.store.state.user?.items.map((it) => it.text)).toEqual(['用户搬到了上海'])
    expect(again).toContain('没有找到要取代的')
  })

  it("never replaces another profile's fact or another conversation's", async () => {
    const agent = await h.conversation('s-mine')
    const other = h.store.state.profiles.find((p) => p.id !== active().id)!
    await h.store.command({ op: 'memory.add', target: { profileId: other.id }, items: [{ text: '用户喜欢爵士乐' }] })
    await h.store.command({
      op: 'memory.add',
      target: { sessionId: 's-elsewhere' },
      items: [{ text: '用户喜欢爵士乐' }],
    })
    await save(agent, { facts: ['用户改听古典乐'], replaces: '用户喜欢爵士乐' })
    expect(h.store.state.profiles.find((p) => p.id === other.id)!.memory.items.map((it) => it.text)).toEqual([
      '用户喜欢爵士乐',
    ])
    expect(h.store.state.sessions.get('s-elsewhere')?.memories.map((it) => it.text)).toEqual(['用户喜欢爵士乐'])
    expect(active().memory.items.map((it) => it.text)).toContain('用户改听古典乐')
  })

  it('does not store the same fact twice, and says so', async () => {
    const agent = await h.conversation('s-dup')
    await save(agent, { facts: ['用户喜欢 Rust'] })
    const count = active().memory.items.length
    const said = await save(agent, { facts: ['用户喜欢 RUST。'] })
    expect(active().memory.items.length).toBe(count)
    expect(said).toContain('没有重复保存')
    expect(tool.status()).toMatchObject({ saved: 1, duplicates: 1 })
  })

  it.each([
    ['empty list', { facts: [] }, 'facts 不能为空'],
    ['blank fact', { facts: ['  '] }, 'facts[0] 是空的'],
    ['over the length limit', { facts: ['长'.repeat(LIMITS.memoryItem + 1)] }, `超过 ${LIMITS.memoryItem} 字的上限`],
    ['a line break', { facts: ['第一行\n第二行'] }, 'facts[0] 含换行或控制字符'],
    ['too many facts', { facts: ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'] }, '超过每次 5 条的上限'],
    ['a secret', { facts: ['用户的 API key 是 sk-abcdefghijklmnopqrstuvwx'] }, '机密绝不能存入记忆'],
    ['a bad scope', { facts: ['用户喜欢猫'], scope: 'everywhere' }, 'scope 只能是'],
  ])('refuses %s with a message the model can act on, storing nothing', async (_name, args, message) => {
    const agent = await h.conversation('s-bad')
    const before = JSON.stringify(h.store.state)
    const said = await save(agent, args)
    expect(said).toMatch(/^\[error\] /)
    expect(said).toContain(message)
    expect(JSON.stringify(h.store.state)).toBe(before)
    expect(tool.status().refused).toBe(1)
  })

  it('says "数据目录" when the data cannot be saved, never the path of the user\'s data', async () => {
    const agent = await h.conversation('s-denied')
    const before = JSON.stringify(h.store.state)
    denied.on = true
    const said = await save(agent, { facts: ['用户喜欢猫'] })
    denied.on = false
    expect(said).toMatch(/^\[error\] .*没有保存：/)
    expect(said).toContain("'数据目录/profiles.sqlite-wal'")
    expect(said).not.toContain(dirname(h.store.file))
    expect(JSON.stringify(h.store.state)).toBe(before)
  })

  it('refuses when the profile in effect has memory turned off', async () => {
    const agent = await h.conversation('s-off')
    await h.store.command({ op: 'profile.update', id: active().id, patch: { memoryEnabled: false } })
    const before = JSON.stringify(h.store.state)
    const said = await save(agent, { facts: ['用户喜欢猫'] })
    expect(said).toMatch(/^\[error\] .*关闭了长期记忆/)
    expect(JSON.stringify(h.store.state)).toBe(before)
  })

  it('is not offered to subagents, and is withdrawn when the plugin unloads', async () => {
    await h.conversation('s-parent')
    const child = await h.conversation('s-child', { subagentOf: 's-parent' })
    await h.turn(child, '子任务')
    expect(
      h.model
        .of('turn')
        .at(-1)!
        .options.tools?.map((t) => t.name) ?? [],
    ).not.toContain(MEMORY_TOOL)
    expect(tool.status().offeredIn).toBe(1)
    await unload()
    const agent = await h.conversation('s-after')
    await h.turn(agent, '你好')
    expect(
      h.model
        .of('turn')
        .at(-1)!
        .options.tools?.map((t) => t.name) ?? [],
    ).not.toContain(MEMORY_TOOL)
  })
})
