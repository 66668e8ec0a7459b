/**
 * The wiring (lib/index.ts), in-process on the real dsh spine without the skills service and without a web server:
 * the parts whose services exist work, the one whose service is missing is reported once, a bad row config is refused
 * naming the field, and unloading removes what the plugin registered.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { LlmAdapter, createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import * as AgentProfiles from '../lib/index.ts'

class Recorder extends LlmAdapter {
  readonly requests: GenerateOptions[] = []
  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    this.requests.push(options)
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text: 'ok' }
    yield { type: 'block-end', index: 0, block: { type: 'text', text: 'ok' } }
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

const cleanups: Array<() => Promise<unknown> | void> = []
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c() })

async function host() {
  const dir = mkdtempSync(join(tmpdir(), 'ap-index-'))
  const ctx = new Context()
  const warnings: string[] = []
  const errors: string[] = []
  ctx.logger.exporter({ levels: { default: 3 }, export: (m) => {
    if (m.type === 'warn') warnings.push(m.args.map(String).join(' '))
    if (m.type === 'error') errors.push(m.args.map(String).join(' '))
  } })
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, {})
  await ctx.plugin(ToolRuntime, {})
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(AgentLoop, { agents: [] })
  const adapter = new Recorder()
  ctx.llm.registerAdapter(['mock'], adapter)
  cleanups.push(async () => { await ctx.fiber.dispose(); rmSync(dir, { recursive: true, force: true }) })
  return { ctx, adapter, warnings, errors, dataFile: join(dir, 'profiles.json') }
}

async function turn(h: Awaited<ReturnType<typeof host>>, id: string) {
  const { agent, dispose } = await h.ctx.agents.create({ sessionId: SessionId(id), agentOptions: { provider: 'mock', model: 'm' } })
  cleanups.push(() => dispose())
  const idle = new Promise<void>((resolve) => {
    const off = h.ctx.on('agent/status', ({ agent: a, status }) => { if (a === agent && status === 'idle') { off(); resolve() } })
  })
  agent.followup(createUserMessage({ content: [{ type: 'text', text: '你好' }], source: { kind: 'user' } }))
  await idle
  return h.adapter.requests.at(-1)!
}

it('works where its services exist and reports the missing skills service exactly once', async () => {
  const h = await host()
  const fiber = await h.ctx.plugin(AgentProfiles, { dataFile: h.dataFile })
  await new Promise((r) => setTimeout(r, 50))
  const request = await turn(h, 's-index')
  expect(request.system).toContain('你是「通用助手」')
  expect(request.tools?.map((t) => t.name)).toContain('memory_save')
  const skillWarnings = h.warnings.filter((w) => w.includes('profile skills is off'))
  expect(skillWarnings).toEqual(['agent-profiles: profile skills is off — this host lacks skills'])
  expect(h.warnings.filter((w) => / is off — /.test(w) && !w.includes('profile skills'))).toEqual([])

  await fiber.dispose()
  const after = await turn(h, 's-after-unload')
  expect(after.system).not.toContain('智能体配置')
  expect(after.tools?.map((t) => t.name) ?? []).not.toContain('memory_save')
})

it('reports a bad row config naming the field and what it accepts, and keeps the host up on the defaults', async () => {
  const h = await host()
  await h.ctx.plugin(AgentProfiles, { dataFile: h.dataFile, memory: { everyTurns: 0 } })
  await new Promise((r) => setTimeout(r, 50))
  expect(h.errors).toEqual(['agent-profiles config: memory.everyTurns must be an integer from 1 to 1000, got 0 — using the default configuration'])
  const request = await turn(h, 's-bad-config')
  expect(request.system).toContain('你是「通用助手」')
})
