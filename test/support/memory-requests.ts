/**
 * What the memory e2e specs share: which kind of request the offline model got (a conversation turn, a title, an
 * extraction, a compression — told by the plugin's own system prompts), the model's per-test answers, and a poll
 * until a probe answers.
 */
import { afterAll, beforeAll } from 'vitest'
import { isTitleRequest, startModelServer, type ModelServer, type RecordedRequest, type Reply } from './model-server.ts'
import { bootHost, type Host } from './host-api.ts'

export type RequestKind = 'turn' | 'title' | 'extract' | 'compress'

export function kindOf(r: RecordedRequest): RequestKind {
  if (r.system.includes('整理出值得长期记住的事实')) return 'extract'
  if (r.system.includes('整理一位助手的长期记忆')) return 'compress'
  return isTitleRequest(r) ? 'title' : 'turn'
}

/** What a test scripts the model to answer; undefined leaves the request to the default. */
type Script = (r: RecordedRequest, kind: RequestKind) => Reply | undefined

/**
 * Make `model` answer by `answers.script`, which each test sets; background requests nobody scripted get "nothing to
 * add" (and compression an empty, unusable answer), so they never store noise.
 */
function scriptedModel(model: ModelServer): { script: Script } {
  const answers: { script: Script } = { script: () => undefined }
  model.respond((r) => {
    const kind = kindOf(r)
    return (
      answers.script(r, kind) ?? (kind === 'extract' ? { text: '无' } : kind === 'compress' ? { text: '' } : undefined)
    )
  })
  return answers
}

/** A scripted offline model and the real `dsh web` with this plugin's `memory` config set to `memory`. */
export interface MemoryHost {
  model: ModelServer
  host: Host
  answers: { script: Script }
  close(): Promise<void>
}

/** Boot a {@link MemoryHost}: the model first, answering by `answers.script`, then the host against it. */
export async function bootMemoryHost(memory: Record<string, unknown>): Promise<MemoryHost> {
  const model = await startModelServer()
  const answers = scriptedModel(model)
  const host = await bootHost(model, {
    patch: `- id: agent-profiles\n  config:\n    memory: ${JSON.stringify(memory)}\n`,
  }).catch(async (e: unknown) => {
    await model.close()
    throw e
  })
  return {
    model,
    host,
    answers,
    close: async () => {
      await host.stop()
      await model.close()
    },
  }
}

/** A {@link MemoryHost} booted before the spec's tests and closed after them; its fields are set once they start. */
export function memoryHostForSpec(memory: Record<string, unknown>): MemoryHost {
  const env = {} as MemoryHost
  beforeAll(async () => {
    Object.assign(env, await bootMemoryHost(memory))
  })
  afterAll(async () => {
    await env.close?.()
  })
  return env
}

/** Poll `probe` every 100 ms until it answers; on timeout fail naming `what`, with `detail()` (e.g. the host's output). */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  detail: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * The turn ledger of one conversation (turn → the profile that answered), once it holds `count` turns: it is written
 * as each turn's request goes out, so a reader right after the model answered may be a moment early.
 */
export async function ledgerOf(host: Host, sessionId: string, count: number): Promise<Record<string, string>> {
  return until(`${count} turn(s) in the ledger of ${sessionId}`, async () => {
    const res = await fetch(`${host.web.url}/__ap/turns/${encodeURIComponent(sessionId)}`)
    const { turns } = (await res.json()) as { turns: Record<string, string> }
    return Object.keys(turns).length >= count ? turns : undefined
  })
}
