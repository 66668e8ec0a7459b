/**
 * Tool profiles through the real `dsh` (the pinned host, this plugin installed, offline model), asserting on the tool
 * schemas the model actually received: a read-only conversation carries no writer, shell or subagent schema (native and
 * Code Mode presets), a scripted call to a hidden tool is refused and the conversation goes on, overrides and switching
 * behave as specified, the measured sizes match the wire, and a `full` profile's request carries exactly the tools of
 * a run without the plugin (headless, plus only the plugin's own memory tools).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolSettings } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { requestBytes } from '../../lib/shared/tool-profiles.ts'
import { makeHome, runHeadless } from '../support/dsh.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'
import type { ToolProfileStatus } from '../../lib/shared/diagnostics.ts'

/** Tools that write files, run commands or code, or start and steer subagents, under the names the host ships. */
const FORBIDDEN = [
  'write',
  'edit',
  'str_replace_editor',
  'bash',
  'pwsh',
  'job_kill',
  'job_output',
  'job_list',
  'cordis_run',
  'cordis_define',
  'subagent',
  'subagent_fork',
  'send_message',
  'interrupt_agent',
  'list_agents',
  'workflow',
  'ralph',
]

let model: ModelServer
let host: Host

const names = (r: RecordedRequest) => r.tools.map((t) => t.function.name)
const toolsJson = (r: RecordedRequest) => JSON.stringify(r.body.tools ?? [])

/** A profile with these tool settings, left inactive (the global default stays the factory one). */
async function profileWith(name: string, tools: ToolSettings): Promise<string> {
  const { profile } = await host.command<{ profile: { id: string } }>({
    op: 'profile.create',
    profile: { name, role: `${name}的角色`, tools },
  })
  await host.command({ op: 'profile.activate', id: 'general' })
  return profile.id
}

/** A new conversation, pinned to `profileId` when given. */
async function conversation(profileId?: string, agentPreset?: string): Promise<string> {
  const sessionId = await host.conversation(agentPreset)
  if (profileId) await host.command({ op: 'session.set', sessionId, patch: { profileId } })
  return sessionId
}

async function status(): Promise<ToolProfileStatus> {
  const { meta } = await host.read<{ meta: { toolProfiles: ToolProfileStatus } }>()
  return meta.toolProfiles
}

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r): Reply | undefined => {
    if (isTitleRequest(r)) return undefined
    const last = r.messages.at(-1)
    if (last?.role === 'tool') return { text: `E2E 看到了工具结果：${textOf(last).slice(0, 60)}` }
    const asked = r.lastUser
    if (asked.includes('CALL-BASH'))
      return {
        toolCalls: [{ name: 'bash', arguments: { command: 'echo e2e > pwned.txt', description: 'write a file' } }],
      }
    return { text: `已收到：${asked}` }
  })
  host = await bootHost(model)
})

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

describe('tool profiles in the real dsh web', () => {
  it('a read-only conversation carries no writer, shell or subagent schema; a full one beside it carries them all', async () => {
    const ro = await profileWith('只读审阅', { profile: 'read-only', add: [], remove: [] })
    const [narrow] = await host.say(await conversation(ro), 'E2E-RO 看看代码')
    const [full] = await host.say(await conversation(), 'E2E-FULL 看看代码')
    for (const name of FORBIDDEN) expect(names(narrow!), name).not.toContain(name)
    expect(names(narrow!)).toEqual(expect.arrayContaining(['read', 'grep', 'glob', 'web_search', 'memory_save']))
    expect(names(full!)).toEqual(expect.arrayContaining(['write', 'edit', 'bash', 'subagent', 'read', 'memory_save']))
    expect(Buffer.byteLength(toolsJson(narrow!))).toBeLessThan(Buffer.byteLength(toolsJson(full!)) / 2)
  })

  it('in a Code Mode conversation the program SDK offers only the read-only tools', async () => {
    const ro = await profileWith('只读代码模式', { profile: 'read-only', add: [], remove: [] })
    const [request] = await host.say(await conversation(ro, 'code'), 'E2E-CODE 看看代码')
    expect(names(request!)).toEqual(['run_code'])
    const sdk = request!.system.slice(request!.system.indexOf('interface ToolArgsMap'))
    expect(sdk).toMatch(/\n {2}read: \{/)
    for (const name of ['bash', 'write', 'edit', 'subagent'])
      expect(sdk, name).not.toMatch(new RegExp(`\\n {2}${name}: \\{`))
  })

  it('a scripted call to a hidden tool is refused with a reason the model can act on, and the conversation goes on', async () => {
    const ro = await profileWith('只读守卫', { profile: 'read-only', add: [], remove: [] })
    const sessionId = await conversation(ro)
    const [, followUp] = await host.say(sessionId, 'E2E-CALL-BASH 写个文件', 2)
    const result = followUp!.messages
      .filter((m) => m.role === 'tool')
      .map(textOf)
      .join('\n')
    expect(result).toContain('工具「bash」不在当前智能体配置「只读守卫」的工具档（只读）允许的范围内')
    expect(result).toContain('可以使用的工具：')
    expect(existsSync(join(host.home.workspace, 'pwned.txt'))).toBe(false)
    const [next] = await host.say(sessionId, 'E2E-AFTER 还在吗')
    expect(next!.messages.filter((m) => m.role === 'assistant').map(textOf)).toContain(
      `E2E 看到了工具结果：${result.slice(0, 60)}`,
    )
    expect(names(next!)).not.toContain('bash')
    const s = await status()
    expect(s.refused).toBeGreaterThanOrEqual(1)
    expect(s.lastRefusal?.tool).toBe('bash')
  })

  it('overrides apply after the profile, remove winning; worker drops asking and subagents', async () => {
    const over = await profileWith('只读加命令', {
      profile: 'read-only',
      add: ['bash', 'write', 'no_such_tool'],
      remove: ['grep', 'write'],
    })
    const [a] = await host.say(await conversation(over), 'E2E-OVER 试试')
    expect(names(a!)).toContain('bash')
    expect(names(a!)).toContain('read')
    expect(names(a!)).not.toContain('grep')
    expect(names(a!)).not.toContain('write')
    const worker = await profileWith('执行者', { profile: 'worker', add: [], remove: [] })
    const [b] = await host.say(await conversation(worker), 'E2E-WORKER 干活')
    expect(names(b!)).toEqual(expect.arrayContaining(['bash', 'write', 'edit', 'read']))
    for (const name of ['ask_user_question', 'subagent', 'subagent_fork', 'workflow', 'ralph'])
      expect(names(b!), name).not.toContain(name)
    const custom = await profileWith('只有读', { profile: 'custom', add: ['read'], remove: [] })
    const [c] = await host.say(await conversation(custom), 'E2E-CUSTOM 读')
    expect(names(c!).sort()).toEqual(['memory_save', 'memory_search', 'read'])
  })

  it("switching the conversation's profile changes its tools from the next request, and back to full restores them exactly", async () => {
    const sessionId = await conversation()
    const [before] = await host.say(sessionId, 'E2E-SW1')
    const ro = await profileWith('切换只读', { profile: 'read-only', add: [], remove: [] })
    await host.command({ op: 'session.set', sessionId, patch: { profileId: ro } })
    const [during] = await host.say(sessionId, 'E2E-SW2')
    expect(names(during!)).not.toContain('write')
    await host.command({ op: 'session.clear', sessionId })
    const [after] = await host.say(sessionId, 'E2E-SW3')
    expect(toolsJson(after!)).toBe(toolsJson(before!))
  })

  it("a new conversation moved to another preset before its first message is narrowed on that preset's tools", async () => {
    const ro = await profileWith('只读换预设', { profile: 'read-only', add: [], remove: [] })
    const sessionId = await conversation(ro)
    await host.rpc('agentPreset.select', { sessionId, agentPreset: 'cordis' })
    const [request] = await host.say(sessionId, 'E2E-REPRESET 看看')
    expect(names(request!)).toContain('cordis_inspect_self')
    for (const name of ['cordis_run', 'cordis_define', 'cordis_stop', 'cordis_undefine', 'bash', 'write'])
      expect(names(request!), name).not.toContain(name)
  })

  it('the measured tool sizes add up to the bytes each request carried', async () => {
    const ro = await profileWith('只读测量', { profile: 'read-only', add: [], remove: [] })
    const [narrow] = await host.say(await conversation(ro), 'E2E-MEASURE-RO')
    const [full] = await host.say(await conversation(), 'E2E-MEASURE-FULL')
    const standard = (await status()).catalogue.find((c) => c.source === 'standard')
    expect(standard).toBeDefined()
    for (const r of [narrow!, full!])
      expect(requestBytes(standard!.tools, names(r))).toBe(Buffer.byteLength(toolsJson(r)))
  })
})

describe('the real dsh headless', () => {
  it('a read-only profile narrows the one-shot run too, and a hidden call is refused without failing the task', async () => {
    const alone = makeHome(['headless'])
    const headless = await startModelServer()
    try {
      const store = await openStore({ file: alone.dataFile })
      await store.command({
        op: 'profile.update',
        id: 'general',
        patch: { tools: { profile: 'read-only', add: [], remove: [] } },
      })
      await store.close()
      headless.respond((r) => {
        if (isTitleRequest(r)) return undefined
        if (r.messages.at(-1)?.role === 'tool') return { text: 'E2E 只能读，不写了。' }
        return { toolCalls: [{ name: 'write', arguments: { path: 'pwned.txt', content: 'x' } }] }
      })
      const run = await runHeadless(alone, headless, 'E2E 写个文件')
      expect(run.code).toBe(0)
      expect(run.stdout).toContain('E2E 只能读，不写了。')
      const [first, second] = headless.requests.filter((r) => !isTitleRequest(r))
      for (const name of FORBIDDEN) expect(names(first!), name).not.toContain(name)
      expect(
        second!.messages
          .filter((m) => m.role === 'tool')
          .map(textOf)
          .join(''),
      ).toContain('工具「write」不在当前智能体配置「通用助手」的工具档（只读）允许的范围内')
      expect(existsSync(join(alone.workspace, 'pwned.txt'))).toBe(false)
    } finally {
      await headless.close()
      alone.cleanup()
    }
  })

  it("full carries exactly the tools of a run without the plugin, plus only the plugin's own memory tools", async () => {
    const alone = makeHome(['headless'])
    const headless = await startModelServer()
    try {
      const firstTurn = () => headless.requests.find((r) => !isTitleRequest(r))!
      alone.patch('- id: agent-profiles\n  disabled: true\n')
      expect((await runHeadless(alone, headless, 'E2E 不带插件')).code).toBe(0)
      const without = firstTurn()
      expect(names(without)).not.toContain('memory_save')
      headless.reset()
      alone.patch('[]\n')
      // A stored full profile with overrides: they must change nothing.
      const store = await openStore({ file: alone.dataFile })
      await store.command({
        op: 'profile.update',
        id: 'general',
        patch: { tools: { profile: 'full', add: ['read'], remove: ['bash', 'write'] } },
      })
      await store.close()
      expect((await runHeadless(alone, headless, 'E2E 带插件')).code).toBe(0)
      const withPlugin = firstTurn()
      expect(withPlugin.system).toContain('通用助手')
      const tools = withPlugin.body.tools as Array<{ function: { name: string } }>
      const own = ['memory_save', 'memory_search']
      for (const name of own)
        expect(
          tools.some((t) => t.function.name === name),
          name,
        ).toBe(true)
      expect(JSON.stringify(tools.filter((t) => !own.includes(t.function.name)))).toBe(toolsJson(without))
    } finally {
      await headless.close()
      alone.cleanup()
    }
  })
})
