/**
 * A profile's model on every model call of its conversations' turns. Owns the host listeners that apply it — an
 * `agent/request` waterfall listener and a `system-prompt/assemble` one, both registered with `prepend` so that they
 * wrap the host's own per-agent model selection (which would otherwise overwrite provider and model) — the fallback
 * to the conversation's model when the host does not offer the profile's now (model-availability.ts says why), the
 * retry on the conversation's model of a request the profile's route refused at call time, showing the route in the
 * host's composer (composer-selection.ts), and writing each request's model and parameters into the turn's record
 * (lib/turn/record.ts), which the ledger keeps. Each step's model, effort and temperature are decided anew from the
 * profile answering it (a profile the user named, else the conversation's own) and the user's pick
 * (model-step.ts puts the decision into the request): nothing of one speaker's turn carries over to the next. The
 * rule itself (a profile's model, a later composer pick, a switch) is model-rule.ts's.
 *
 * It never writes the session log itself (the host logs each request's header), never fails a turn (every fault
 * degrades to the host's own choice with a warning), and leaves subagents on the host's choice.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { LlmCallConfig } from '@deepseek-ai/dsh-llm'
import type { PromptAssembly } from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent-loop'
import type { ModelChoice } from '../state/model.ts'
import type { ModelCatalog, TurnModel } from '../shared/models.ts'
import type { ModelChoiceStatus } from '../shared/diagnostics.ts'
import type { ProfileStore } from '../store/store.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import type { TurnRecords } from '../turn/record.ts'
import { errorText } from '../shared/errors.ts'
import { DistinctWarnings } from '../log/warnings.ts'
import { ComposerSelection } from './composer-selection.ts'
import { ModelAvailability } from './model-availability.ts'
import { routeOfChoice, sameRoute, step, switchKey, type Route, type Track } from './model-rule.ts'
import {
  applied,
  bare,
  isRoute,
  recordedModel,
  selected,
  shows,
  type AgentState,
  type Decision,
  type Unavailable,
} from './model-step.ts'
import { TurnModels } from './turn-models.ts'
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

/**
 * Failure codes of a model call that say the route itself cannot serve this user (a key refused or absent, an account
 * out of quota, a model the endpoint does not know), as opposed to a passing fault the host's own retry repeats.
 */
const ROUTE_FAILURES = new Set(['AUTH', 'MISSING_CREDENTIAL', 'INVALID_CREDENTIAL', 'QUOTA', 'HTTP_404'])

/** What the host's agent-request listeners are handed, as this part reads it. */
type RequestPayload = { agent: Agent; turn: number }
/** What the host's request-error listeners are handed, as this part reads it. */
type RequestErrorPayload = { agent: Agent; failure: { code: string; message: string }; signal: AbortSignal }

/** Whether `agent` is a conversation of ours: a subagent stays on the host's choice. */
const ours = (agent: Agent | undefined): agent is Agent =>
  agent !== undefined && agent.session.header.origin !== 'subagent'

/** The model choice of every conversation: its decisions, and what it applies at each host event. */
class ModelChoiceRun {
  readonly warnings: DistinctWarnings
  readonly availability: ModelAvailability
  readonly models = new TurnModels()
  readonly composer: ComposerSelection
  readonly #ctx: Context
  readonly #store: ModelStore
  readonly #turns: TurnReader
  readonly #records: TurnRecords | undefined
  readonly #states = new Map<Agent, AgentState>()

  constructor(ctx: Context, store: ModelStore, log: Pick<Log, 'warn'>, turns: TurnReader, records?: TurnRecords) {
    this.#ctx = ctx
    this.#store = store
    this.#turns = turns
    this.#records = records
    this.warnings = new DistinctWarnings(log)
    this.availability = new ModelAvailability(ctx)
    this.composer = new ComposerSelection(ctx, this.warnings)
  }

  #stateOf(agent: Agent): AgentState {
    let s = this.#states.get(agent)
    if (s === undefined) this.#states.set(agent, (s = { chain: Promise.resolve() }))
    return s
  }

  /** For a conversation this process has not seen: its last logged request ran on the user's pick, not the profile's. */
  #resumedPick(agent: Agent, profileId: string): boolean {
    if (agent.session.requestHeader() === undefined) return false
    const turns = this.#store.turnsOf(agent.id)
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
  async decide(agent: Agent, host: Route): Promise<Decision> {
    const s = this.#stateOf(agent)
    const view = this.#turns.of(agent.id)
    const profile = view.own
    const first = s.track === undefined
    const resumed = first && this.#resumedPick(agent, profile.id)
    const { track, want, source } = step(s.track, profile.id, profile.model, host, resumed)
    const speaker = view.named ? view.speaker : undefined
    const wanted = speaker === undefined ? profile.model : speaker.model
    let decision: Decision =
      speaker === undefined
        ? { route: want, source, host }
        : wanted !== undefined
          ? { route: routeOfChoice(wanted), source: 'profile', host, speaker: speaker.id }
          : { route: track.own, source: track.picked ? 'user' : 'conversation', host, speaker: speaker.id }
    if (decision.source === 'profile') {
      const reason = await this.availability.unavailable(decision.route)
      if (reason !== undefined)
        decision = {
          ...(await this.#fallback(agent, track, host, wanted!, reason)),
          ...(speaker === undefined ? {} : { speaker: speaker.id }),
        }
    }
    // The profile's key may have moved on while the host was asked; the newest step wins.
    s.track = { ...track, applied: decision.route }
    s.decided = decision
    return decision
  }

  /** The conversation's model, else the host's default, when the profile's is not offered; said once per cause. */
  async #fallback(
    agent: Agent,
    track: Track,
    host: Route,
    wanted: ModelChoice,
    reason: Unavailable,
  ): Promise<Decision> {
    const candidates = [track.own, host, this.availability.defaultRoute()].filter(isRoute)
    let route = candidates[0] ?? host
    for (const c of candidates) {
      if (sameRoute(c, wanted)) continue
      if ((await this.availability.unavailable(bare(c))) === undefined) {
        route = bare(c)
        break
      }
    }
    this.warnings.warn({
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

  /** Run `fn` after the conversation's earlier decisions; its failure is a warning, never the host's. */
  #queued<T>(
    agent: Agent,
    what: 'choose-failed' | 'show-failed' | 'fallback-failed',
    fn: (s: AgentState) => Promise<T>,
  ): Promise<T | undefined> {
    const s = this.#stateOf(agent)
    const run = s.chain
      .then(() => fn(s))
      .catch((error: unknown) => {
        this.warnings.warn({ key: what, detail: errorText(error) })
        return undefined
      })
    s.chain = run
    return run
  }

  /** A conversation opened, or its profile or that profile's model changed: show the model that will answer now. */
  refresh(agent: Agent): void {
    const s = this.#stateOf(agent)
    const { profile } = this.#store.effective(agent.id)
    if (s.track !== undefined && s.track.key === switchKey(profile.id, profile.model)) return
    // Nothing to show for a conversation that never had a profile's model.
    if (profile.model === undefined && s.track === undefined) return
    // Only the decision waits in the conversation's queue: reading the composer's list (which asks every provider)
    // and writing the selection (settings on disk) must not hold up a turn that starts meanwhile.
    void (async () => {
      const host = await this.composer.current(agent)
      if (host === undefined) return
      const decision = await this.#queued(agent, 'show-failed', () => this.decide(agent, host))
      if (decision !== undefined && !shows(host, decision.route))
        await this.composer.sync(agent, s, selected(decision.route))
    })().catch((error: unknown) => this.warnings.warn({ key: 'show-failed', detail: errorText(error) }))
  }

  /** The route the host proposes for a step assembled as `result`: its variables, else its last request, else its options. */
  #proposal(agent: Agent, result: PromptAssembly): Route | undefined {
    const fromVars = { provider: result.variables.provider, model: result.variables.model }
    const logged = agent.session.requestHeader()?.config
    if (isRoute(fromVars)) return fromVars
    if (isRoute(logged)) return bare(logged)
    return isRoute(agent.options) ? bare(agent.options as Route) : undefined
  }

  /** `system-prompt/assemble`, after the host's: decide the step's route and put it in the prompt's variables. */
  async onAssembled(agent: Agent | undefined, result: PromptAssembly): Promise<PromptAssembly> {
    if (!ours(agent)) return result
    // A decision stands for the requests of the step assembled now (a retried request included); a step this part
    // cannot decide for goes out as the host made it, never on an older step's decision.
    this.#stateOf(agent).decided = undefined
    const host = this.#proposal(agent, result)
    if (host === undefined) return result
    const decision = await this.#queued(agent, 'choose-failed', (s) =>
      this.decide(agent, host).then((d) => {
        // Not awaited: the composer may catch up while this request goes out on the decided route anyway. A turn
        // answered by a profile the user named leaves the composer on what the turns after it will use.
        if (d.speaker === undefined && !sameRoute(d.route, host)) {
          this.composer
            .sync(agent, s, d.route)
            .catch((error: unknown) => this.warnings.warn({ key: 'composer-failed', detail: errorText(error) }))
        }
        return d
      }),
    )
    if (decision === undefined || sameRoute(decision.route, host)) return result
    return {
      ...result,
      variables: { ...result.variables, provider: decision.route.provider, model: decision.route.model },
    }
  }

  /**
   * `agent/request`, after the host's: the step's decision put into the request, and the request's model and
   * parameters written into the turn's record and handed to the ledger.
   */
  onRequest({ agent, turn }: RequestPayload, resolved: LlmCallConfig): LlmCallConfig {
    if (!ours(agent)) return resolved
    try {
      const d = this.#states.get(agent)?.decided
      if (d !== undefined) this.models.note(agent.id, turn, d)
      const out = applied(resolved, d, agent.session.requestHeader()?.config.temperature)
      if (this.#records !== undefined) {
        const record = this.#records.at(agent.id, turn)
        record.model = recordedModel(out)
        this.#records.save(record)
      }
      return out
    } catch (error) {
      this.warnings.warn({ key: 'apply-failed', detail: errorText(error) })
      return resolved
    }
  }

  /**
   * `agent/request-error`, after the host's own retry passed on it: a profile's route the host accepted beforehand
   * can still be refused by the provider when called (a key revoked or mistyped, an account out of quota). The
   * request is then retried on the conversation's model — the loop asks `agent/request` again, which applies the
   * fallback decided here — and the route is passed over for a while, so that the next steps fall back before calling
   * it. Whether to retry.
   */
  async onRequestError({ agent, failure, signal }: RequestErrorPayload): Promise<boolean> {
    const s = ours(agent) ? this.#states.get(agent) : undefined
    const d = s?.decided
    if (s === undefined || d === undefined || d.source !== 'profile' || signal.aborted) return false
    if (!ROUTE_FAILURES.has(failure.code)) return false
    const text = `${failure.code}: ${failure.message}`
    this.availability.refuse(d.route, text)
    const retried = await this.#queued(agent, 'fallback-failed', async () => {
      // A newer step decided meanwhile: its own decision stands.
      if (s.decided !== d || s.track === undefined) return false
      const why: Unavailable = { why: 'call-failed', text, detail: text }
      const instead = await this.#fallback(agent, s.track, d.host, d.route, why)
      if (sameRoute(instead.route, d.route)) return false
      s.track = { ...s.track, applied: instead.route }
      s.decided = instead
      return true
    })
    return retried === true
  }

  /** The store changed: show the model again in the conversations whose profile or profile's model changed. */
  onStoreChange(): void {
    for (const agent of this.#ctx.get('agents')?.list() ?? []) {
      const s = this.#states.get(agent)
      if (!ours(agent)) continue
      const { profile } = this.#store.effective(agent.id)
      // Most changes (memory writes, notes) leave every conversation's profile and model as they were.
      if (s?.track === undefined ? profile.model !== undefined : s.track.key !== switchKey(profile.id, profile.model))
        this.refresh(agent)
    }
  }

  /** A conversation opened. */
  onCreated(agent: Agent): void {
    if (ours(agent)) this.refresh(agent)
  }

  /** A conversation closed: nothing of it is kept. */
  forget(agent?: Agent): void {
    if (agent === undefined) this.#states.clear()
    else this.#states.delete(agent)
  }

  status(): ModelChoiceStatus {
    return {
      available: true,
      conversations: this.#states.size,
      totals: { ...this.models.totals, synced: this.composer.synced },
      ...(this.models.lastFallback === undefined ? {} : { lastFallback: this.models.lastFallback }),
      degraded: this.warnings.list(),
    }
  }
}

/**
 * Install the listeners; everything registered is undone when `ctx` unloads. `ctx` must have `llm` and `agents`.
 * `store` answers with each conversation's own profile; `turns` says who answers a turn the user named a profile for
 * (that profile's model answers that turn alone, and the composer keeps showing the conversation's own); `records`
 * takes each request's model and parameters into its turn's record.
 */
export function installModelChoice(
  ctx: Context,
  store: ModelStore,
  log: Pick<Log, 'warn'>,
  turns: TurnReader = createTurnReader(store),
  records?: TurnRecords,
): ModelChoiceApi {
  const run = new ModelChoiceRun(ctx, store, log, turns, records)
  ctx.on(
    'system-prompt/assemble',
    async (_assembly, context, next) => run.onAssembled((context as { agent?: Agent }).agent, await next()),
    { prepend: true },
  )
  ctx.on('agent/request', async (payload, next) => run.onRequest(payload, await next()), { prepend: true })
  ctx.on('agent/request-error', async (payload, next) => {
    const downstream = await next()
    if (downstream?.kind === 'retry') return downstream
    return (await run.onRequestError(payload)) ? { kind: 'retry' } : downstream
  })
  ctx.on('agent/created', ({ agent }) => run.warnings.guarded('agent/created', () => run.onCreated(agent)))
  ctx.on('agent/disposed', ({ agent }) => run.forget(agent))
  const stop = store.onChange(() => run.onStoreChange())
  ctx.effect(() => () => {
    stop()
    run.forget()
  })
  return {
    catalog: () => run.availability.catalog(),
    check: (choice, field) => run.availability.check(choice, field),
    turns: (sessionId) => run.models.of(sessionId),
    status: () => run.status(),
  }
}
