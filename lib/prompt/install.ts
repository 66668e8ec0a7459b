/**
 * Puts the rendered profile into every model request. Owns the prompt registrations — a global pair of sections that
 * follows the global default, and a same-name pair in each agent's own scope for that conversation — plus the one-time
 * "profile changed" notice, the per-turn ledger writes and the injection diagnostics.
 * It never caches which profile is current (text is computed at every assembly), never writes the session log and
 * never throws into the host: a failure degrades to "no injection" with a warning.
 *
 * Layout, for prompt-cache reuse: the stable persona sits at order 20 (right after the host persona, before tool
 * guidance) and the volatile memory at order 900 (the end of the system prompt), so a memory change leaves every
 * byte before it untouched. `systemPrompt.context()` was rejected: the loop writes each context snapshot into the
 * session log, so a deleted or switched-off memory would stay in the history the model reads.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent-loop'
import type { Profile, SessionSetting } from '../shared/model.ts'
import type { Config } from '../config.ts'
import type { ProfileStore } from '../store/store.ts'
import { measure, renderParts, renderSwitchNotice, type Rendered, type RenderedParts } from './render.ts'
import { errorText } from '../errors.ts'
import type { PromptDiagnostics } from '../shared/contract.ts'

/** The stable half's section name (the same in the global layer and in every agent scope) and its order. */
export const PERSONA_SECTION = 'agent-profiles:persona'
export const PERSONA_ORDER = 20
/** The volatile half: memory and the one-time switch notice. */
export const MEMORY_SECTION = 'agent-profiles:memory'
export const MEMORY_ORDER = 900

/** Conversations whose last rendered size the diagnostics keep (most recently assembled). */
const SIZES_KEPT = 200
/** Distinct warnings kept (and not repeated in the log) for the diagnostics. */
const WARNINGS_KEPT = 20

/** The logger the host half passes around. */
export interface PromptLog { warn(msg: string): void }

/** The store surface this module reads. */
export type PromptStore = Pick<ProfileStore, 'state' | 'effective' | 'command' | 'turnsOf'>

interface Seen { profileId: string; name: string }

/** One render, reused while the store hands back the same (frozen, never mutated) profile and setting objects. */
interface Memo { profile: Profile; setting: SessionSetting | undefined; parts: RenderedParts; size: Rendered }

interface Tracked {
  readonly agent: Agent
  readonly subagent: boolean
  readonly disposers: Array<() => void>
  memo?: Memo
  /** The profile of the latest assembly, acknowledged when its request starts (`agent/pre-step`). */
  assembled?: Seen
  /** The profile the model was last told about: undefined until known, null when there is no previous request. */
  seen?: Seen | null
  recorded?: { turn: number; profileId: string }
}

/**
 * Register the sections and the agent listeners. Returns the diagnostics reader; everything registered is undone when
 * `ctx` unloads.
 */
export function installPrompt(ctx: Context, store: PromptStore, config: Pick<Config, 'memoryBudget' | 'subagents'>, log: PromptLog): { diagnostics(): PromptDiagnostics } {
  const assemblies = { conversation: 0, global: 0, subagent: 0 }
  const sizes = new Map<string, PromptDiagnostics['sessions'][string]>()
  const warnings: string[] = []
  const tracked = new Map<Agent, Tracked>()
  const options = { memoryBudget: config.memoryBudget }
  const diagnostics = (): PromptDiagnostics => ({
    assemblies: { ...assemblies }, sessions: Object.fromEntries(sizes), agents: tracked.size, warnings: [...warnings],
  })
  const warn = (msg: string) => {
    if (warnings.includes(msg)) return
    if (warnings.push(msg) > WARNINGS_KEPT) warnings.shift()
    log.warn(msg)
  }
  // A text provider that throws fails the user's turn; an empty section only loses the injection for one request.
  const safe = (what: string, fn: () => string) => {
    try {
      return fn()
    } catch (error) {
      warn(`agent-profiles: ${what} failed, injected nothing: ${errorText(error)}`)
      return ''
    }
  }

  const render = (memo: { memo?: Memo }, profile: Profile, setting: SessionSetting | undefined): Memo => {
    const m = memo.memo
    if (m && m.profile === profile && m.setting === setting) return m
    const parts = renderParts(profile, setting, options)
    return (memo.memo = { profile, setting, parts, size: measure(parts) })
  }

  const prompt = ctx.get('systemPrompt')
  if (!prompt) {
    warn('agent-profiles: the systemPrompt service is missing; profiles are not injected')
    return { diagnostics }
  }

  // Global layer: assemblies without a conversation of ours (no agent, or an agent whose own sections are missing).
  const global: { memo?: Memo } = {}
  prompt.section({
    name: PERSONA_SECTION, order: PERSONA_ORDER,
    text: () => safe('global persona', () => {
      assemblies.global++
      return render(global, store.effective().profile, undefined).parts.persona
    }),
  })
  prompt.section({
    name: MEMORY_SECTION, order: MEMORY_ORDER,
    text: () => safe('global memory', () => render(global, store.effective().profile, undefined).parts.memory),
  })

  const noteSize = (sessionId: string, profileId: string, size: Rendered) => {
    sizes.delete(sessionId)
    sizes.set(sessionId, { profileId, chars: size.chars, tokens: size.tokens, memoryCut: size.memoryCut, at: Date.now() })
    if (sizes.size > SIZES_KEPT) sizes.delete(sizes.keys().next().value!)
  }

  // The previous request's profile after a restart comes from the turn ledger: the newest recorded turn.
  const baseline = (sessionId: string): Seen | null => {
    const turns = store.turnsOf(sessionId)
    const last = Object.keys(turns).map(Number).sort((a, b) => b - a)[0]
    if (last === undefined) return null
    const profileId = turns[last]!
    return { profileId, name: store.state.profiles.find((p) => p.id === profileId)?.name ?? '' }
  }

  const conversationPersona = (t: Tracked) => {
    assemblies.conversation++
    const sessionId = t.agent.id
    const { profile, setting } = store.effective(sessionId)
    const m = render(t, profile, setting)
    if (t.seen === undefined) t.seen = baseline(sessionId)
    t.assembled = { profileId: profile.id, name: profile.name }
    noteSize(sessionId, profile.id, m.size)
    return m.parts.persona
  }

  const conversationMemory = (t: Tracked) => {
    const { profile, setting } = store.effective(t.agent.id)
    const m = render(t, profile, setting)
    const seen = t.seen
    if (!seen || seen.profileId === profile.id) return m.parts.memory
    const fromName = store.state.profiles.find((p) => p.id === seen.profileId)?.name ?? seen.name
    const notice = renderSwitchNotice(fromName || undefined, profile.name, m.parts.persona !== '')
    return m.parts.memory ? `${notice}\n\n${m.parts.memory}` : notice
  }

  // A subagent works for its parent: by default it gets no persona (its own task prompt rules), or, with
  // `subagents: 'inherit'`, exactly what its parent conversation gets, minus the switch notice.
  const subagentPart = (t: Tracked, part: 'persona' | 'memory') => {
    if (part === 'persona') assemblies.subagent++
    const parent = t.agent.session.header.parentSession
    if (config.subagents !== 'inherit' || parent === undefined) return ''
    const { profile, setting } = store.effective(parent)
    return render(t, profile, setting).parts[part]
  }

  const attach = (agent: Agent) => {
    if (tracked.has(agent)) return
    const scoped = agent.ctx.get('systemPrompt')
    if (!scoped) {
      warn('agent-profiles: systemPrompt is not reachable from an agent scope; those conversations use the global default')
      return
    }
    const t: Tracked = { agent, subagent: agent.session.header.origin === 'subagent', disposers: [] }
    try {
      t.disposers.push(scoped.section({
        name: PERSONA_SECTION, order: PERSONA_ORDER,
        text: () => safe('conversation persona', () => t.subagent ? subagentPart(t, 'persona') : conversationPersona(t)),
      }))
      t.disposers.push(scoped.section({
        name: MEMORY_SECTION, order: MEMORY_ORDER,
        text: () => safe('conversation memory', () => t.subagent ? subagentPart(t, 'memory') : conversationMemory(t)),
      }))
    } catch (error) {
      detach(t)
      warn(`agent-profiles: could not register a conversation's sections, it uses the global default: ${errorText(error)}`)
      return
    }
    tracked.set(agent, t)
  }

  const detach = (t: Tracked) => {
    for (const dispose of t.disposers.splice(0)) {
      try {
        dispose()
      } catch {
        // Already gone with the agent's own scope.
      }
    }
    tracked.delete(t.agent)
  }

  // The request for this step is about to go out with what was just assembled: the model has now been told about
  // this profile, and it answers this turn.
  const acknowledge = (agent: Agent, turn: number) => {
    const t = tracked.get(agent)
    if (!t || t.subagent || !t.assembled) return
    const answered = t.assembled
    t.seen = answered
    if (t.recorded?.turn === turn && t.recorded.profileId === answered.profileId) return
    t.recorded = { turn, profileId: answered.profileId }
    store.command({ op: 'turn.record', sessionId: agent.id, turn, profileId: answered.profileId })
      .catch((error: unknown) => log.warn(`agent-profiles: could not record turn ${turn}: ${errorText(error)}`))
  }

  const guarded = (what: string, fn: () => void) => {
    try {
      fn()
    } catch (error) {
      warn(`agent-profiles: ${what} failed: ${errorText(error)}`)
    }
  }

  // Synchronous on purpose: `agent/created` is not awaited, and only synchronous work is sure to precede the first
  // assembly. Nothing may escape it — a throw there vetoes the agent.
  ctx.on('agent/created', ({ agent }) => guarded('agent/created', () => attach(agent)))
  ctx.on('agent/disposed', ({ agent }) => guarded('agent/disposed', () => { const t = tracked.get(agent); if (t) detach(t) }))
  // After the other listeners: only a step that still goes to the model (the loop skips an empty first step) counts.
  ctx.on('agent/pre-step', async ({ agent, turn, step }, next) => {
    const decision = await next()
    if (decision.kind === 'enter' && (decision.messages.length > 0 || step > 1)) guarded('agent/pre-step', () => acknowledge(agent, turn))
    return decision
  })
  const agents = ctx.get('agents')
  if (agents) for (const agent of agents.list()) guarded('attach', () => attach(agent))
  else warn('agent-profiles: the agents service is missing; every request uses the global default')

  ctx.effect(() => () => {
    for (const t of [...tracked.values()]) detach(t)
  })
  return { diagnostics }
}
