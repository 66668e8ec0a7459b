/**
 * The wiring (lib/index.ts), in-process on the real dsh spine without the skills service and without a web server:
 * the parts whose services exist work, the one whose service is missing is reported once, a bad row config is refused
 * naming the field, and unloading removes what the plugin registered.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import * as AgentProfiles from '../lib/index.ts'
import { mountSpine, RecordingModel, SPINE_MODEL, turnToIdle } from './support/spine.ts'

const cleanups: Array<() => Promise<unknown> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function host() {
  const dir = mkdtempSync(join(tmpdir(), 'ap-index-'))
  const ctx = new Context()
  const warnings: string[] = []
  const errors: string[] = []
  ctx.logger.exporter({
    levels: { default: 3 },
    export: (m) => {
      if (m.type === 'warn') warnings.push(m.args.map(String).join(' '))
      if (m.type === 'error') errors.push(m.args.map(String).join(' '))
    },
  })
  const adapter = new RecordingModel()
  await mountSpine(ctx, adapter)
  cleanups.push(async () => {
    await ctx.fiber.dispose()
    rmSync(dir, { recursive: true, force: true })
  })
  return { ctx, adapter, warnings, errors, dataFile: join(dir, 'profiles.json') }
}

/**
 * Until the plugin is installed: once the host has loaded, the plugin says which parts are off (the spine has no
 * skills service), after every part that can install did.
 */
async function installed(h: Awaited<ReturnType<typeof host>>): Promise<void> {
  await vi.waitFor(() => expect(h.warnings.join('\n')).toContain('profile skills is off'), { timeout: 10_000 })
}

async function turn(h: Awaited<ReturnType<typeof host>>, id: string) {
  const { agent, dispose } = await h.ctx.agents.create({ sessionId: SessionId(id), agentOptions: SPINE_MODEL })
  cleanups.push(() => dispose())
  await turnToIdle(h.ctx, agent, '你好')
  return h.adapter.requests.at(-1)!
}

it('works where its services exist and reports the missing skills service exactly once', async () => {
  const h = await host()
  const fiber = await h.ctx.plugin(AgentProfiles, { dataFile: h.dataFile })
  await installed(h)
  const request = await turn(h, 's-index')
  expect(request.system).toContain('你是「通用助手」')
  expect(request.tools?.map((t) => t.name)).toContain('memory_save')
  const skillWarnings = h.warnings.filter((w) => w.includes('profile skills is off'))
  expect(skillWarnings).toEqual(['agent-profiles: profile skills is off — this host lacks skills'])
  // The spine mounts no session query nor persistence either: learning from past conversations and forgetting
  // deleted ones are off, each said once too.
  expect(h.warnings.filter((w) => / is off — /.test(w) && !w.includes('profile skills')).sort()).toEqual([
    'agent-profiles: forgetting deleted conversations is off — this host lacks sessionPersistence',
    'agent-profiles: learning from past conversations is off — this host lacks sessionQuery',
  ])

  await fiber.dispose()
  const after = await turn(h, 's-after-unload')
  expect(after.system).not.toContain('智能体配置')
  expect(after.tools?.map((t) => t.name) ?? []).not.toContain('memory_save')
})

it('reports a bad row config naming the field and what it accepts, and keeps the host up on the defaults', async () => {
  const h = await host()
  await h.ctx.plugin(AgentProfiles, { dataFile: h.dataFile, memory: { everyTurns: 0 } })
  await installed(h)
  expect(h.errors).toEqual([
    'agent-profiles: config: memory.everyTurns must be an integer from 1 to 1000, got 0 — using the default configuration',
  ])
  const request = await turn(h, 's-bad-config')
  expect(request.system).toContain('你是「通用助手」')
})
