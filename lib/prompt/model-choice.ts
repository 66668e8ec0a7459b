/**
 * A profile's model on every model call of its conversations' turns. Owns the host listeners that apply it — an
 * `agent/request` waterfall listener and a `system-prompt/assemble` one, both registered with `prepend` so that they
 * wrap the host's own per-agent model selection (which would otherwise overwrite provider and model) — the check that
 * the host still offers the model and has its API key (else the conversation's model answers, with a notice on the
 * turn), the retry on the conversation's model of a request the profile's route refused at call time, writing the
 * route into the host's own selection in web so that the composer shows the model that will answer, the per-turn
 * record of which model answered, and the host's model lists for the editor. Each step's model, effort and
 * temperature are decided anew from the profile answering it (a profile the user named, else the conversation's own)
 * and the user's pick: nothing of one speaker's turn carries over to the next. The rule itself (a profile's model, a
 * later composer pick, a switch) is model-rule.ts's.
 *
 * It never writes the session log itself (the host logs each request's header), never fails a turn (every fault
 * degrades to the host's own choice with a warning), and leaves subagents on the host's choice.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { LlmCallConfig, ReasoningEffortId } from '@deepseek-ai/dsh-llm'
import type {} from '@deepseek-ai/dsh-agent-loop'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent-default-model'
import type {} from '@deepseek-ai/dsh-credentials'
import type { ModelChoice } from '../state/model.ts'
import type {
  ModelCatalog,
  ModelChoiceStatus,
  ModelUnavailable,
  TurnModel,
  UnavailableDetail,
} from '../shared/contract.ts'
import type { ProfileStore } from '../store/store.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import type { RecordedModel, TurnRecords } from '../turn/record.ts'
import { errorText } from '../shared/errors.ts'
import { DistinctWarnings } from '../log/warnings.ts'
import { brokeRule } from '../validate/core.ts'
import { missingKey, type KeyHost } from './model-key.ts'
import { routeOfChoice, sameRoute, step, switchKey, type Route, type RouteSource, type Track } from './model-rule.ts'
import type { Log } from '../shared/log.ts'

/** The store surface this module reads. */
export type ModelStore = Pick<ProfileStore, 'effective' | 'turnsOf' | 'onChange'>

/** What the routes and the diagnostics read of this part. */
export interface ModelChoiceApi {
  /** The host's providers with their models and each model's reasoning efforts, for the editor. */
  catalog(): Promise<ModelCatalog>
  /** Refuse (a StoreError naming `field`) a choice the host does not offer now. */
  check(choice: ModelChoice, field: string): Promise<void>
  /** Which model answered each recorded turn of a conversation, since this process started. */
  turns(sessionId: string): Record<number, TurnModel>
  status(): ModelChoiceStatus
}

/** How long the host's model list of a provider is reused before it is asked again (it is asked before each step). */
const CATALOG_TTL_MS = 5_000
/** Conversations whose per-turn models are kept, and turns per conversation (most recent). */
const SESSIONS_KEPT = 200
const TURNS_KEPT = 200
/**
 * Failure codes of a model call that say the route itself cannot serve this user (a key refused or absent, an account
 * out of quota, a model the endpoint does not know), as opposed to a passing fault the host's own retry repeats.
 */
const ROUTE_FAILURES = new Set(['AUTH', 'MISSING_CREDENTIAL', 'INVALID_CREDENTIAL', 'QUOTA', 'HTTP_404'])
/**
 * How long a profile's route refused at call time is passed over before it is tried again: without it every step
 * would pay one failed call before its retry, and after it a key the user stored meanwhile is used again.
 */
const REFUSED_TTL_MS = 60_000
/** The host's settings namespace of the default model, which its `session.selectModel` overwrites. */
const DEFAULT_MODEL_NS = 'agent-default-model'

/**
 * What one step of a conversation was decided to run on: the step's whole record of its model, reasoning effort and
 * temperature (in `route`) and who answers. It is made anew at each step's assembly from the answering profile and the
 * user's pick, and nothing of it passes to the next step: a speaker's controls belong to its own turn.
 */
interface Decision {
  route: Route
  source: RouteSource | 'fallback'
  /** The profile the user named for this turn when it is not the conversation's own. */
  speaker?: string
  /** The host's proposal the decision was made against. */
  host: Route
  wanted?: ModelChoice
  why?: Unavailable
}

/** Why the host cannot run a route: its English for the log, and what the page says beside the reason. */
interface Unavailable extends UnavailableDetail {
  why: ModelUnavailable
  text: string
}

/** The fields of `why` the page words a reason with, those it has only. */
function detailOf(why: Unavailable): UnavailableDetail {
  return {
    ...(why.effort === undefined ? {} : { effort: why.effort }),
    ...(why.detail === undefined ? {} : { detail: why.detail }),
  }
}

interface AgentState {
  track?: Track
  decided?: Decision
  /** Decisions of one conversation run one at a time (an assembly and a profile switch may race). */
  chain: Promise<unknown>
  /** The route being written into the host's selection right now, so that two steps do not both write it. */
  syncing?: Route
}

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

function isRoute(v: unknown): v is Route {
  const r = v as Partial<Route> | undefined
  return typeof r?.provider === 'string' && r.provider !== '' && typeof r.model === 'string' && r.model !== ''
}

function bare(r: Route): Route {
  return { provider: r.provider, model: r.model }
}

/** Provider, model and reasoning effort of `r`: what the host's selection holds and its composer shows. */
function selected(r: Route): Route {
  return { ...bare(r), ...(r.reasoningEffort === undefined ? {} : { reasoningEffort: r.reasoningEffort }) }
}

/** Whether the composer showing `host` should be given `route`: another model, or the effort `route` asks for. */
function shows(host: Route, route: Route): boolean {
  return (
    sameRoute(host, route) && (route.reasoningEffort === undefined || route.reasoningEffort === host.reasoningEffort)
  )
}

/** What a turn's record keeps of a request's route: the model, and the parameters that shape the answer. */
function turnModel(c: LlmCallConfig): RecordedModel {
  return {
    provider: c.provider,
    model: c.model,
    ...(c.reasoningEffort === undefined ? {} : { reasoningEffort: c.reasoningEffort }),
    ...(c.temperature === undefined ? {} : { temperature: c.temperature }),
    ...(c.maxTokens === undefined ? {} : { maxTokens: c.maxTokens }),
  }
}

/**
 * Install the listeners; everything registered is undone when `ctx` unloads. `ctx` must have `llm` and `agents`.
 * `store` answers with each conversation's own profile; `turns` says who answers a turn the user named a profile for
 * (that profile's model answers that turn alone, and the composer keeps showing the conversation's own).
 */
export function installModelChoice(
  ctx: Context,
  store: ModelStore,
  log: Pick<Log, 'warn'>,
  turns: TurnReader = createTurnReader(store),
  records?: TurnRecords,
): ModelChoiceApi {
  const warnings = new DistinctWarnings(log)
  const states = new Map<Agent, AgentState>()
  const turnModels = new Map<string, Map<number, TurnModel>>()
  const totals = { profile: 0, user: 0, fallback: 0, synced: 0 }
  let lastFallback: ModelChoiceStatus['lastFallback']
  const catalogCache = new Map<string, { at: number; ids: Promise<Set<string>> }>()
  /** Routes (provider/model) whose call failed with a {@link ROUTE_FAILURES} code, with when and the host's words. */
  const refusedAtCall = new Map<string, { at: number; text: string }>()
  // Writes into the host's selection run one at a time across conversations: each reads the user's default before
  // the host overwrites it and puts it back after, and two interleaved ones would put back each other's write.
  let writes: Promise<unknown> = Promise.resolve()

  const llm = () => ctx.get('llm')!

  function modelIds(provider: string): Promise<Set<string>> {
    const hit = catalogCache.get(provider)
    if (hit !== undefined && Date.now() - hit.at < CATALOG_TTL_MS) return hit.ids
    const ids = llm()
      .listModels(provider)
      .then((models) => new Set(models.map((m) => m.id)))
    catalogCache.set(provider, { at: Date.now(), ids })
    ids.catch(() => catalogCache.delete(provider))
    return ids
  }

  const routeKey = (r: Route) => `${r.provider}/${r.model}`

  /**
   * Why the host cannot run `route` now, or undefined when it can. `forSave` leaves out what only holds at call time
   * (a key not stored yet, a recent refusal): a profile may be saved with a model whose key the user adds later.
   */
  async function unavailable(route: Route, forSave = false): Promise<Unavailable | undefined> {
    try {
      if (
        !llm()
          .listProviders()
          .some((p) => p.id === route.provider)
      )
        return { why: 'no-provider', text: `the host has no provider "${route.provider}"` }
      // The host calls a catalog advisory; a provider that lists models but not this one no longer offers it to the
      // user (the composer would not list it either). A provider that lists none cannot say, and is not held to it.
      const ids = await modelIds(route.provider)
      if (ids.size > 0 && !ids.has(route.model))
        return { why: 'not-listed', text: `provider "${route.provider}" does not offer model "${route.model}"` }
      await llm().resolveCallConfig(callConfig(route))
      if (forSave) return undefined
      const ref = await missingKey(keyHost(), route.provider)
      if (ref !== undefined)
        return { why: 'no-key', text: `provider "${route.provider}" has no API key: ${ref} is not set` }
      const refused = refusedAtCall.get(routeKey(route))
      if (refused !== undefined && Date.now() - refused.at < REFUSED_TTL_MS)
        return { why: 'call-failed', text: refused.text, detail: refused.text }
      refusedAtCall.delete(routeKey(route))
      return undefined
    } catch (error) {
      const text = errorText(error)
      // The one refusal of resolveCallConfig the page can word itself; any other is quoted as the host said it.
      if ((error as { code?: unknown } | null)?.code === 'UNSUPPORTED_REASONING_EFFORT' && route.reasoningEffort)
        return { why: 'effort', text, effort: route.reasoningEffort }
      return { why: 'refused', text, detail: text }
    }
  }

  function keyHost(): KeyHost {
    return { llm: llm(), settings: ctx.get('settings') as KeyHost['settings'], credentials: ctx.get('credentials') }
  }

  function callConfig(route: Route): LlmCallConfig {
    return {
      provider: route.provider,
      model: route.model,
      ...(route.reasoningEffort === undefined ? {} : { reasoningEffort: route.reasoningEffort as ReasoningEffortId }),
      ...(route.temperature === undefined ? {} : { temperature: route.temperature }),
    }
  }

  function defaultRoute(): Route | undefined {
    try {
      const selection: unknown = ctx.get('agentDefaultModel')?.currentSelection()
      return isRoute(selection) ? bare(selection) : undefined
    } catch {
      return undefined
    }
  }

  function stateOf(agent: Agent): AgentState {
    let s = states.get(agent)
    if (s === undefined) states.set(agent, (s = { chain: Promise.resolve() }))
    return s
  }

  /** For a conversation this process has not seen: its last logged request ran on the user's pick, not the profile's. */
  function resumedPick(agent: Agent, profileId: string): boolean {
    if (agent.session.requestHeader() === undefined) return false
    const turns = store.turnsOf(agent.id)
    const last = Object.keys(turns)
      .map(Number)
      .sort((a, b) => b - a)[0]
    return last !== undefined && turns[last] === profileId
  }

  /**
   * The decision for the next request of `agent`, given what the host proposes (`host`). The rule's track follows the
   * conversation's own profile; a profile the user named answers its turn on its own model, else on the
   * conversation's, and leaves the track (a pick, the own profile's model) as it was for the turns after it.
   */
  async function decide(agent: Agent, host: Route): Promise<Decision> {
    const s = stateOf(agent)
    const view = turns.of(agent.id)
    const profile = view.own
    const first = s.track === undefined
    const { track, want, source } = step(
      s.track,
      profile.id,
      profile.model,
      host,
      first && resumedPick(agent, profile.id),
    )
    const speaker = view.named ? view.speaker : undefined
    const wanted = speaker === undefined ? profile.model : speaker.model
    let decision: Decision =
      speaker === undefined
        ? { route: want, source, host }
        : wanted !== undefined
          ? { route: routeOfChoice(wanted), source: 'profile', host, speaker: speaker.id }
          : { route: track.own, source: track.picked ? 'user' : 'conversation', host, speaker: speaker.id }
    if (decision.source === 'profile') {
      const reason = await unavailable(decision.route)
      if (reason !== undefined)
        decision = {
          ...(await fallback(agent, track, host, wanted!, reason)),
          ...(speaker === undefined ? {} : { speaker: speaker.id }),
        }
    }
    // The profile's key may have moved on while the host was asked; the newest step wins.
    s.track = { ...track, applied: decision.route }
    s.decided = decision
    return decision
  }

  /** The conversation's model, else the host's default, when the profile's is not offered; said once per cause. */
  async function fallback(
    agent: Agent,
    track: Track,
    host: Route,
    wanted: ModelChoice,
    reason: Unavailable,
  ): Promise<Decision> {
    const candidates = [track.own, host, defaultRoute()].filter(isRoute)
    let route = candidates[0] ?? host
    for (const c of candidates) {
      if (sameRoute(c, wanted)) continue
      if ((await unavailable(bare(c))) === undefined) {
        route = bare(c)
        break
      }
    }
    warnings.warn({
      key: 'model-fallback',
      params: {
        wanted: `${wanted.provider}/${wanted.model}`,
        used: `${route.provider}/${route.model}`,
        session: agent.id,
        why: reason.why,
      },
      ...(reason.detail === undefined ? {} : { detail: reason.detail }),
    })
    return { route, source: 'fallback', host, wanted, why: reason }
  }

  /**
   * Write `route` into the host's own selection of the conversation (web only), so that its composer shows the model
   * that will answer. The host's `session.selectModel` also saves the pick as the global default: the default the user
   * had is put back right after, so a profile never changes what new conversations start on.
   */
  async function sync(agent: Agent, s: AgentState, route: Route): Promise<void> {
    const proxy = ctx.get('apiProxy') as ApiProxyLike | undefined
    if (proxy === undefined || sameRoute(s.syncing, route)) return
    s.syncing = bare(route)
    const run = writes.then(() => write(proxy, agent, s, route))
    writes = run.catch(() => undefined)
    try {
      await run
    } finally {
      s.syncing = undefined
    }
  }

  async function write(proxy: ApiProxyLike, agent: Agent, s: AgentState, route: Route): Promise<void> {
    const settings = ctx.get('settings') as SettingsLike | undefined
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
      warnings.warn({
        key: 'composer-refused',
        params: { model: `${route.provider}/${route.model}`, session: agent.id },
        detail: reply.result.error?.message ?? 'refused',
      })
      return
    }
    totals.synced++
    if (s.track !== undefined && sameRoute(s.track.applied, route)) s.track = { ...s.track, expect: bare(route) }
    if (settings !== undefined && before !== undefined) {
      const user = before.user
      await settings.replace(DEFAULT_MODEL_NS, typeof user === 'object' && user !== null ? user : {})
      retell(settings, before.revision)
    }
  }

  /**
   * Have every open composer read its selection again. The host's composer re-reads it only on the host's
   * `settings/document-updated` event, which the writes above raise when they change the user's saved default; when the
   * route written is that default already (back to the conversation's own model after a profile brought another), the
   * section never changes, no event is raised and the composer keeps showing the profile's model until a reload. The
   * event is then raised here with the section's own revision, unchanged: its listeners only read again.
   */
  function retell(settings: SettingsLike, revision: number | undefined): void {
    const now = settings.describe().find((d) => d.ns === DEFAULT_MODEL_NS)?.revision
    if (now === undefined || now !== revision) return
    ;(ctx.emit as (name: string, ...args: unknown[]) => void)('settings/document-updated', DEFAULT_MODEL_NS, now)
  }

  /** Run `fn` after the conversation's earlier decisions; its failure is a warning, never the host's. */
  function queued<T>(
    agent: Agent,
    what: 'choose-failed' | 'show-failed' | 'fallback-failed',
    fn: (s: AgentState) => Promise<T>,
  ): Promise<T | undefined> {
    const s = stateOf(agent)
    const run = s.chain
      .then(() => fn(s))
      .catch((error: unknown) => {
        warnings.warn({ key: what, detail: errorText(error) })
        return undefined
      })
    s.chain = run
    return run
  }

  const ours = (agent: Agent | undefined): agent is Agent =>
    agent !== undefined && agent.session.header.origin !== 'subagent'

  /** The route the host proposes for `agent` outside a request: its composer's current selection (web only). */
  async function hostSelection(agent: Agent): Promise<Route | undefined> {
    const proxy = ctx.get('apiProxy') as ApiProxyLike | undefined
    if (proxy === undefined) return undefined
    const reply = await proxy.sessions.models({ rpcId: `agent-profiles-${agent.id}`, payload: { sessionId: agent.id } })
    const current = reply.result.value?.current
    return isRoute(current) ? selected(current) : undefined
  }

  /** A conversation opened, or its profile or that profile's model changed: show the model that will answer now. */
  function refresh(agent: Agent): void {
    const s = stateOf(agent)
    const { profile } = store.effective(agent.id)
    if (s.track !== undefined && s.track.key === switchKey(profile.id, profile.model)) return
    // Nothing to show for a conversation that never had a profile's model.
    if (profile.model === undefined && s.track === undefined) return
    // Only the decision waits in the conversation's queue: reading the composer's list (which asks every provider)
    // and writing the selection (settings on disk) must not hold up a turn that starts meanwhile.
    void (async () => {
      const host = await hostSelection(agent)
      if (host === undefined) return
      const decision = await queued(agent, 'show-failed', () => decide(agent, host))
      if (decision !== undefined && !shows(host, decision.route)) await sync(agent, s, selected(decision.route))
    })().catch((error: unknown) => warnings.warn({ key: 'show-failed', detail: errorText(error) }))
  }

  ctx.on(
    'system-prompt/assemble',
    async (_assembly, context, next) => {
      const result = await next()
      const agent = (context as { agent?: Agent }).agent
      if (!ours(agent)) return result
      // A decision stands for the requests of the step assembled now (a retried request included); a step this part
      // cannot decide for goes out as the host made it, never on an older step's decision.
      stateOf(agent).decided = undefined
      const fromVars = { provider: result.variables.provider, model: result.variables.model }
      const logged = agent.session.requestHeader()?.config
      const host = isRoute(fromVars)
        ? fromVars
        : isRoute(logged)
          ? bare(logged)
          : isRoute(agent.options)
            ? bare(agent.options as Route)
            : undefined
      if (host === undefined) return result
      const decision = await queued(agent, 'choose-failed', (s) =>
        decide(agent, host).then((d) => {
          // Not awaited: the composer may catch up while this request goes out on the decided route anyway. A turn
          // answered by a profile the user named leaves the composer on what the turns after it will use.
          if (d.speaker === undefined && !sameRoute(d.route, host)) {
            sync(agent, s, d.route).catch((error: unknown) =>
              warnings.warn({ key: 'composer-failed', detail: errorText(error) }),
            )
          }
          return d
        }),
      )
      if (decision === undefined || sameRoute(decision.route, host)) return result
      return {
        ...result,
        variables: { ...result.variables, provider: decision.route.provider, model: decision.route.model },
      }
    },
    { prepend: true },
  )

  ctx.on(
    'agent/request',
    async (payload, next) => {
      const resolved = await next()
      const { agent, turn } = payload
      if (!ours(agent)) return resolved
      try {
        const d = states.get(agent)?.decided
        if (d !== undefined) noteTurn(agent.id, turn, d)
        const out = applied(resolved, d, agent.session.requestHeader()?.config.temperature)
        if (records !== undefined) records.at(agent.id, turn).model = turnModel(out)
        return out
      } catch (error) {
        warnings.warn({ key: 'apply-failed', detail: errorText(error) })
        return resolved
      }
    },
    { prepend: true },
  )

  // A profile's route the host accepted beforehand can still be refused by the provider when called (a key revoked or
  // mistyped, an account out of quota): once the host's own retry has passed on it, the request is retried on the
  // conversation's model — the loop asks `agent/request` again, which applies the fallback decided here — and the
  // route is passed over for a while, so that the next steps fall back before calling it.
  ctx.on('agent/request-error', async (payload, next) => {
    const downstream = await next()
    if (downstream?.kind === 'retry') return downstream
    const { agent, failure, signal } = payload
    const s = ours(agent) ? states.get(agent) : undefined
    const d = s?.decided
    if (
      s === undefined ||
      d === undefined ||
      d.source !== 'profile' ||
      signal.aborted ||
      !ROUTE_FAILURES.has(failure.code)
    )
      return downstream
    const text = `${failure.code}: ${failure.message}`
    refusedAtCall.set(routeKey(d.route), { at: Date.now(), text })
    const retried = await queued(agent, 'fallback-failed', async () => {
      // A newer step decided meanwhile: its own decision stands.
      if (s.decided !== d || s.track === undefined) return false
      const instead = await fallback(agent, s.track, d.host, d.route, { why: 'call-failed', text, detail: text })
      if (sameRoute(instead.route, d.route)) return false
      s.track = { ...s.track, applied: instead.route }
      s.decided = instead
      return true
    })
    return retried === true ? { kind: 'retry' } : downstream
  })

  /**
   * The reasoning effort of a step decided as `d` whose host proposal (effort `host`) is on the decided model or not
   * (`keepsModel`): a profile's own, else the model's default — except that the conversation's own profile keeps the
   * effort the composer shows for the same model (the user's, or the one written there for the profile), while a
   * profile the user named never takes the conversation's. The conversation's route keeps the host's effort for the
   * same model (the composer's) and its own recorded one otherwise.
   */
  function effortOf(d: Decision | undefined, keepsModel: boolean, host: string | undefined): string | undefined {
    if (d === undefined) return host
    if (d.source === 'profile')
      return d.route.reasoningEffort ?? (keepsModel && d.speaker === undefined ? host : undefined)
    return keepsModel ? host : d.route.reasoningEffort
  }

  /**
   * The host's request config with the step's decision in it: its route, its effort ({@link effortOf}) and its temperature (else one the host chose for this
   * request). The host proposes each request from the previous request's logged header, so a temperature equal to
   * `carried` (that header's) was carried over from whoever answered before, not chosen: it is left out, or a
   * profile's temperature would stay on every later turn of the conversation. Untouched when nothing changes.
   */
  function applied(resolved: LlmCallConfig, d: Decision | undefined, carried: number | undefined): LlmCallConfig {
    const { reasoningEffort, temperature, ...rest } = resolved
    const route = d?.route ?? resolved
    const keepsModel = sameRoute(resolved, route)
    const effort = effortOf(d, keepsModel, reasoningEffort)
    const temp = d?.route.temperature ?? (temperature === carried ? undefined : temperature)
    if (keepsModel && effort === reasoningEffort && temp === temperature) return resolved
    return {
      ...rest,
      provider: route.provider,
      model: route.model,
      ...(effort === undefined ? {} : { reasoningEffort: effort as ReasoningEffortId }),
      ...(temp === undefined ? {} : { temperature: temp }),
    }
  }

  function noteTurn(sessionId: string, turn: number, d: Decision): void {
    let turns = turnModels.get(sessionId)
    if (turns === undefined) {
      turns = new Map()
      if (turnModels.size >= SESSIONS_KEPT) turnModels.delete(turnModels.keys().next().value!)
    } else turnModels.delete(sessionId)
    turnModels.set(sessionId, turns)
    const known = turns.get(turn)
    const entry: TurnModel = {
      provider: d.route.provider,
      model: d.route.model,
      source: d.source,
      ...(d.wanted === undefined ? {} : { wanted: { provider: d.wanted.provider, model: d.wanted.model } }),
      ...(d.why === undefined ? {} : { why: d.why.why, reason: d.why.text, ...detailOf(d.why) }),
    }
    if (known !== undefined && JSON.stringify(known) === JSON.stringify(entry)) return
    // A request retried on the conversation's model after a refused call turns the turn's record into a fallback.
    if (known === undefined || known.source !== entry.source) {
      if (d.source === 'fallback') {
        totals.fallback++
        lastFallback = {
          at: Date.now(),
          sessionId,
          wanted: entry.wanted!,
          used: { provider: entry.provider, model: entry.model },
          why: d.why?.why ?? 'refused',
          reason: d.why?.text ?? '',
          ...(d.why === undefined ? {} : detailOf(d.why)),
        }
      } else if (d.source === 'profile') totals.profile++
      else if (d.source === 'user') totals.user++
    }
    turns.set(turn, entry)
    if (turns.size > TURNS_KEPT) turns.delete(turns.keys().next().value!)
  }

  ctx.on('agent/created', ({ agent }) =>
    warnings.guarded('agent/created', () => {
      if (ours(agent)) refresh(agent)
    }),
  )
  ctx.on('agent/disposed', ({ agent }) => {
    states.delete(agent)
  })
  const stop = store.onChange(() => {
    for (const agent of ctx.get('agents')?.list() ?? []) {
      const s = states.get(agent)
      if (!ours(agent)) continue
      const { profile } = store.effective(agent.id)
      // Most changes (memory writes, notes) leave every conversation's profile and model as they were.
      if (s?.track === undefined ? profile.model !== undefined : s.track.key !== switchKey(profile.id, profile.model))
        refresh(agent)
    }
  })
  ctx.effect(() => () => {
    stop()
    states.clear()
  })

  return {
    async catalog() {
      const failures: ModelCatalog['failures'] = []
      const providers: ModelCatalog['providers'] = []
      for (const p of llm().listProviders()) {
        try {
          const models = await llm().listModels(p.id)
          const entries: ModelCatalog['providers'][number]['models'] = []
          for (const m of models) {
            const info = await llm()
              .resolveModelInfo(p.id, m.id)
              .catch(() => undefined)
            const efforts = info?.reasoning?.efforts.map((e) => ({ id: String(e.id), name: e.name })) ?? []
            entries.push({
              id: m.id,
              name: m.name,
              efforts,
              ...(info?.reasoning?.defaultEffort === undefined
                ? {}
                : { defaultEffort: String(info.reasoning.defaultEffort) }),
            })
          }
          providers.push({ id: p.id, name: p.name, models: entries })
        } catch (error) {
          failures.push({ provider: p.id, detail: errorText(error) })
        }
      }
      return { providers, failures }
    },
    async check(choice, field) {
      const reason = await unavailable(routeOfChoice(choice), true)
      if (reason === undefined) return
      // A save is not held to a stored key or to the last call (the key may come later): these are the reasons left.
      const rule =
        reason.why === 'no-provider' || reason.why === 'not-listed' || reason.why === 'effort'
          ? (`model.${reason.why}` as const)
          : 'model.refused'
      throw brokeRule('invalid', `${field}: names a model the host does not offer: ${reason.text}`, field, rule)
    },
    turns(sessionId) {
      return Object.fromEntries(turnModels.get(sessionId) ?? [])
    },
    status: () => ({
      available: true,
      conversations: states.size,
      totals: { ...totals },
      ...(lastFallback === undefined ? {} : { lastFallback }),
      degraded: warnings.list(),
    }),
  }
}
