/**
 * What the model choice (model-choice.ts) decides for one step of a conversation and how it lands on the host's request:
 * the decision's shape, the small route helpers, and the pure rule that puts a decision into the host's request config
 * (route, reasoning effort, temperature). It never calls the host and keeps no state: a decision is made anew for each
 * step and handed in.
 */
import type { LlmCallConfig, ReasoningEffortId } from '@deepseek-ai/dsh-llm'
import type { ModelChoice } from '../state/model.ts'
import type { ModelUnavailable } from '../shared/reasons.ts'
import type { UnavailableDetail } from '../shared/models.ts'
import type { RecordedModel } from '../state/schema-state.ts'
import { sameRoute, type Route, type RouteSource, type Track } from './model-rule.ts'

/** Why the host cannot run a route: its English for the log, and what the page says beside the reason. */
export interface Unavailable extends UnavailableDetail {
  why: ModelUnavailable
  text: string
}

/**
 * What one step of a conversation was decided to run on: the step's whole record of its model, reasoning effort and
 * temperature (in `route`) and who answers. It is made anew at each step's assembly from the answering profile and the
 * user's pick, and nothing of it passes to the next step: a speaker's controls belong to its own turn.
 */
export interface Decision {
  route: Route
  source: RouteSource | 'fallback'
  /** The profile the user named for this turn when it is not the conversation's own. */
  speaker?: string
  /** The host's proposal the decision was made against. */
  host: Route
  wanted?: ModelChoice
  why?: Unavailable
}

/** What the model choice keeps of one conversation (one agent) between its steps. */
export interface AgentState {
  track?: Track
  decided?: Decision
  /** Decisions of one conversation run one at a time (an assembly and a profile switch may race). */
  chain: Promise<unknown>
  /** The route being written into the host's selection right now, so that two steps do not both write it. */
  syncing?: Route
}

/** The fields of `why` the page words a reason with, those it has only. */
export function detailOf(why: Unavailable): UnavailableDetail {
  return {
    ...(why.effort === undefined ? {} : { effort: why.effort }),
    ...(why.detail === undefined ? {} : { detail: why.detail }),
  }
}

/** Whether `v` names a provider and a model, both non-empty. */
export function isRoute(v: unknown): v is Route {
  const r = v as Partial<Route> | undefined
  return typeof r?.provider === 'string' && r.provider !== '' && typeof r.model === 'string' && r.model !== ''
}

/** Provider and model of `r`, without its controls. */
export function bare(r: Route): Route {
  return { provider: r.provider, model: r.model }
}

/** Provider, model and reasoning effort of `r`: what the host's selection holds and its composer shows. */
export function selected(r: Route): Route {
  return { ...bare(r), ...(r.reasoningEffort === undefined ? {} : { reasoningEffort: r.reasoningEffort }) }
}

/** Whether the composer showing `host` should be given `route`: another model, or the effort `route` asks for. */
export function shows(host: Route, route: Route): boolean {
  return (
    sameRoute(host, route) && (route.reasoningEffort === undefined || route.reasoningEffort === host.reasoningEffort)
  )
}

/** The host's call config of `route`: its provider, model, effort and temperature. */
export function callConfig(route: Route): LlmCallConfig {
  return {
    provider: route.provider,
    model: route.model,
    ...(route.reasoningEffort === undefined ? {} : { reasoningEffort: route.reasoningEffort as ReasoningEffortId }),
    ...(route.temperature === undefined ? {} : { temperature: route.temperature }),
  }
}

/** What a turn's record keeps of a request's route: the model, and the parameters that shape the answer. */
export function recordedModel(c: LlmCallConfig): RecordedModel {
  return {
    provider: c.provider,
    model: c.model,
    ...(c.reasoningEffort === undefined ? {} : { reasoningEffort: c.reasoningEffort }),
    ...(c.temperature === undefined ? {} : { temperature: c.temperature }),
    ...(c.maxTokens === undefined ? {} : { maxTokens: c.maxTokens }),
  }
}

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
 * The host's request config with the step's decision in it: its route, its effort ({@link effortOf}) and its
 * temperature (else one the host chose for this request). The host proposes each request from the previous request's
 * logged header, so a temperature equal to `carried` (that header's) was carried over from whoever answered before,
 * not chosen: it is left out, or a profile's temperature would stay on every later turn of the conversation.
 * Untouched when nothing changes.
 */
export function applied(resolved: LlmCallConfig, d: Decision | undefined, carried: number | undefined): LlmCallConfig {
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
