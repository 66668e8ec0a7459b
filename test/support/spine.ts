/**
 * The real dsh spine in process ("Level 1") for specs and benchmarks: the host's llm, session, system-prompt, tools,
 * agent and agent-loop plugins on a Cordis context with one model adapter, a recording model, a turn run to idle, and
 * a reader of the tool result a request carried. The code that runs is the host's own; nothing here imitates it.
 */
import type { Context } from '@deepseek-ai/cordis'
import AgentRegistry, { type Agent } from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import LlmRuntime, { LlmAdapter, createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import SessionStore from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime, { type ToolDefinition } from '@deepseek-ai/dsh-tools'

/** The sizes of the paragraphs of tool guidance a real rc.8 headless request carried between order 20 and the end of
 * its system prompt (3,935 characters in 12 paragraphs; measured, text not copied). */
const GUIDANCE_SIZES: readonly number[] = [156, 220, 388, 390, 129, 92, 382, 327, 734, 325, 434, 358]

/** Stand in for the host's tool guidance: one global section per paragraph, of those sizes, at orders 100 onward. */
export function standInGuidance(ctx: Context): void {
  GUIDANCE_SIZES.forEach((size, i) =>
    ctx.systemPrompt.section({
      name: `bench:guidance-${i}`,
      order: 100 + i,
      text: `Guidance ${i}: ${'x'.repeat(size - 13)}`,
    }),
  )
}

/** A hand-written host tool under `name` whose runs are noted in `ran`; `description` sizes its schema. */
export function hostTool(name: string, ran: string[] = [], description = `The host's ${name} tool.`): ToolDefinition {
  return {
    name,
    description,
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    output: {
      schema: { type: 'object', additionalProperties: true },
      render: () => [{ type: 'text', text: `${name} done` }],
    },
    async execute() {
      ran.push(name)
      return { ok: true }
    },
  }
}

/** The `agentOptions` that route a conversation's requests to the adapter `mountSpine` registered. */
export const SPINE_MODEL = { provider: 'mock', model: 'm' }

/** Plug the spine into `ctx` and register `adapter` as the model behind `SPINE_MODEL`; resolves with `ctx`. */
export async function mountSpine(ctx: Context, adapter: LlmAdapter): Promise<Context> {
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, {})
  await ctx.plugin(ToolRuntime, {})
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(AgentLoop, { agents: [] })
  ctx.llm.registerAdapter([SPINE_MODEL.provider], adapter)
  return ctx
}

/** A model that records every request and answers it with one text: `answer(n)` for the n-th request ('ok' unless given). */
export class RecordingModel extends LlmAdapter {
  readonly requests: GenerateOptions[] = []
  readonly answer: (n: number) => string

  constructor(answer: (n: number) => string = () => 'ok') {
    super()
    this.answer = answer
  }

  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    this.requests.push(options)
    const text = this.answer(this.requests.length)
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text }
    yield { type: 'block-end', index: 0, block: { type: 'text', text } }
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

/** Send `agent` one user message and resolve once it is idle again (its turn, tool calls included, is over). */
export async function turnToIdle(ctx: Context, agent: Agent, text: string): Promise<void> {
  const idle = new Promise<void>((resolve) => {
    const off = ctx.on('agent/status', ({ agent: a, status }) => {
      if (a === agent && status === 'idle') {
        off()
        resolve()
      }
    })
  })
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await idle
}

/** The text of the newest tool result a request carried, prefixed `[error]` when the tool failed; '' when none. */
export function toolResult(o: GenerateOptions): string {
  const m = [...o.messages].reverse().find((x) => x.source.kind === 'tool')
  const block = m?.content.find((b) => b.type === 'tool-result')
  if (block?.type !== 'tool-result') return ''
  const text = block.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')
  return block.isError ? `[error] ${text}` : text
}
