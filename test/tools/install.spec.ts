/**
 * Tool profiles in process on the real dsh spine (llm, session, system-prompt, tools, agent, agent-loop): what the
 * model request carries per conversation, refusal of hidden tools at execution, switching, overrides, subagents, and
 * that `full` is indistinguishable from not installing the part. The host tools are hand-written definitions under the
 * names the real host ships; restriction, guards and the loop are the host's own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import { installMemoryTool } from '../../lib/memory/tool.ts'
import type { ToolSettings } from '../../lib/state/model.ts'
import { installToolProfiles } from '../../lib/tools/install.ts'
import { requestBytes, wireEntry } from '../../lib/shared/tool-profiles.ts'
import { boot, type Harness } from '../support/memory-harness.ts'
import { hostTool, toolResult } from '../support/spine.ts'
import type { ToolProfileStatus } from '../../lib/shared/diagnostics.ts'

const HOST_TOOLS = [
  'read',
  'grep',
  'write',
  'edit',
  'bash',
  'ask_user_question',
  'subagent',
  'web_search',
  'mcp__tracker__create_issue',
]

let h: Harness
let ran: string[]
let part: { status(): ToolProfileStatus } | undefined
let unloadPart: (() => Promise<void>) | undefined

async function installPart(): Promise<void> {
  const fiber = await h.ctx.plugin({
    name: 'ap-tool-profiles',
    apply: (ctx: Context) => {
      part = installToolProfiles(ctx, h.store, h.config, h.log)
    },
  })
  unloadPart = () => fiber.dispose()
}

beforeEach(async () => {
  ran = []
  part = undefined
  h = await boot()
  for (const name of HOST_TOOLS) h.ctx.tools.register(hostTool(name, ran))
  await h.ctx.plugin({
    name: 'ap-memory-tool',
    apply: (ctx: Context) => {
      installMemoryTool(ctx, h.store, h.config, h.log)
    },
  })
})
afterEach(async () => {
  await h.close()
})

/** Create a profile with these tool settings; returns its id (it becomes the global default). */
async function profileWith(
  tools: ToolSettings | undefined,
  name = `P${Math.random().toString(36).slice(2, 7)}`,
): Promise<string> {
  const reply = await h.store.command({
    op: 'profile.create',
    profile: { name, role: '测试', ...(tools ? { tools } : {}) },
  })
  return (reply as unknown as { profile: { id: string } }).profile.id
}
const pin = (sessionId: string, profileId: string) =>
  h.store.command({ op: 'session.set', sessionId, patch: { profileId } })
const names = (o: GenerateOptions) => (o.tools ?? []).map((t) => t.name).sort()
const lastTurn = () => h.model.of('turn').at(-1)!.options

async function say(agent: Agent, text = '你好'): Promise<GenerateOptions> {
  const before = h.model.of('turn').length
  await h.turn(agent, text)
  return h.model.of('turn')[before]!.options
}

describe('a conversation sees only what its tool profile allows', () => {
  it('read-only: no writer, shell or subagent schema in the request, while a full conversation beside it keeps all', async () => {
    await installPart()
    const full = await h.conversation('s-full')
    const ro = await profileWith({ profile: 'read-only', add: [], remove: [] })
    const narrow = await h.conversation('s-ro')
    await pin('s-ro', ro)
    await h.store.command({ op: 'profile.activate', id: 'general' })
    expect(names(await say(narrow))).toEqual(['ask_user_question', 'grep', 'memory_save', 'read', 'web_search'])
    expect(names(await say(full))).toEqual([...HOST_TOOLS, 'memory_save'].sort())
    expect(part!.status().narrowed).toBe(1)
  })

  it('worker: no asking and no subagents; an unclassified tool stays', async () => {
    await installPart()
    await profileWith({ profile: 'worker', add: [], remove: [] })
    const agent = await h.conversation('s-worker')
    expect(names(await say(agent))).toEqual([
      'bash',
      'edit',
      'grep',
      'mcp__tracker__create_issue',
      'memory_save',
      'read',
      'web_search',
      'write',
    ])
  })

  it('overrides: add, remove, remove winning, and custom starting from nothing', async () => {
    await installPart()
    await profileWith({ profile: 'read-only', add: ['bash', 'write', 'no_such_tool'], remove: ['grep', 'write'] })
    const a = await h.conversation('s-over')
    expect(names(await say(a))).toEqual(['ask_user_question', 'bash', 'memory_save', 'read', 'web_search'])
    await profileWith({ profile: 'custom', add: ['read'], remove: [] })
    const b = await h.conversation('s-custom')
    expect(names(await say(b))).toEqual(['memory_save', 'read'])
    expect(part!.status().kept).toEqual([])
    // memory_save is registered in the conversation's own scope, which the host does not let a restriction touch:
    // removing it by name leaves it there, and the status says so.
    await profileWith({ profile: 'custom', add: ['read'], remove: ['memory_save'] })
    const c = await h.conversation('s-custom-2')
    expect(names(await say(c))).toEqual(['memory_save', 'read'])
    expect(part!.status().kept).toEqual(['memory_save'])
  })

  it('full leaves the request byte-identical to running without the part', async () => {
    const without = await say(await h.conversation('s-without'))
    await installPart()
    await profileWith({ profile: 'full', add: ['read'], remove: ['bash'] })
    const withPart = await say(await h.conversation('s-with'))
    expect(JSON.stringify(withPart.tools)).toBe(JSON.stringify(without.tools))
    expect(withPart.system).toBe(without.system)
  })
})

describe('a call outside the set is refused at execution', () => {
  it('a hidden tool the model calls anyway does not run; the model reads why and what it can use, and the turn goes on', async () => {
    await installPart()
    await profileWith({ profile: 'read-only', add: [], remove: [] }, '审阅员')
    const agent = await h.conversation('s-guard')
    h.model.script('turn', { tool: 'write', args: { path: 'x.txt' } }, { text: '那我只读。' })
    await say(agent, '写个文件')
    expect(ran).not.toContain('write')
    const said = toolResult(lastTurn())
    expect(said).toMatch(/^\[error\] Error: 工具「write」不在当前智能体配置「审阅员」的工具档（只读）允许的范围内/)
    expect(said).toContain('可以使用的工具：')
    expect(said).toContain('read')
    expect(said).not.toMatch(/可以使用的工具：[^。]*bash/)
    expect(part!.status()).toMatchObject({ refused: 1, lastRefusal: { tool: 'write' } })
    // The turn continued to the model's answer and the next turn works as usual.
    h.model.script('turn', { tool: 'read', args: { path: 'x.txt' } }, { text: '读完了' })
    await say(agent, '读一下')
    expect(ran).toEqual(['read'])
    expect(toolResult(lastTurn())).toBe('read done')
  })

  it('a tool the model was shown before a switch in the middle of its turn is refused once the switch lands', async () => {
    await installPart()
    const ro = await profileWith({ profile: 'read-only', add: [], remove: [] }, '审阅员')
    await h.store.command({ op: 'profile.activate', id: 'general' })
    const agent = await h.conversation('s-midturn')
    // A host tool whose run switches this conversation to the read-only profile (as the user would from the page).
    h.ctx.tools.register({
      ...hostTool('switch_now', ran),
      execute: async () => {
        await pin('s-midturn', ro)
        return { ok: true }
      },
    })
    h.model.script('turn', { tool: 'switch_now', args: {} }, { tool: 'bash', args: { command: 'ls' } }, { text: '好' })
    const first = await say(agent, '开始')
    expect(names(first)).toContain('bash')
    expect(ran).not.toContain('bash')
    expect(toolResult(lastTurn())).toContain('工具「bash」不在当前智能体配置「审阅员」的工具档（只读）允许的范围内')
  })
})

describe('switching', () => {
  it('changes the tool set from the next request, both ways', async () => {
    await installPart()
    const agent = await h.conversation('s-switch')
    const before = await say(agent)
    const ro = await profileWith({ profile: 'read-only', add: [], remove: [] })
    await h.store.command({ op: 'profile.activate', id: 'general' })
    await pin('s-switch', ro)
    expect(names(await say(agent))).not.toContain('write')
    await h.store.command({ op: 'session.clear', sessionId: 's-switch' })
    const after = await say(agent)
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools))
    expect(part!.status().narrowed).toBe(0)
  })

  it('editing the profile itself takes effect from the next request', async () => {
    await installPart()
    const id = await profileWith({ profile: 'read-only', add: [], remove: [] })
    const agent = await h.conversation('s-edit')
    expect(names(await say(agent))).not.toContain('bash')
    await h.store.command({
      op: 'profile.update',
      id,
      patch: { tools: { profile: 'read-only', add: ['bash'], remove: [] } },
    })
    expect(names(await say(agent))).toContain('bash')
  })

  it('a tool the host registers later is judged too', async () => {
    await installPart()
    await profileWith({ profile: 'read-only', add: [], remove: [] })
    const agent = await h.conversation('s-late')
    await say(agent)
    h.ctx.tools.register(hostTool('cordis_run', ran))
    h.ctx.tools.register(hostTool('cordis_inspect_self', ran))
    const next = names(await say(agent))
    expect(next).not.toContain('cordis_run')
    expect(next).toContain('cordis_inspect_self')
  })

  it("unloading the part gives every conversation the host's tools back", async () => {
    await installPart()
    await profileWith({ profile: 'custom', add: [], remove: [] })
    const agent = await h.conversation('s-unload')
    expect(names(await say(agent))).toEqual(['memory_save'])
    await unloadPart!()
    expect(names(await say(agent))).toEqual([...HOST_TOOLS, 'memory_save'].sort())
  })
})

describe('subagents and measurement', () => {
  it('a subagent follows the tool profile of the conversation that started it', async () => {
    await installPart()
    const ro = await profileWith({ profile: 'read-only', add: [], remove: [] })
    await h.store.command({ op: 'profile.activate', id: 'general' })
    await h.conversation('s-parent')
    await pin('s-parent', ro)
    const child = await h.conversation('s-child', { subagentOf: 's-parent' })
    expect(names(await say(child))).toEqual(['ask_user_question', 'grep', 'read', 'web_search'])
    h.model.script('turn', { tool: 'bash', args: {} }, { text: '好' })
    await say(child, '跑')
    expect(ran).not.toContain('bash')
  })

  it("measures each tool so the page can tell a request's tool-schema bytes under every profile", async () => {
    await installPart()
    const agent = await h.conversation('s-measure')
    const request = await say(agent)
    const { catalogue } = part!.status()
    expect(catalogue.map((c) => c.source)).toEqual(['host'])
    const sizes = catalogue[0]!.tools
    expect(sizes.map((s) => s.name).sort()).toEqual(names(request))
    const wire = `[${(request.tools ?? []).map(wireEntry).join(',')}]`
    expect(requestBytes(sizes, names(request))).toBe(Buffer.byteLength(wire))
  })
})
