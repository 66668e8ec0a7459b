/**
 * The host's own model selection of a conversation (web only), for the model choice (model-choice.ts): reading what
 * the composer shows, and writing the route that will answer into it so that the composer shows that. Owns the order
 * of those writes across conversations and the putting back of the user's saved default, which the host's
 * `session.selectModel` overwrites. It never decides a route and never throws into a turn: a refused write is a
 * warning.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { DistinctWarnings } from '../log/warnings.ts'
import { sameRoute, type Route } from './model-rule.ts'
import { bare, isRoute, selected, type AgentState } from './model-step.ts'

/** The host's settings namespace of the default model, which its `session.selectModel` overwrites. */
const DEFAULT_MODEL_NS = 'agent-default-model'

/** The slice of the host's API proxy (web only) this module calls: the composer's own model RPCs, in process. */
interface ApiProxyLike {
  sessions: {
    models(request: {
      rpcId: string
      payload: { sessionId: string }
    }): Promise<{ result: { ok: boolean; value?: { current?: Route }; error?: { message: string } } }>
    selectModel(request: {
      rpcId: string
      payload: { sessionId: string; provider: string; model: string; reasoningEffort?: string }
    }): Promise<{ result: { ok: boolean; error?: { message: string } } }>
  }
}

interface SettingsLike {
  describe(): Array<{ ns: string; user?: unknown; revision?: number }>
  replace(ns: string, section: object): Promise<void>
}

/** The composer's selection of each conversation, read and written through the host's own RPCs. */
export class ComposerSelection {
  /** Routes written into the host's selection since this part started. */
  synced = 0
  readonly #ctx: Context
  readonly #warnings: DistinctWarnings
  // Writes into the host's selection run one at a time across conversations: each reads the user's default before
  // the host overwrites it and puts it back after, and two interleaved ones would put back each other's write.
  #writes: Promise<unknown> = Promise.resolve()

  constructor(ctx: Context, warnings: DistinctWarnings) {
    this.#ctx = ctx
    this.#warnings = warnings
  }

  #proxy(): ApiProxyLike | undefined {
    return this.#ctx.get('apiProxy') as ApiProxyLike | undefined
  }

  /** The route the host proposes for `agent` outside a request: its composer's current selection (web only). */
  async current(agent: Agent): Promise<Route | undefined> {
    const proxy = this.#proxy()
    if (proxy === undefined) return undefined
    const reply = await proxy.sessions.models({ rpcId: `agent-profiles-${agent.id}`, payload: { sessionId: agent.id } })
    const current = reply.result.value?.current
    return isRoute(current) ? selected(current) : undefined
  }

  /**
   * Write `route` into the host's own selection of the conversation (web only), so that its composer shows the model
   * that will answer. The host's `session.selectModel` also saves the pick as the global default: the default the
   * user had is put back right after, so a profile never changes what new conversations start on.
   */
  async sync(agent: Agent, s: AgentState, route: Route): Promise<void> {
    const proxy = this.#proxy()
    if (proxy === undefined || sameRoute(s.syncing, route)) return
    s.syncing = bare(route)
    const run = this.#writes.then(() => this.#write(proxy, agent, s, route))
    this.#writes = run.catch(() => undefined)
    try {
      await run
    } finally {
      s.syncing = undefined
    }
  }

  async #write(proxy: ApiProxyLike, agent: Agent, s: AgentState, route: Route): Promise<void> {
    const settings = this.#ctx.get('settings') as SettingsLike | undefined
    const before = settings?.describe().find((d) => d.ns === DEFAULT_MODEL_NS)
    const reply = await proxy.sessions.selectModel({
      rpcId: `agent-profiles-${agent.id}`,
      payload: {
        sessionId: agent.id,
        provider: route.provider,
        model: route.model,
        ...(route.reasoningEffort === undefined ? {} : { reasoningEffort: route.reasoningEffort }),
      },
    })
    if (!reply.result.ok) {
      this.#warnings.warn({
        key: 'composer-refused',
        params: { model: `${route.provider}/${route.model}`, session: agent.id },
        detail: reply.result.error?.message ?? 'refused',
      })
      return
    }
    this.synced++
    if (s.track !== undefined && sameRoute(s.track.applied, route)) s.track = { ...s.track, expect: bare(route) }
    if (settings !== undefined && before !== undefined) {
      const user = before.user
      await settings.replace(DEFAULT_MODEL_NS, typeof user === 'object' && user !== null ? user : {})
      this.#retell(settings, before.revision)
    }
  }

  /**
   * Have every open composer read its selection again. The host's composer re-reads it only on the host's
   * `settings/document-updated` event, which the writes above raise when they change the user's saved default; when
   * the route written is that default already (back to the conversation's own model after a profile brought another),
   * the section never changes, no event is raised and the composer keeps showing the profile's model until a reload.
   * The event is then raised here with the section's own revision, unchanged: its listeners only read again.
   */
  #retell(settings: SettingsLike, revision: number | undefined): void {
    const now = settings.describe().find((d) => d.ns === DEFAULT_MODEL_NS)?.revision
    if (now === undefined || now !== revision) return
    ;(this.#ctx.emit as (name: string, ...args: unknown[]) => void)('settings/document-updated', DEFAULT_MODEL_NS, now)
  }
}
