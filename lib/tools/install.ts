/**
 * Applies each conversation's tool profile in the host: a per-agent `tools.restrict` hides what the profile does not
 * allow from the model request, and one tool guard refuses any call outside it at execution (a hidden tool can still
 * be named by a model that saw it earlier, or through a Code Mode program). Owns those registrations, their
 * re-evaluation (a store change, a tool registered or withdrawn, and a check at each prompt assembly that follows a
 * change or a move to another agent preset), the measured tool catalogue for the settings page, and the refusal text
 * the model reads.
 * It never caches which profile is in effect (read from the store at every decision), registers nothing restrictive
 * for a `full` conversation, and never throws into the host: a failure leaves the tools as the host offers them, with
 * a warning.
 *
 * Subagents follow the tool profile of the conversation that started them, so a delegated task cannot do what the
 * conversation itself may not. Tools a conversation registers in its own scope (this plugin's `memory_save`, a
 * subagent's `report`) cannot be hidden by the host's restriction; they stay, and the status lists them.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { AssembleContext, PromptAssembly } from '@deepseek-ai/dsh-system-prompt'
import type { ToolExecution } from '@deepseek-ai/dsh-tools'
import type {} from '@deepseek-ai/dsh-agent-presets'
import type { Config } from '../config/config.ts'
import type { Profile, ToolProfileName, ToolSettings } from '../state/model.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import type { ProfileStore } from '../store/store.ts'
import { CODE_TRANSPORT, admits, isFull, profileOf, utf8Bytes, wireEntry } from '../shared/tool-profiles.ts'
import { errorText } from '../shared/errors.ts'
import { DistinctWarnings } from '../log/warnings.ts'
import type { ToolProfileStatus } from '../shared/diagnostics.ts'
import type { Log } from '../shared/log.ts'

/** Catalogue sources (presets) and names per source kept for the settings page. */
const SOURCES_KEPT = 20
const NAMES_KEPT = 500
/** Distinct warnings kept for the diagnostics. */
const WARNINGS_KEPT = 20
/** Tool names listed in a refusal, so the model knows what it can use instead. */
const NAMES_IN_REFUSAL = 40

type ToolsService = Context['tools']

interface Tracked {
  readonly agent: Agent
  /** The deny list in force, sorted; empty when nothing is restricted. */
  denied: string[]
  disposers: Array<() => void>
  /** Names the host refused to restrict for this agent (registered in its own scope). */
  own: Set<string>
  /** What the last assembly-time check saw; the same again means nothing to re-evaluate. */
  checked?: { generation: number; settings: ToolSettings | undefined; source: string }
}

const LABELS: Record<ToolProfileName, string> = {
  full: '完整',
  'read-only': '只读',
  worker: '执行者',
  custom: '自定义',
}

/** The refusal the model reads (the host prefixes it with `Error: `). */
function refusalText(
  tool: string,
  profile: Pick<Profile, 'name'>,
  settings: ToolSettings | undefined,
  usable: readonly string[],
): string {
  const shown = usable.slice(0, NAMES_IN_REFUSAL).join('、') + (usable.length > NAMES_IN_REFUSAL ? ' 等' : '')
  return (
    `工具「${tool}」不在当前智能体配置「${profile.name}」的工具档（${LABELS[profileOf(settings)]}）允许的范围内，` +
    '这次调用被拒绝，没有执行任何操作。' +
    (usable.length > 0
      ? `可以使用的工具：${shown}。请改用这些工具继续完成任务；`
      : '这个配置没有可用的工具，请直接用文字回答；') +
    '如果确实需要这个工具，请告诉用户：可以在智能体配置的设置里更换工具档，或把它加入允许的工具。'
  )
}

/** The host's tools measured per source (an agent preset, or `host`), bounded, for the settings page. */
class ToolCatalogue {
  readonly #bySource = new Map<string, Map<string, number>>()

  has(source: string): boolean {
    return this.#bySource.has(source)
  }

  measure(source: string, schemas: ReadonlyArray<{ name: string; description: string; parameters: unknown }>): void {
    let entry = this.#bySource.get(source)
    if (!entry) {
      if (this.#bySource.size >= SOURCES_KEPT) return
      this.#bySource.set(source, (entry = new Map()))
    }
    for (const schema of schemas) {
      if (schema.name === CODE_TRANSPORT || (entry.size >= NAMES_KEPT && !entry.has(schema.name))) continue
      entry.set(schema.name, utf8Bytes(wireEntry(schema)))
    }
    if (entry.size === 0) this.#bySource.delete(source)
  }

  /** Each source with its tools by name; `first` (the default preset) leads. */
  list(first: string | undefined): ToolProfileStatus['catalogue'] {
    const sources = [...this.#bySource.keys()].sort(
      (a, b) => Number(b === first) - Number(a === first) || a.localeCompare(b),
    )
    return sources.map((source) => ({
      source,
      tools: [...this.#bySource.get(source)!]
        .map(([name, bytes]) => ({ name, bytes }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }))
  }
}

/** Each tracked agent's restriction, kept in line with its profile. */
class Restrictions {
  readonly #byAgent = new Map<Agent, Tracked>()
  /** Names the host refused to restrict for some agent (registered in its own scope). */
  readonly kept = new Set<string>()
  readonly #tools: ToolsService
  readonly #effective: (agent: Agent) => Profile
  readonly #warnings: DistinctWarnings
  readonly #onNewAgent: (agent: Agent) => void
  #applying = false

  constructor(
    tools: ToolsService,
    effective: (agent: Agent) => Profile,
    warnings: DistinctWarnings,
    onNewAgent: (agent: Agent) => void,
  ) {
    this.#tools = tools
    this.#effective = effective
    this.#warnings = warnings
    this.#onNewAgent = onNewAgent
  }

  get(agent: Agent): Tracked | undefined {
    return this.#byAgent.get(agent)
  }

  /** Conversations whose tools are narrowed right now. */
  narrowed(): number {
    return [...this.#byAgent.values()].filter((t) => t.denied.length > 0).length
  }

  #lift(t: Tracked): void {
    for (const dispose of t.disposers.splice(0)) {
      try {
        dispose()
      } catch {
        /* already gone with the agent's scope */
      }
    }
    t.denied = []
  }

  // One restriction per agent; a name the host will not restrict (registered in the agent's own scope) makes the
  // whole call fail, so it is then applied name by name and the refused names are left alone from then on.
  #restrict(t: Tracked, deny: string[]): void {
    const scoped = t.agent.ctx.tools
    try {
      t.disposers.push(scoped.restrict({ deny }))
      t.denied = deny
      return
    } catch {
      /* fall through to one name at a time */
    }
    const applied: string[] = []
    for (const name of deny) {
      try {
        t.disposers.push(scoped.restrict({ deny: [name] }))
        applied.push(name)
      } catch {
        t.own.add(name)
        this.kept.add(name)
      }
    }
    t.denied = applied
  }

  /** Bring one agent's restriction in line with its profile now. Re-entrant calls (our own `tools/change`) are no-ops. */
  #apply(t: Tracked): void {
    if (this.#applying) return
    this.#applying = true
    try {
      const settings = this.#effective(t.agent).tools
      if (isFull(settings)) {
        if (t.disposers.length > 0) this.#lift(t)
        return
      }
      const offered = new Set(t.denied)
      for (const s of this.#tools.schemas(t.agent)) if (s.name !== CODE_TRANSPORT) offered.add(s.name)
      const deny = [...offered].filter((name) => !t.own.has(name) && !admits(settings, name)).sort()
      if (deny.length === t.denied.length && deny.every((name, i) => name === t.denied[i])) return
      this.#lift(t)
      if (deny.length > 0) this.#restrict(t, deny)
    } catch (error) {
      this.#warnings.warn({ key: 'tools-failed', detail: errorText(error) })
    } finally {
      this.#applying = false
    }
  }

  attach(agent: Agent): Tracked {
    let t = this.#byAgent.get(agent)
    if (!t) {
      t = { agent, denied: [], disposers: [], own: new Set() }
      this.#byAgent.set(agent, t)
      this.#onNewAgent(agent)
    }
    this.#apply(t)
    return t
  }

  detach(agent: Agent): void {
    const t = this.#byAgent.get(agent)
    if (!t) return
    this.#lift(t)
    this.#byAgent.delete(agent)
  }

  applyAll(): void {
    for (const t of this.#byAgent.values())
      if (t.disposers.length > 0 || !isFull(this.#effective(t.agent).tools)) this.#apply(t)
  }

  detachAll(): void {
    for (const agent of [...this.#byAgent.keys()]) this.detach(agent)
  }
}

/** The conversation a (sub)agent works for: subagents follow the one that started them. */
function rootOf(agents: NonNullable<Context['agents']>, agent: Agent): string {
  let id: string = agent.id
  let header = agent.session.header
  for (let depth = 0; header.origin === 'subagent' && header.parentSession !== undefined && depth < 32; depth++) {
    id = header.parentSession
    const parent = agents.get(header.parentSession as Agent['id'])
    if (!parent) break
    header = parent.session.header
  }
  return id
}

/**
 * One install's state and its listeners' work: the catalogue, the restrictions, the refusal count, and the generation
 * that tells an assembly whether anything changed since its conversation was last checked.
 */
class ToolProfilesRun {
  readonly catalogue = new ToolCatalogue()
  readonly refusals: { count: number; last?: ToolProfileStatus['lastRefusal'] } = { count: 0 }
  readonly restrictions: Restrictions
  readonly #ctx: Context
  readonly #tools: ToolsService
  readonly #agents: NonNullable<Context['agents']>
  readonly #turns: TurnReader
  readonly #warnings: DistinctWarnings
  // Bumped by every change that can alter a conversation's tool set, so an assembly re-evaluates only after one.
  #generation = 0
  readonly #measured = new Set<string>()

  constructor(
    ctx: Context,
    tools: ToolsService,
    agents: NonNullable<Context['agents']>,
    turns: TurnReader,
    warnings: DistinctWarnings,
  ) {
    this.#ctx = ctx
    this.#tools = tools
    this.#agents = agents
    this.#turns = turns
    this.#warnings = warnings
    this.restrictions = new Restrictions(
      tools,
      (agent) => this.effective(agent),
      warnings,
      (agent) => this.#measurePreset(agent),
    )
  }

  /** The profile whose tool settings rule `agent`: its conversation's speaker (a subagent's, the one that started it). */
  effective(agent: Agent): Profile {
    return this.#turns.of(rootOf(this.#agents, agent)).speaker
  }

  #sourceOf(agent: Agent): string {
    try {
      return this.#ctx.get('agentPresets')?.composedPreset(agent.ctx) ?? 'host'
    } catch {
      return 'host'
    }
  }

  // A preset's standing scope sees every tool it offers, before any conversation's restriction.
  #measurePreset(agent: Agent): void {
    const source = this.#sourceOf(agent)
    if (source === 'host' || this.catalogue.has(source)) return
    const roster = this.#ctx.get('agentPresets')
    if (!roster) return
    roster
      .standingKeyFor(source)
      .then((key) => this.catalogue.measure(source, this.#tools.schemas(key)))
      .catch((error: unknown) =>
        this.#warnings.warn({ key: 'measure-failed', params: { preset: source }, detail: errorText(error) }),
      )
  }

  /** Something that can alter a conversation's tool set happened: re-evaluate every tracked agent now. */
  changed(event: string, toolsChanged: boolean): void {
    this.#generation++
    if (toolsChanged) this.#measured.clear()
    this.#warnings.guarded(event, () => this.restrictions.applyAll())
  }

  /**
   * The last word before a request: the eager paths miss a conversation moved to another preset before its first
   * message (the host re-links its scope without a tool change). A full conversation passes through untouched.
   */
  onAssembled(agent: Agent | undefined, out: PromptAssembly): PromptAssembly {
    if (!agent) return out
    let denied: string[] = []
    this.#warnings.guarded('system-prompt/assemble', () => {
      denied = this.#deniedAt(agent, out)
    })
    if (denied.length === 0 || !out.tools.some((s) => denied.includes(s.name))) return out
    return { ...out, tools: out.tools.filter((s) => !denied.includes(s.name)) }
  }

  #deniedAt(agent: Agent, out: PromptAssembly): string[] {
    const source = this.#sourceOf(agent)
    if (!this.#measured.has(source)) {
      this.catalogue.measure(source, out.tools)
      this.#measured.add(source)
    }
    const settings = this.effective(agent).tools
    const generation = this.#generation
    const c = this.restrictions.get(agent)?.checked
    if (c && c.generation === generation && c.settings === settings && c.source === source)
      return this.restrictions.get(agent)!.denied
    const now = this.restrictions.attach(agent)
    now.checked = { generation, settings, source }
    return now.denied
  }

  /** The execution guard: a refusal for a call outside the conversation's profile, else undefined. */
  guard(exec: Readonly<ToolExecution>): string | undefined {
    try {
      const agent = exec.agent
      if (!agent || exec.name === CODE_TRANSPORT) return undefined
      const profile = this.effective(agent)
      if (isFull(profile.tools) || admits(profile.tools, exec.name) || this.restrictions.get(agent)?.own.has(exec.name))
        return undefined
      this.refusals.count++
      this.refusals.last = { at: Date.now(), tool: exec.name, profileId: profile.id }
      const usable = this.#tools
        .schemas(agent)
        .map((s) => s.name)
        .filter((name) => admits(profile.tools, name))
      return refusalText(exec.name, profile, profile.tools, usable)
    } catch (error) {
      this.#warnings.warn({ key: 'guard-failed', detail: errorText(error) })
      return undefined
    }
  }
}

/** The status of an install: `run` is absent when the host lacks `missing`. */
function statusOf(
  warnings: DistinctWarnings,
  run: ToolProfilesRun | undefined,
  first: string | undefined,
  missing?: 'tools' | 'agents',
): ToolProfileStatus {
  return {
    available: missing === undefined,
    ...(missing === undefined ? {} : { reason: `the host has no "${missing}" service`, missing }),
    catalogue: run?.catalogue.list(first) ?? [],
    narrowed: run?.restrictions.narrowed() ?? 0,
    refused: run?.refusals.count ?? 0,
    ...(run?.refusals.last ? { lastRefusal: run.refusals.last } : {}),
    kept: [...(run?.restrictions.kept ?? [])].sort(),
    degraded: warnings.list(),
  }
}

/**
 * Install tool profiles: track every agent, narrow the ones whose profile is not `full`, guard execution. Returns the
 * status reader; everything registered is undone when `ctx` unloads.
 */
export function installToolProfiles(
  ctx: Context,
  store: Pick<ProfileStore, 'effective' | 'onChange'>,
  _config: Config,
  log: Pick<Log, 'warn'>,
  turns: TurnReader = createTurnReader(store),
): { status(): ToolProfileStatus } {
  const warnings = new DistinctWarnings(log, WARNINGS_KEPT)
  const tools = ctx.get('tools') as ToolsService | undefined
  const agents = ctx.get('agents')
  if (!tools || !agents) {
    const missing = tools ? 'agents' : 'tools'
    warnings.warn({ key: 'tools-off', params: { service: missing } })
    return { status: () => statusOf(warnings, undefined, undefined, missing) }
  }
  const run = new ToolProfilesRun(ctx, tools, agents, turns, warnings)
  const tracked = run.restrictions
  // Synchronous: `agent/created` is not awaited, and a throw there would veto the agent.
  ctx.on('agent/created', ({ agent }) =>
    warnings.guarded('agent/created', () => {
      tracked.attach(agent)
    }),
  )
  ctx.on('agent/disposed', ({ agent }) => warnings.guarded('agent/disposed', () => tracked.detach(agent)))
  ctx.on('tools/change', () => run.changed('tools/change', true))
  ctx.effect(
    () => turns.onChange(() => run.changed('profiles/change', false)),
    'agent-profiles: tool profiles follow the store',
  )
  ctx.on(
    'system-prompt/assemble',
    async (_assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>) =>
      run.onAssembled(context.agent, await next()),
  )
  ctx.effect(() => tools.guard((exec) => run.guard(exec)), 'agent-profiles: tool profile guard')
  for (const agent of agents.list())
    warnings.guarded('agents/attach', () => {
      tracked.attach(agent)
    })
  warnings.guarded('tools/measure', () => run.catalogue.measure('host', tools.schemas()))
  ctx.effect(() => () => tracked.detachAll())
  return { status: () => statusOf(warnings, run, defaultPreset(ctx)) }
}

/** The default agent preset's id, if the host has presets and can say. */
function defaultPreset(ctx: Context): string | undefined {
  try {
    return ctx.get('agentPresets')?.defaultId
  } catch {
    return undefined
  }
}
