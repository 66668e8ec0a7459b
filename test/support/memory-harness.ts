/**
 * The in-process host for the memory specs and bench: the real dsh spine (llm, session, system-prompt, tools, agent,
 * agent-loop) on a Cordis context, a real store on a temp file, and one scripted model adapter that tells the
 * conversation's turns from the plugin's background requests. Nothing here imitates the plugin.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { CallId, LlmAdapter, createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { resolveConfig, type Config } from '../../lib/config/config.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { Log } from '../../lib/shared/log.ts'
import { mountSpine, SPINE_MODEL } from './spine.ts'

/** What the scripted model does for one request. */
export type Step =
  /** A text answer, optionally after `delayMs` (a model's time to first token). */
  | { text: string; delayMs?: number }
  | { tool: string; args: unknown }
  | { fail: { code: string; message: string; status?: number } }
  | { throws: string }
  | { finish: 'max-tokens' | 'tool-calls' }
  /** One delta, then nothing until the request is aborted (or forever, with `ignoreAbort`). */
  | { stall: true; ignoreAbort?: boolean }
  /** Resolves when released: lets a test hold a background request open. */
  | { gate: Promise<void>; text: string }
  /** An answer made from the request's user message (e.g. a model that echoes it). */
  | { reply: (prompt: string) => string }

/** One request as the model saw it. */
export interface Seen {
  kind: 'turn' | 'extract' | 'compress'
  options: GenerateOptions
  system: string
  prompt: string
}

/** Background requests carry one of these first lines in their system prompt. */
const EXTRACT_MARK = '整理出值得长期记住的事实'
const COMPRESS_MARK = '整理一位助手的长期记忆'

function kindOf(o: GenerateOptions): Seen['kind'] {
  const system = o.system ?? ''
  return system.includes(EXTRACT_MARK) ? 'extract' : system.includes(COMPRESS_MARK) ? 'compress' : 'turn'
}

function textOf(o: GenerateOptions): string {
  const last = o.messages.at(-1)
  return last ? last.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') : ''
}

function waitAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) reject(new Error('aborted'))
    signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
  })
}

let calls = 0

/** A model whose answers each test scripts per request kind; unscripted turns answer "好的", background "无". */
class ScriptedModel extends LlmAdapter {
  readonly seen: Seen[] = []
  readonly #queues: Record<Seen['kind'], Step[]> = { turn: [], extract: [], compress: [] }
  readonly #waiters = new Set<() => void>()
  readonly #open: Record<Seen['kind'], number> = { turn: 0, extract: 0, compress: 0 }
  /** The most requests of each kind that were open at the same time. */
  readonly peak: Record<Seen['kind'], number> = { turn: 0, extract: 0, compress: 0 }

  /** Queue answers for the next requests of `kind`. */
  script(kind: Seen['kind'], ...steps: Step[]): void {
    this.#queues[kind].push(...steps)
  }

  of(kind: Seen['kind']): Seen[] {
    return this.seen.filter((s) => s.kind === kind)
  }

  /** Resolves once `count` requests of `kind` have arrived. */
  until(kind: Seen['kind'], count = 1, timeoutMs = 10_000): Promise<Seen[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.of(kind).length < count) return
        this.#waiters.delete(check)
        clearTimeout(timer)
        resolve(this.of(kind))
      }
      const timer = setTimeout(() => {
        this.#waiters.delete(check)
        reject(new Error(`waited ${timeoutMs} ms for ${count} ${kind} request(s), saw ${this.of(kind).length}`))
      }, timeoutMs)
      this.#waiters.add(check)
      check()
    })
  }

  override async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const kind = kindOf(options)
    this.seen.push({ kind, options, system: options.system ?? '', prompt: textOf(options) })
    for (const wake of [...this.#waiters]) wake()
    this.peak[kind] = Math.max(this.peak[kind], ++this.#open[kind])
    try {
      yield* this.#play(kind, options)
    } finally {
      this.#open[kind] -= 1
    }
  }

  async *#play(kind: Seen['kind'], options: GenerateOptions): AsyncIterable<StreamChunk> {
    const step = this.#queues[kind].shift() ?? { text: kind === 'turn' ? '好的' : '无' }
    if ('throws' in step) throw Object.assign(new Error(step.throws), { status: 500 })
    if ('fail' in step) {
      yield { type: 'finish', reason: { kind: 'error', failure: step.fail } }
      return
    }
    if ('finish' in step) {
      yield* answer('半句', step.finish)
      return
    }
    if ('stall' in step) {
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'text-delta', index: 0, text: '…' }
      await (step.ignoreAbort ? new Promise<never>(() => {}) : waitAbort(options.signal))
      return
    }
    if ('gate' in step) {
      await Promise.race([step.gate, waitAbort(options.signal)])
      yield* answer(step.text)
      return
    }
    if ('tool' in step) {
      const id = CallId(`call-${++calls}`)
      const args = JSON.stringify(step.args)
      yield { type: 'block-start', index: 0, blockType: 'tool-call' }
      yield { type: 'tool-call-delta', index: 0, id, name: step.tool, argumentsDelta: args }
      yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: step.tool, arguments: args } }
      yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } }
      yield { type: 'finish', reason: { kind: 'tool-calls' } }
      return
    }
    if ('reply' in step) {
      yield* answer(step.reply(textOf(options)))
      return
    }
    if (step.delayMs) await Promise.race([new Promise((r) => setTimeout(r, step.delayMs)), waitAbort(options.signal)])
    yield* answer(step.text)
  }
}

function* answer(text: string, finish: 'stop' | 'max-tokens' | 'tool-calls' = 'stop'): Generator<StreamChunk> {
  yield { type: 'block-start', index: 0, blockType: 'text' }
  for (const part of text.match(/[\s\S]{1,16}/g) ?? []) yield { type: 'text-delta', index: 0, text: part }
  yield { type: 'block-end', index: 0, block: { type: 'text', text } }
  yield { type: 'usage', usage: { inputTokens: 100, outputTokens: Math.max(1, text.length) } }
  yield { type: 'finish', reason: { kind: finish } }
}

/** Everything the plugin logged, by level. */
interface Logged {
  warn: string[]
  error: string[]
}

export interface Harness {
  ctx: Context
  store: ProfileStore
  model: ScriptedModel
  config: Config
  logged: Logged
  log: Log
  /** A new top-level conversation (or a subagent one with `subagentOf`). */
  conversation(id: string, options?: { subagentOf?: string }): Promise<Agent>
  /** Send one user message and wait for the turn to end. */
  turn(agent: Agent, text: string): Promise<void>
  close(): Promise<void>
}

/** Boot the spine, open a store on a temp file, and hand the parts to `install`. */
export async function boot(rawConfig: unknown = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'ap-memory-'))
  const model = new ScriptedModel()
  const ctx = await mountSpine(new Context(), model)
  const logged: Logged = { warn: [], error: [] }
  const log = { warn: (m: string) => void logged.warn.push(m), error: (m: string) => void logged.error.push(m) }
  const store = await openStore({ file: join(dir, 'profiles.json'), log })
  const handles: Array<{ dispose(): Promise<void> }> = []
  return {
    ctx,
    store,
    model,
    logged,
    log,
    config: resolveConfig(rawConfig),
    async conversation(id, options = {}) {
      const handle = await ctx.agents.create({
        sessionId: SessionId(id),
        agentOptions: SPINE_MODEL,
        ...(options.subagentOf
          ? { meta: { origin: 'subagent' as const, parentSession: SessionId(options.subagentOf) } }
          : {}),
      })
      handles.push(handle)
      return handle.agent
    },
    async turn(agent, text) {
      const ended = new Promise<void>((resolve) => {
        const off = ctx.on('session/event', (session, event) => {
          if (session.id === agent.id && event.type === 'turn/end') {
            off()
            resolve()
          }
        })
      })
      agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
      await ended
      await agent.whenIdle()
    },
    async close() {
      for (const h of handles) await h.dispose().catch(() => {})
      await ctx.fiber.dispose()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Let timers and promise chains run: background work is scheduled on a timer after the turn ends. */
export function settle(ms = 20): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
