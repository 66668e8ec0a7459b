/**
 * One bounded background model call → its text: route choice, deadline, folding the stream, and turning every way a
 * call can go wrong into one typed error. Shared by the memory extraction and compression jobs. It never retries,
 * never writes to a session, and never throws anything but {@link ModelCallError}.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { GenerateOptions, Message, MessageId, ReasoningEffortId, StreamChunk } from '@deepseek-ai/dsh-llm'
import type { Session } from '@deepseek-ai/dsh-session'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-agent-default-model'
import { randomUUID } from 'node:crypto'
import { errorText } from '../shared/errors.ts'
import type { FailReason } from '../shared/reasons.ts'
import type { RunRecord } from '../shared/diagnostics.ts'
import { ModelCallError } from './errors.ts'

/** A provider + model pair, as `ctx.llm.stream` takes it. */
export interface ModelRoute {
  provider: string
  model: string
}

/** What one call sent and got back. */
export interface CallOutcome {
  text: string
  /** Characters sent: system prompt plus the user message. */
  sentChars: number
  /** Token counts when the provider reported them. */
  usage?: { inputTokens: number; outputTokens: number }
}

/** One background request. */
export interface CallRequest {
  route: ModelRoute
  system: string
  prompt: string
  maxTokens: number
  timeoutMs: number
  /** Aborts the call early (plugin unload). */
  signal?: AbortSignal
}

const OFF = 'off' as ReasoningEffortId

function isRoute(v: unknown): v is ModelRoute {
  const r = v as Partial<ModelRoute> | undefined
  return typeof r?.provider === 'string' && r.provider !== '' && typeof r.model === 'string' && r.model !== ''
}

/**
 * The model a conversation talks to, in the web gateway's own order: the route of its last logged request, else the
 * host's default selection, else what its agent was created with. `undefined` when none is known.
 */
export function routeOf(
  ctx: Context,
  session: Pick<Session, 'id' | 'requestHeader'> | undefined,
): ModelRoute | undefined {
  const logged = session?.requestHeader()?.config
  if (isRoute(logged)) return { provider: logged.provider, model: logged.model }
  const fallback = defaultRoute(ctx)
  if (fallback) return fallback
  const options = session ? ctx.get('agents')?.get(session.id)?.options : undefined
  return isRoute(options) ? { provider: options.provider, model: options.model } : undefined
}

/** The host's default model selection, for work that belongs to no conversation. */
export function defaultRoute(ctx: Context): ModelRoute | undefined {
  try {
    const selection: unknown = ctx.get('agentDefaultModel')?.currentSelection()
    return isRoute(selection) ? { provider: selection.provider, model: selection.model } : undefined
  } catch {
    return undefined
  }
}

function failureOf(chunk: Extract<StreamChunk, { type: 'finish' }>): ModelCallError | undefined {
  const reason = chunk.reason
  switch (reason.kind) {
    case 'stop':
      return undefined
    case 'error':
      return new ModelCallError('error', reason.failure.message, String(reason.failure.status ?? reason.failure.code))
    case 'aborted':
      return new ModelCallError('aborted', reason.failure.message, reason.failure.code)
    case 'max-tokens':
      return new ModelCallError('max-tokens', 'the answer hit the output-token cap and was cut off')
    case 'tool-calls':
      return new ModelCallError('tool-calls', 'the model asked for a tool instead of answering')
    default:
      return new ModelCallError('error', `unexpected finish "${String((reason as { kind?: unknown }).kind)}"`)
  }
}

/**
 * Send one request on `route` and return the answer text. Bounded: thinking off, an output-token cap, and a deadline
 * that holds even when the provider stream ignores its abort signal.
 */
export async function callModel(ctx: Context, request: CallRequest): Promise<CallOutcome> {
  const llm = ctx.get('llm')
  if (!llm) throw new ModelCallError('unavailable', 'the host has no model service (llm) right now')
  const controller = new AbortController()
  const onParentAbort = () => controller.abort(new ModelCallError('aborted', 'cancelled: the plugin is unloading'))
  if (request.signal?.aborted) onParentAbort()
  request.signal?.addEventListener('abort', onParentAbort, { once: true })
  let timer: NodeJS.Timeout | undefined
  // Rejects when the deadline or the parent fires, so a stalled stream is left behind rather than awaited forever.
  const stopped = new Promise<never>((_, reject) => {
    const fire = () =>
      reject(
        controller.signal.reason instanceof ModelCallError
          ? controller.signal.reason
          : new ModelCallError('aborted', 'cancelled'),
      )
    controller.signal.addEventListener('abort', fire, { once: true })
    timer = setTimeout(
      () => controller.abort(new ModelCallError('timeout', `no complete answer within ${request.timeoutMs} ms`)),
      request.timeoutMs,
    )
  })
  stopped.catch(() => {})
  // Built by hand: host-half imports of dsh packages are type-only, so createUserMessage is not available here.
  const message = {
    id: randomUUID() as MessageId,
    role: 'user',
    content: [{ type: 'text', text: request.prompt }],
    source: { kind: 'plugin', plugin: 'dsh-agent-profiles' },
  } satisfies Message
  const sentChars = request.system.length + request.prompt.length
  const parts: string[] = []
  let usage: CallOutcome['usage']
  let finish: Extract<StreamChunk, { type: 'finish' }> | undefined
  let iterator: AsyncIterator<StreamChunk> | undefined
  try {
    // Thinking costs money and time a list of facts does not need; turn it off where the model lets us.
    const info = await Promise.race([
      llm.resolveModelInfo(request.route.provider, request.route.model, controller.signal).catch(() => undefined),
      stopped,
    ])
    const canSkipThinking = info?.reasoning?.efforts.some((e) => e.id === OFF) ?? false
    const options: GenerateOptions = {
      provider: request.route.provider,
      model: request.route.model,
      system: request.system,
      messages: [message],
      maxTokens: request.maxTokens,
      ...(canSkipThinking ? { reasoningEffort: OFF } : {}),
      signal: controller.signal,
    }
    iterator = llm.stream(options)[Symbol.asyncIterator]()
    for (;;) {
      const next = await Promise.race([iterator.next(), stopped])
      if (next.done) break
      const chunk = next.value
      if (chunk.type === 'text-delta') parts.push(chunk.text)
      else if (chunk.type === 'usage')
        usage = { inputTokens: chunk.usage.inputTokens, outputTokens: chunk.usage.outputTokens }
      else if (chunk.type === 'finish') finish = chunk
    }
  } catch (e) {
    if (e instanceof ModelCallError) throw e
    throw new ModelCallError('error', errorText(e))
  } finally {
    clearTimeout(timer)
    request.signal?.removeEventListener('abort', onParentAbort)
    if (!controller.signal.aborted) controller.abort()
    if (finish === undefined) void iterator?.return?.()?.catch(() => {})
  }
  if (finish === undefined) throw new ModelCallError('error', 'the answer stream ended without a finish')
  const failure = failureOf(finish)
  if (failure) throw failure
  const text = parts.join('')
  if (text.trim() === '') throw new ModelCallError('empty', 'the model answered with no text')
  return usage === undefined ? { text, sentChars } : { text, sentChars, usage }
}

/**
 * A failed run's words: the error's text for the log, and for a failed call (`error`) the same text as the detail the
 * page quotes after its own sentence: the provider's message is the one thing only the provider can say.
 */
export function failureText(kind: FailReason, error: unknown): { reason: string; detail?: string } {
  const reason = errorText(error)
  return kind === 'error' ? { reason, detail: reason } : { reason }
}

/** The most recent background runs, newest first, bounded so diagnostics never grow without end. */
export class RunLog {
  readonly #runs: RunRecord[] = []
  readonly #size: number
  constructor(size = 20) {
    this.#size = size
  }
  add(run: RunRecord): void {
    this.#runs.unshift(run)
    if (this.#runs.length > this.#size) this.#runs.length = this.#size
  }
  list(): RunRecord[] {
    return this.#runs.map((r) => ({ ...r }))
  }
}
