/**
 * Whether the host can run a model now, for the model choice (model-choice.ts): the host still offers the provider
 * and lists the model, accepts its reasoning effort, has its API key, and the provider did not refuse it at call time
 * a moment ago. Owns the short-lived cache of each provider's model list, the routes refused at call time, the host's
 * default route, the model lists the editor shows and the check a save runs. It never changes the host's selection
 * and never throws for a route it cannot run: it says why.
 */
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-agent-default-model'
import type {} from '@deepseek-ai/dsh-credentials'
import type { ModelChoice } from '../state/model.ts'
import type { ModelCatalog } from '../shared/models.ts'
import { errorText } from '../shared/errors.ts'
import { brokeRule } from '../validate/core.ts'
import { missingKey, type KeyHost } from './model-key.ts'
import { routeOfChoice, type Route } from './model-rule.ts'
import { bare, callConfig, isRoute, type Unavailable } from './model-step.ts'

/** How long the host's model list of a provider is reused before it is asked again (it is asked before each step). */
const CATALOG_TTL_MS = 5_000
/**
 * How long a profile's route refused at call time is passed over before it is tried again: without it every step
 * would pay one failed call before its retry, and after it a key the user stored meanwhile is used again.
 */
const REFUSED_TTL_MS = 60_000

const routeKey = (r: Route) => `${r.provider}/${r.model}`

/** What the host offers now, as the model choice asks it. */
export class ModelAvailability {
  readonly #ctx: Context
  readonly #catalogCache = new Map<string, { at: number; ids: Promise<Set<string>> }>()
  /** Routes (provider/model) whose call failed with a route failure, with when and the host's words. */
  readonly #refusedAtCall = new Map<string, { at: number; text: string }>()

  constructor(ctx: Context) {
    this.#ctx = ctx
  }

  #llm() {
    return this.#ctx.get('llm')!
  }

  #modelIds(provider: string): Promise<Set<string>> {
    const hit = this.#catalogCache.get(provider)
    if (hit !== undefined && Date.now() - hit.at < CATALOG_TTL_MS) return hit.ids
    const ids = this.#llm()
      .listModels(provider)
      .then((models) => new Set(models.map((m) => m.id)))
    this.#catalogCache.set(provider, { at: Date.now(), ids })
    ids.catch(() => this.#catalogCache.delete(provider))
    return ids
  }

  #keyHost(): KeyHost {
    const ctx = this.#ctx
    return {
      llm: this.#llm(),
      settings: ctx.get('settings') as KeyHost['settings'],
      credentials: ctx.get('credentials'),
    }
  }

  /** Pass `route` over for a while: its provider refused a call in the host's words `text`. */
  refuse(route: Route, text: string): void {
    this.#refusedAtCall.set(routeKey(route), { at: Date.now(), text })
  }

  /**
   * Why the host cannot run `route` now, or undefined when it can. `forSave` leaves out what only holds at call time
   * (a key not stored yet, a recent refusal): a profile may be saved with a model whose key the user adds later.
   */
  async unavailable(route: Route, forSave = false): Promise<Unavailable | undefined> {
    try {
      if (
        !this.#llm()
          .listProviders()
          .some((p) => p.id === route.provider)
      )
        return { why: 'no-provider', text: `the host has no provider "${route.provider}"` }
      // The host calls a catalog advisory; a provider that lists models but not this one no longer offers it to the
      // user (the composer would not list it either). A provider that lists none cannot say, and is not held to it.
      const ids = await this.#modelIds(route.provider)
      if (ids.size > 0 && !ids.has(route.model))
        return { why: 'not-listed', text: `provider "${route.provider}" does not offer model "${route.model}"` }
      await this.#llm().resolveCallConfig(callConfig(route))
      if (forSave) return undefined
      return await this.#atCall(route)
    } catch (error) {
      const text = errorText(error)
      // The one refusal of resolveCallConfig the page can word itself; any other is quoted as the host said it.
      if ((error as { code?: unknown } | null)?.code === 'UNSUPPORTED_REASONING_EFFORT' && route.reasoningEffort)
        return { why: 'effort', text, effort: route.reasoningEffort }
      return { why: 'refused', text, detail: text }
    }
  }

  /** Why `route` cannot be called now although the host offers it: no key stored, or a refusal a moment ago. */
  async #atCall(route: Route): Promise<Unavailable | undefined> {
    const ref = await missingKey(this.#keyHost(), route.provider)
    if (ref !== undefined)
      return { why: 'no-key', text: `provider "${route.provider}" has no API key: ${ref} is not set` }
    const refused = this.#refusedAtCall.get(routeKey(route))
    if (refused !== undefined && Date.now() - refused.at < REFUSED_TTL_MS)
      return { why: 'call-failed', text: refused.text, detail: refused.text }
    this.#refusedAtCall.delete(routeKey(route))
    return undefined
  }

  /** The host's default route (the user's saved default model), when it has one. */
  defaultRoute(): Route | undefined {
    try {
      const selection: unknown = this.#ctx.get('agentDefaultModel')?.currentSelection()
      return isRoute(selection) ? bare(selection) : undefined
    } catch {
      return undefined
    }
  }

  /** The host's providers with their models and each model's reasoning efforts, for the editor. */
  async catalog(): Promise<ModelCatalog> {
    const failures: ModelCatalog['failures'] = []
    const providers: ModelCatalog['providers'] = []
    for (const p of this.#llm().listProviders()) {
      try {
        providers.push({ id: p.id, name: p.name, models: await this.#modelsOf(p.id) })
      } catch (error) {
        failures.push({ provider: p.id, detail: errorText(error) })
      }
    }
    return { providers, failures }
  }

  async #modelsOf(provider: string): Promise<ModelCatalog['providers'][number]['models']> {
    const llm = this.#llm()
    const entries: ModelCatalog['providers'][number]['models'] = []
    for (const m of await llm.listModels(provider)) {
      const info = await llm.resolveModelInfo(provider, m.id).catch(() => undefined)
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
    return entries
  }

  /** Refuse (a StoreError naming `field`) a choice the host does not offer now. */
  async check(choice: ModelChoice, field: string): Promise<void> {
    const reason = await this.unavailable(routeOfChoice(choice), true)
    if (reason === undefined) return
    // A save is not held to a stored key or to the last call (the key may come later): these are the reasons left.
    const rule =
      reason.why === 'no-provider' || reason.why === 'not-listed' || reason.why === 'effort'
        ? (`model.${reason.why}` as const)
        : 'model.refused'
    throw brokeRule('invalid', `${field}: names a model the host does not offer: ${reason.text}`, field, rule)
  }
}
