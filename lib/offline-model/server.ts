/**
 * The offline model: an OpenAI-compatible chat-completions server on loopback that records every request it receives
 * and answers with the deterministic demo (demo.ts) unless a test scripted the answer. `npm start` uses it when no
 * API key is set; tests script it and assert on what the model received. Node only, never part of the plugin bundle;
 * it never reaches the network and never decides anything about the plugin.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { demoReply } from './demo.ts'
import { recordRequest, type RecordedRequest, type Reply, type Responder } from './requests.ts'

export { isTitleRequest, textOf, type RecordedRequest, type Reply, type Responder } from './requests.ts'

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function sse(res: ServerResponse, chunk: unknown): void {
  res.write(`data: ${JSON.stringify(chunk)}\n\n`)
}

async function stream(
  res: ServerResponse,
  reply: Exclude<Reply, { status: number } | { stall: true } | { malformed: true }>,
  model: string,
): Promise<void> {
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
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            tool_calls: [
              {
                index,
                id: `call_${Date.now()}_${index}`,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    })
  })
  sse(res, {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: Math.max(1, Math.ceil(text.length / 4)), total_tokens: 10 },
  })
  res.write('data: [DONE]\n\n')
  res.end()
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** What the server keeps between requests: what it received, what it will answer, who waits, and open streams. */
interface ServerState {
  readonly requests: RecordedRequest[]
  queued: Reply[]
  responder: Responder | undefined
  readonly waiters: Set<() => void>
  readonly open: Set<ServerResponse>
}

/** The models the offline server says it has (`GET /v1/models`). */
function listModels(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({
      object: 'list',
      data: [
        { id: 'deepseek-v4-flash', object: 'model' },
        { id: 'deepseek-v4-pro', object: 'model' },
      ],
    }),
  )
}

/** Send `reply` to a chat request: a scripted HTTP error, a stream that stalls, a malformed stream, or the text. */
async function answer(res: ServerResponse, reply: Reply, model: string, open: Set<ServerResponse>): Promise<void> {
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        error: { message: reply.message ?? `offline model: scripted HTTP ${reply.status}`, type: 'scripted' },
      }),
    )
  } else if ('stall' in reply) {
    open.add(res)
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    sse(res, {
      id: 'stall',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    })
    res.on('close', () => open.delete(res))
  } else if ('malformed' in reply) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('data: {this is not json\n\n')
    res.write('data: [DONE]\n\n')
    res.end()
  } else {
    await stream(res, reply, model)
  }
}

/** One chat request: recorded, its waiters woken, and answered by the responder, the queue, the fallback or the demo. */
async function chat(
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
  fallback?: Responder,
): Promise<void> {
  const body = JSON.parse(await readBody(req)) as Record<string, unknown>
  const request = recordRequest(body)
  state.requests.push(request)
  for (const wake of state.waiters) wake()
  const reply = state.responder?.(request) ?? state.queued.shift() ?? fallback?.(request) ?? demoReply(request)
  await answer(res, reply, String(body.model ?? 'offline'), state.open)
}

/** The server's request handler: the model list, chat completions, and 404 for anything else. */
function handler(state: ServerState, fallback?: Responder) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (req.method === 'GET' && (req.url ?? '').endsWith('/models')) return listModels(res)
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'offline model: unknown route' } }))
        return
      }
      await chat(req, res, state, fallback)
    } catch (error) {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `offline model: ${(error as Error).message}` } }))
    }
  }
}

/** Resolve once `count` recorded requests match `filter`; reject after `timeoutMs`, saying how many did. */
function waitForRequests(
  state: ServerState,
  filter: (r: RecordedRequest) => boolean,
  count: number,
  timeoutMs: number,
): Promise<RecordedRequest[]> {
  const { requests, waiters } = state
  return new Promise((resolve, reject) => {
    const check = () => {
      const hits = requests.filter(filter)
      if (hits.length < count) return
      waiters.delete(check)
      clearTimeout(timer)
      resolve(hits)
    }
    const timer = setTimeout(() => {
      waiters.delete(check)
      reject(
        new Error(
          `offline model: waited ${timeoutMs} ms for ${count} matching request(s), saw ${requests.filter(filter).length} of ${requests.length}`,
        ),
      )
    }, timeoutMs)
    waiters.add(check)
    check()
  })
}

/** Start the offline model on 127.0.0.1 (port 0 = any free port). */
export async function startModelServer(options: { port?: number; fallback?: Responder } = {}): Promise<ModelServer> {
  const state: ServerState = { requests: [], queued: [], responder: undefined, waiters: new Set(), open: new Set() }
  const server = createServer(handler(state, options.fallback))
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: state.requests,
    queue: (...replies) => {
      state.queued.push(...replies)
    },
    respond: (next) => {
      state.responder = next
    },
    reset: () => {
      state.requests.length = 0
      state.queued = []
      state.responder = undefined
    },
    waitFor: (filter, count = 1, timeoutMs = 30_000) => waitForRequests(state, filter, count, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of state.open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
