/**
 * The real `dsh web` driven over HTTP as its own web page drives it: boots it on a home with the plugin and waits for
 * its `/api`, then makes client requests there (open a conversation, send a message and wait for the model request)
 * and speaks the plugin's `/__ap` wire (commands, state). It asserts nothing; raw requests with hand-set headers are
 * support/http.ts's.
 */
import { randomUUID } from 'node:crypto'
import type { WireProfile, WireState } from '../../lib/shared/wire-state.ts'
import { makeHome, startWeb, type Home, type Web } from './dsh.ts'
import { isTitleRequest, startModelServer, type ModelServer, type RecordedRequest } from './model-server.ts'

/** fetch() options that POST `body` as JSON. */
export function postJson(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
}

/** A running `dsh web` whose `/api` answers, and a client of it. */
export interface Host {
  readonly home: Home
  readonly web: Web
  /** One client request on `/api/<method>`; resolves with its value, throws with the host's answer unless it is ok. */
  rpc<T = unknown>(method: string, payload: unknown): Promise<T>
  /** A new conversation in the home's workspace (under `agentPreset` when given); resolves with its session id. */
  conversation(agentPreset?: string): Promise<string>
  /** Queue one user message in a conversation, as the composer does. */
  prompt(sessionId: string, text: string): Promise<void>
  /** Send `text`; resolves with the conversation requests whose newest user message carries it, once `count` came. */
  say(sessionId: string, text: string, count?: number): Promise<RecordedRequest[]>
  /** POST one store command to `/__ap/command`; resolves with the reply, throws naming the op on an HTTP error. */
  command<T = Record<string, unknown>>(body: Record<string, unknown>): Promise<T>
  /** GET `/__ap/state`: `{ state, meta }` (its profiles are heads). */
  read<T = { state: WireState; meta: Record<string, unknown> }>(): Promise<T>
  /** GET `/__ap/profile/<id>`: the profile whole as saved now; throws when the host has none. */
  profile(id: string): Promise<WireProfile>
  /** Every profile of the state, whole, in the state's order. */
  profiles(): Promise<WireProfile[]>
  /** Stop the host, and remove the home when `bootHost` made it. */
  stop(): Promise<void>
}

/**
 * Boot `dsh web` against `model` on `options.home`, or on a fresh web home (with `options.patch` written as its
 * cordis.patch.yml first), and resolve once the host's `/api` answers — it comes up after the page is served.
 */
export async function bootHost(
  model: ModelServer,
  options: { home?: Home; patch?: string; port?: number; env?: Record<string, string> } = {},
): Promise<Host> {
  const home = options.home ?? makeHome(['web'])
  if (options.patch !== undefined) home.patch(options.patch)
  const removeHome = (): void => {
    if (options.home === undefined) home.cleanup()
  }
  let web: Web
  try {
    // Its port and environment, when given (startWeb reads nothing else of them).
    web = await startWeb(home, model, options)
  } catch (error) {
    removeHome()
    throw error
  }
  const host: Host = {
    home,
    web,
    async rpc<T>(method: string, payload: unknown) {
      const res = await fetch(
        `${web.url}/api/${method}`,
        postJson({ type: 'client-request', rpcId: randomUUID(), method, payload }),
      )
      const json = (await res.json()) as { result?: { ok: boolean; value?: T } }
      if (!json.result?.ok) throw new Error(`${method} failed: ${JSON.stringify(json)}`)
      return json.result.value as T
    },
    async conversation(agentPreset) {
      return (
        await host.rpc<{ sessionId: string }>('session.create', {
          cwd: home.workspace,
          ...(agentPreset ? { agentPreset } : {}),
        })
      ).sessionId
    },
    async prompt(sessionId, text) {
      await host.rpc('session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] })
    },
    async say(sessionId, text, count = 1) {
      await host.prompt(sessionId, text)
      return model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes(text), count, 60_000)
    },
    async command<T>(body: Record<string, unknown>) {
      const res = await fetch(`${web.url}/__ap/command`, postJson(body))
      const text = await res.text()
      if (!res.ok) throw new Error(`${String(body.op)} failed: ${text}`)
      return JSON.parse(text) as T
    },
    async read<T>() {
      return (await (await fetch(`${web.url}/__ap/state`)).json()) as T
    },
    async profile(id) {
      const res = await fetch(`${web.url}/__ap/profile/${encodeURIComponent(id)}`)
      const reply = (await res.json()) as { profile?: WireProfile }
      if (reply.profile === undefined) throw new Error(`no profile ${id}: ${res.status} ${JSON.stringify(reply)}`)
      return reply.profile
    },
    async profiles() {
      const { state } = await host.read()
      return await Promise.all(state.profiles.map((p) => host.profile(p.id)))
    },
    async stop() {
      await web.stop()
      removeHome()
    },
  }
  for (let i = 0; i < 100; i++) {
    const res = await fetch(
      `${web.url}/api/session.list`,
      postJson({ type: 'client-request', rpcId: randomUUID(), method: 'session.list', payload: {} }),
    ).catch(() => undefined)
    if (res?.status === 200) return host
    await new Promise((r) => setTimeout(r, 200))
  }
  const output = web.output()
  await host.stop()
  throw new Error(`the host API never came up:\n${output}`)
}

/**
 * A model server that answers each conversation request with "已收到：" and the user's last message (its first `echo`
 * characters), and a `dsh web` on it: the boot of the specs about which model, effort and temperature a turn asks for.
 */
export async function bootEchoing(echo = Infinity): Promise<{ model: ModelServer; host: Host }> {
  const model = await startModelServer()
  model.respond((r) => (isTitleRequest(r) ? undefined : { text: `已收到：${r.lastUser.slice(0, echo)}` }))
  return { model, host: await bootHost(model) }
}
