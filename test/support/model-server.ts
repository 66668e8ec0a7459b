/**
 * The offline model: an OpenAI-compatible chat-completions server on loopback, scriptable per test, recording every
 * request it receives. Tests assert on what the model received; `npm start` uses it when no API key is set.
 * It never reaches the network and never decides anything about the plugin.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as the model received it. */
export interface RecordedRequest {
  /** System prompt text (all `system` messages joined). */
  system: string
  /** The non-system messages, as sent. */
  messages: ChatMessage[]
  /** Tool schemas offered to the model (`function.name` etc.). */
  tools: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>
  /** The whole JSON body. */
  body: Record<string, unknown>
  /** The text of the last user message, for matching. */
  lastUser: string
}

export interface ChatMessage {
  role: string
  content?: string | Array<{ type: string; text?: string }> | null
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

/** What the model answers. */
export type Reply =
  | { text: string; delayMs?: number; chunkDelayMs?: number }
  | { toolCalls: Array<{ name: string; arguments: unknown }>; text?: string; delayMs?: number }
  /** An HTTP failure (e.g. 500, 429). */
  | { status: number; message?: string }
  /** Sends headers and one chunk, then never finishes (until the client gives up or the server closes). */
  | { stall: true }
  /** A stream whose data lines are not JSON. */
  | { malformed: true }

/** Decides a reply for one request; `undefined` falls through to the queue and then the default. */
export type Responder = (request: RecordedRequest) => Reply | undefined

export interface ModelServer {
  /** Base URL for `DEEPSEEK_BASE_URL` (ends in `/v1`). */
  readonly url: string
  readonly requests: RecordedRequest[]
  /** Replies consumed in order by the next requests that no responder claimed. */
  queue(...replies: Reply[]): void
  /** Replace the per-test responder (pass undefined to clear). */
  respond(responder: Responder | undefined): void
  /** Forget recorded requests, queued replies and the responder. */
  reset(): void
  /** Resolves when `count` requests matching `filter` have been received. */
  waitFor(filter: (r: RecordedRequest) => boolean, count?: number, timeoutMs?: number): Promise<RecordedRequest[]>
  close(): Promise<void>
}

/** The answer when a test scripted nothing: says it is offline and echoes the question, so a person trying the UI sees it work. */
export function defaultReply(request: RecordedRequest): Reply {
  if (isTitleRequest(request)) {
    const said = [...request.lastUser.matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join(' ')
    return { text: said.slice(0, 40) || 'Offline session' }
  }
  const asked = request.lastUser.trim().slice(0, 200)
  return { text: `（离线模型）已收到：${asked || '…'}` }
}

/** True for the host's auxiliary session-title request, which is not a conversation turn. */
export function isTitleRequest(r: RecordedRequest): boolean {
  return r.tools.length === 0 && /title|标题/i.test(r.system) && !/agent-profiles|智能体/.test(r.system)
}

/** A responder for a model that saves `facts` with `memory_save` in its first step and then answers "好的". */
export function savesMemory(facts: string[]): Responder {
  return (r) => {
    if (isTitleRequest(r)) return undefined
    return r.messages.some((m) => m.role === 'tool') ? { text: '好的' } : { toolCalls: [{ name: 'memory_save', arguments: { facts } }] }
  }
}

/** The text of one message as the model received it: its string content, or its text parts joined. */
export function textOf(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('')
  return ''
}

function record(body: Record<string, unknown>): RecordedRequest {
  const all = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : []
  const system = all.filter((m) => m.role === 'system').map(textOf).join('\n\n')
  const messages = all.filter((m) => m.role !== 'system')
  // The host appends its runtime-context snapshot and reminders (e.g. the skill catalog) as user messages after the
  // person's own; the question is the last user message that is neither.
  const users = messages.filter((m) => m.role === 'user' && !/^(Current runtime context\.|<system-reminder>)/.test(textOf(m).trimStart()))
  return {
    system,
    messages,
    tools: Array.isArray(body.tools) ? (body.tools as RecordedRequest['tools']) : [],
    body,
    lastUser: users.length ? textOf(users[users.length - 1]!) : '',
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function sse(res: ServerResponse, chunk: unknown): void {
  res.write(`data: ${JSON.stringify(chunk)}\n\n`)
}

async function stream(res: ServerResponse, reply: Exclude<Reply, { status: number } | { stall: true } | { malformed: true }>, model: string): Promise<void> {
  const id = `chatcmpl-offline-${Date.now()}`
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model }
  if (reply.delayMs) await sleep(reply.delayMs)
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  const text = reply.text ?? ''
  // Several small deltas, so clients exercise their streaming path as with a real model.
  const parts = text.match(/[\s\S]{1,24}/g) ?? []
  for (const part of parts) {
    sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: part }, finish_reason: null }] })
    if ('chunkDelayMs' in reply && reply.chunkDelayMs) await sleep(reply.chunkDelayMs)
  }
  const calls = 'toolCalls' in reply ? reply.toolCalls : []
  calls.forEach((call, index) => {
    sse(res, {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index, id: `call_${Date.now()}_${index}`, type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }, finish_reason: null }],
    })
  })
  sse(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: Math.max(1, Math.ceil(text.length / 4)), total_tokens: 10 } })
  res.write('data: [DONE]\n\n')
  res.end()
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Start the offline model on 127.0.0.1 (port 0 = any free port). */
export async function startModelServer(options: { port?: number; fallback?: Responder } = {}): Promise<ModelServer> {
  const requests: RecordedRequest[] = []
  let queued: Reply[] = []
  let responder: Responder | undefined
  const waiters = new Set<() => void>()
  const open = new Set<ServerResponse>()

  const server = createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && /\/models$/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'deepseek-v4-flash', object: 'model' }, { id: 'deepseek-v4-pro', object: 'model' }] }))
        return
      }
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'offline model: unknown route' } }))
        return
      }
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>
      const request = record(body)
      requests.push(request)
      for (const wake of waiters) wake()
      const reply = responder?.(request) ?? queued.shift() ?? options.fallback?.(request) ?? defaultReply(request)
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: reply.message ?? `offline model: scripted HTTP ${reply.status}`, type: 'scripted' } }))
      } else if ('stall' in reply) {
        open.add(res)
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        sse(res, { id: 'stall', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })
        res.on('close', () => open.delete(res))
      } else if ('malformed' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('data: {this is not json\n\n')
        res.write('data: [DONE]\n\n')
        res.end()
      } else {
        await stream(res, reply, String(body.model ?? 'offline'))
      }
    } catch (error) {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `offline model: ${(error as Error).message}` } }))
    }
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    queue: (...replies) => { queued.push(...replies) },
    respond: (next) => { responder = next },
    reset: () => { requests.length = 0; queued = []; responder = undefined },
    waitFor(filter, count = 1, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hits = requests.filter(filter)
          if (hits.length < count) return
          waiters.delete(check); clearTimeout(timer); resolve(hits)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`offline model: waited ${timeoutMs} ms for ${count} matching request(s), saw ${requests.filter(filter).length} of ${requests.length}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () => new Promise<void>((resolve) => {
      for (const res of open) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
