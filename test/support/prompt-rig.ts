/**
 * The prompt part (lib/prompt/install.ts) in process on the real dsh spine (cordis + llm + session + system-prompt +
 * tools + agent + agent-loop) with the real store on a temp file and a scripted model adapter that records every
 * request: what the prompt specs (test/prompt/install*.spec.ts) share. Each rig is torn down after its test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect } from 'vitest'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import type { Agent, CreateAgentOptions } from '@deepseek-ai/dsh-agent'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { DEFAULT_CONFIG, type Config } from '../../lib/config/config.ts'
import { installPrompt, type PromptStore } from '../../lib/prompt/install.ts'
import { mountSpine, RecordingModel, SPINE_MODEL, turnToIdle } from './spine.ts'
import type { PromptDiagnostics } from '../../lib/shared/diagnostics.ts'

/** One spine with the store, the recording model and the prompt part loaded on demand. */
interface Rig {
  ctx: Context
  store: ProfileStore
  adapter: RecordingModel
  warnings: string[]
  plugin: Fiber | undefined
  diagnostics(): PromptDiagnostics
  load(config?: Partial<Config>, store?: PromptStore): Promise<void>
  agent(id: string, extra?: Partial<CreateAgentOptions>): Promise<Agent>
  /** Run one turn and return the system prompt of its (single) request. */
  turn(agent: Agent, text?: string): Promise<string>
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A fresh rig, torn down (agents, spine, store, directory) after the calling test. */
export async function rig(): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'ap-prompt-'))
  const store = await openStore({ file: join(dir, 'profiles.json') })
  const adapter = new RecordingModel()
  const ctx = await mountSpine(new Context(), adapter)
  const disposers: Array<() => Promise<unknown>> = []
  let handle: { diagnostics(): PromptDiagnostics } | undefined
  const r: Rig = {
    ctx,
    store,
    adapter,
    warnings: [],
    plugin: undefined,
    diagnostics: () => handle!.diagnostics(),
    async load(config = {}, s = store) {
      r.plugin = await ctx.plugin({
        name: 'agent-profiles-prompt',
        apply: (c: Context) => {
          handle = installPrompt(c, s, { ...DEFAULT_CONFIG, ...config }, { warn: (m) => r.warnings.push(m) })
        },
      })
    },
    async agent(id, extra = {}) {
      const { agent, dispose } = await ctx.agents.create({
        sessionId: SessionId(id),
        agentOptions: SPINE_MODEL,
        ...extra,
      })
      disposers.push(() => dispose())
      return agent
    },
    async turn(agent, text = '你好') {
      const before = adapter.requests.length
      await turnToIdle(ctx, agent, text)
      expect(adapter.requests.length).toBe(before + 1)
      return adapter.requests.at(-1)!.system ?? ''
    },
  }
  cleanups.push(async () => {
    for (const d of disposers.reverse()) await d().catch(() => {})
    await ctx.fiber.dispose()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return r
}

/** The lines of a prompt text. */
export const lines = (text: string) => text.split('\n')
/** A prompt text without the zero-width joiners the renderer puts into user text. */
export const visible = (text: string) => text.replaceAll('\u200D', '')
