/**
 * Puts the rendered profile into every model request. Owns the prompt registrations — a global pair of sections that
 * follows the global default, and a same-name pair in each agent's own scope for that conversation — plus the one-time
 * "profile changed" notice, the per-turn ledger writes (which profile answered, which memory items the requests carried)
 * and the injection diagnostics.
 * It never caches which profile is current (text is computed at every assembly), never writes the session log and
 * never throws into the host: a failure degrades to "no injection" with a warning.
 *
 * Layout, for prompt-cache reuse: the stable persona sits at order 20 (right after the host persona, before tool
 * guidance) and the volatile memory at order 900 (the end of the system prompt), so a memory change leaves every
 * byte before it untouched. `systemPrompt.context()` was rejected: the loop writes each context snapshot into the
 * session log, so a deleted or switched-off memory would stay in the history the model reads.
 *
 * Cache-stable memory (`cacheStableMemory`): a conversation keeps the memory half it rendered while only the model's
 * tool, the background job and compression write, so its whole system prompt stays byte-identical and the provider
 * reuses the cached history; a hand edit to a list it reads, a profile switch or the ⚙ panel's refresh renders it anew.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import type {} from '@deepseek-ai/dsh-agent-loop'
import {
  hasContent,
  historyKey,
  userItemsOf,
  type MemoryItem,
  type MemoryWrite,
  type MemoryWriter,
  type Profile,
  type SessionSetting,
  type State,
  type UsedMemory,
} from '../state/model.ts'
import type { Config } from '../config/config.ts'
import type { ProfileStore } from '../store/store.ts'
import { measure, renderParts, renderSwitchNotice, type Rendered, type RenderedParts } from './render.ts'
import { errorText } from '../shared/errors.ts'
import { DistinctWarnings } from '../log/warnings.ts'
import type { PromptDiagnostics } from '../shared/diagnostics.ts'
import type { Speakers } from './speakers-install.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import { TurnRecords } from '../turn/record.ts'
import { TurnLedger, union } from '../turn/ledger.ts'
import type { Log } from '../shared/log.ts'
import { lastIdOf } from '../state/lazy-list.ts'

/** The stable half's section name (the same in the global layer and in every agent scope) and its order. */
const PERSONA_SECTION = 'agent-profiles:persona'
const PERSONA_ORDER = 20
/** The volatile half: memory and the one-time switch notice. */
const MEMORY_SECTION = 'agent-profiles:memory'
const MEMORY_ORDER = 900

/** Conversations whose last rendered size the diagnostics keep (most recently assembled). */
const SIZES_KEPT = 200
/** Distinct warnings kept (and not repeated in the log) for the diagnostics. */
const WARNINGS_KEPT = 20

/** The store surface this module reads. */
export type PromptStore = Pick<ProfileStore, 'state' | 'effective' | 'command' | 'turnsOf' | 'readOnly' | 'file'>

/** What the prompt part reads of the configuration. */
export type PromptConfig = Pick<Config, 'memoryBudget' | 'recallBudget' | 'subagents' | 'cacheStableMemory'>

interface Seen {
  profileId: string
  name: string
}

/** One render, reused while the store hands back the same (frozen, never mutated) profile, setting and user layer. */
interface Memo {
  profile: Profile
  setting: SessionSetting | undefined
  user: readonly MemoryItem[]
  parts: RenderedParts
  size: Rendered
}

/**
 * The memory half a conversation keeps under cache-stable memory, with what it was rendered from and, per memory list
 * it reads, the newest history entry it has accounted for.
 */
interface KeptMemory {
  profile: Profile
  setting: SessionSetting | undefined
  user: readonly MemoryItem[]
  marks: Map<string, string | undefined>
  parts: RenderedParts
}

interface Tracked {
  readonly agent: Agent
  readonly subagent: boolean
  readonly disposers: Array<() => void>
  memo?: Memo
  /** Per profile id: several speakers take turns in one conversation, and each keeps its own memory half. */
  kept?: Map<string, KeptMemory>
  /** The conversation's own profile the kept halves belong to: a change of it (a switch) renders them anew. */
  keptOwn?: string
  /** The profile of the latest assembly and the memory items it carried, acknowledged when its request starts
   * (`agent/pre-step`). */
  assembled?: Seen & { used: UsedMemory[] }
  /** The profile the model was last told about: undefined until known, null when there is no previous request. */
  seen?: Seen | null
}

/** What the diagnostics count: assemblies per layer, the latest rendered size per conversation, distinct warnings. */
class InjectionStats extends DistinctWarnings {
  readonly assemblies = { conversation: 0, global: 0, subagent: 0 }
  readonly #sizes = new Map<string, PromptDiagnostics['sessions'][string]>()

  constructor(log: Pick<Log, 'warn'>) {
    super(log, WARNINGS_KEPT)
  }

  /** A text provider that throws fails the user's turn; an empty section only loses the injection for one request. */
  safe(section: 'persona' | 'memory', scope: 'global' | 'conversation', fn: () => string): string {
    try {
      return fn()
    } catch (error) {
      this.warn({ key: `${section}-failed`, params: { scope }, detail: errorText(error) })
      return ''
    }
  }

  /** Remember a conversation's latest rendered size, most recently assembled last. */
  noteSize(sessionId: string, profileId: string, size: Rendered): void {
    this.#sizes.delete(sessionId)
    this.#sizes.set(sessionId, {
      profileId,
      chars: size.chars,
      tokens: size.tokens,
      memoryCut: size.memoryCut,
      at: Date.now(),
    })
    if (this.#sizes.size > SIZES_KEPT) this.#sizes.delete(this.#sizes.keys().next().value!)
  }

  snapshot(agents: number): PromptDiagnostics {
    return {
      assemblies: { ...this.assemblies },
      sessions: Object.fromEntries(this.#sizes),
      agents,
      degraded: this.list(),
    }
  }
}

/** The render of `profile` + `setting` + the user layer, reused from `holder.memo` while all are the same objects. */
function rendered(
  holder: { memo?: Memo },
  profile: Profile,
  setting: SessionSetting | undefined,
  user: readonly MemoryItem[],
  config: Pick<PromptConfig, 'memoryBudget' | 'recallBudget'>,
): Memo {
  const m = holder.memo
  if (m && m.profile === profile && m.setting === setting && m.user === user) return m
  const parts = renderParts(profile, setting, {
    memoryBudget: config.memoryBudget,
    user,
    recall: config.recallBudget > 0,
  })
  return (holder.memo = { profile, setting, user, parts, size: measure(parts) })
}

/**
 * Writers that leave a running conversation's memory as it is under cache-stable memory: the tool's and the job's
 * facts come from the conversation the model is having (it read them there), and compression only restates what is
 * known. Everyone else — the user typing, an import, an undo or revert — is a hand edit and applies at the next turn.
 */
const BACKGROUND_WRITERS: ReadonlySet<MemoryWriter> = new Set(['tool', 'auto', 'compress'])

/** Whether `entry` changes what the model reads: a write touching only suggestions (never injected) does not. */
function visible(entry: MemoryWrite): boolean {
  return (
    entry.summary !== undefined ||
    entry.added.some((it) => it.pending !== true) ||
    entry.removed.some((it) => it.pending !== true) ||
    entry.edited.some((e) => e.before.pending !== true || e.after.pending !== true)
  )
}

/** The memory lists (history keys) the memory half of `sessionId` reads under `profile`: every layer renderMemory
 * renders has its list here, so a hand edit of any of them re-renders a kept memory. */
function listsRead(profile: Profile, sessionId: string): string[] {
  return [historyKey({ profileId: profile.id }), historyKey({ sessionId }), historyKey({ user: true })]
}

/**
 * Whether a hand edit was written to list `key` after its entry `mark` (undefined: the list had no entry). A mark
 * that aged out of the history, or a history that went (factory restore), cannot be vouched for and counts as one.
 * Walks only the entries newer than the mark.
 */
function handEditedSince(history: State['history'], key: string, mark: string | undefined): boolean {
  const list = history?.[key]
  if (list === undefined) return mark !== undefined
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i]!
    if (entry.id === mark) return false
    if (!BACKGROUND_WRITERS.has(entry.who) && visible(entry)) return true
  }
  return mark !== undefined
}

/** Whether `kept` may still stand for `profile` + `setting`; when it may, it now accounts for the newest entries. */
function keptStands(
  kept: KeptMemory,
  profile: Profile,
  setting: SessionSetting | undefined,
  user: readonly MemoryItem[],
  sessionId: string,
  history: State['history'],
): boolean {
  const was = kept.profile
  // Another profile, or the same id made anew (factory restore, replacing import), or memory switched on or off, or
  // a profile whose content went or came (its memory goes and comes with it), or the user asked for a refresh.
  if (
    was.id !== profile.id ||
    was.createdAt !== profile.createdAt ||
    was.memoryEnabled !== profile.memoryEnabled ||
    hasContent(was) !== hasContent(profile) ||
    kept.setting?.memoryRefreshedAt !== setting?.memoryRefreshedAt
  )
    return false
  const keys = listsRead(profile, sessionId)
  if (keys.some((key) => handEditedSince(history, key, kept.marks.get(key)))) return false
  kept.profile = profile
  kept.setting = setting
  kept.user = user
  for (const key of keys) kept.marks.set(key, lastIdOf(history?.[key]))
  return true
}

/**
 * The texts of the sections: the global layer's, and each tracked conversation's (persona, memory with the one-time
 * switch notice, or a subagent's share of its parent's), with what the conversation was last told.
 */
class SectionTexts {
  readonly #store: PromptStore
  readonly #config: PromptConfig
  readonly #stats: InjectionStats
  readonly #global: { memo?: Memo } = {}
  readonly #speakers: Pick<Speakers, 'notice'> | undefined
  readonly #turns: TurnReader

  constructor(
    store: PromptStore,
    config: PromptConfig,
    stats: InjectionStats,
    turns: TurnReader,
    speakers?: Pick<Speakers, 'notice'>,
  ) {
    this.#store = store
    this.#config = config
    this.#stats = stats
    this.#turns = turns
    this.#speakers = speakers
  }

  #render(holder: { memo?: Memo }, profile: Profile, setting: SessionSetting | undefined): Memo {
    return rendered(holder, profile, setting, userItemsOf(this.#store.state), this.#config)
  }

  /** Assemblies without a conversation of ours (no agent, or an agent whose own sections are missing). */
  globalPersona(): string {
    this.#stats.assemblies.global++
    return this.#render(this.#global, this.#store.effective().profile, undefined).parts.persona
  }

  globalMemory(): string {
    return this.#render(this.#global, this.#store.effective().profile, undefined).parts.memory
  }

  /** The previous request's profile after a restart comes from the turn ledger: the newest recorded turn. */
  #baseline(sessionId: string): Seen | null {
    const turns = this.#store.turnsOf(sessionId)
    const last = Object.keys(turns)
      .map(Number)
      .sort((a, b) => b - a)[0]
    if (last === undefined) return null
    const profileId = turns[last]!
    return { profileId, name: this.#store.state.profiles.find((p) => p.id === profileId)?.name ?? '' }
  }

  persona(t: Tracked): string {
    if (t.subagent) return this.#subagentPart(t, 'persona')
    this.#stats.assemblies.conversation++
    const sessionId = t.agent.id
    const { speaker: profile, setting } = this.#turns.of(sessionId)
    const m = this.#render(t, profile, setting)
    if (t.seen === undefined) t.seen = this.#baseline(sessionId)
    t.assembled = { profileId: profile.id, name: profile.name, used: [] }
    this.#stats.noteSize(sessionId, profile.id, m.size)
    return m.parts.persona
  }

  memory(t: Tracked): string {
    if (t.subagent) return this.#subagentPart(t, 'memory')
    const { speaker: profile, setting } = this.#turns.of(t.agent.id)
    const m = this.#render(t, profile, setting)
    const { memory, used } = this.#memoryParts(t, t.agent.id, profile, setting, m)
    if (t.assembled?.profileId === profile.id) t.assembled.used = used
    const seen = t.seen
    // A profile the user named answers this turn, or answered the last: that notice replaces the switch notice.
    const spoken = this.#speakers?.notice(t.agent.id, seen?.profileId)
    if (spoken !== undefined) return [spoken, memory].filter((part) => part !== '').join('\n\n')
    if (!seen || seen.profileId === profile.id) return memory
    const fromName = this.#store.state.profiles.find((p) => p.id === seen.profileId)?.name ?? seen.name
    const notice = renderSwitchNotice(fromName || undefined, profile.name, m.parts.persona !== '')
    return memory ? `${notice}\n\n${memory}` : notice
  }

  /** The memory half this request carries: the one the conversation keeps while it stands, else `m`'s (now kept). */
  #memoryParts(
    t: Tracked,
    sessionId: string,
    profile: Profile,
    setting: SessionSetting | undefined,
    m: Memo,
  ): RenderedParts {
    if (!this.#config.cacheStableMemory) return m.parts
    const own = this.#turns.of(sessionId).own.id
    if (t.kept === undefined || t.keptOwn !== own) {
      t.kept = new Map()
      t.keptOwn = own
    }
    const k = t.kept.get(profile.id)
    // Reading the state costs a look at the database for other processes' commits: only after a change.
    if (k !== undefined && k.profile === profile && k.setting === setting && k.user === m.user) return k.parts
    const history = this.#store.state.history
    if (k !== undefined && keptStands(k, profile, setting, m.user, sessionId, history)) return k.parts
    t.kept.set(profile.id, {
      profile,
      setting,
      user: m.user,
      parts: m.parts,
      marks: new Map(listsRead(profile, sessionId).map((key) => [key, lastIdOf(history?.[key])])),
    })
    return m.parts
  }

  /** The memory half of `t`'s next request: the items it carries (what recall must not send again) and its size. */
  core(t: Tracked): CoreMemory {
    if (t.subagent) return { used: [], chars: 0 }
    const { speaker: profile, setting } = this.#turns.of(t.agent.id)
    const parts = this.#memoryParts(t, t.agent.id, profile, setting, this.#render(t, profile, setting))
    return { used: parts.used, chars: parts.memory.length }
  }

  // A subagent works for its parent: by default it gets no persona (its own task prompt rules), or, with
  // `subagents: 'inherit'`, exactly what its parent conversation gets, minus the switch notice.
  #subagentPart(t: Tracked, part: 'persona' | 'memory'): string {
    if (part === 'persona') this.#stats.assemblies.subagent++
    const parent = t.agent.session.header.parentSession
    if (this.#config.subagents !== 'inherit' || parent === undefined) return ''
    const { speaker: profile, setting } = this.#turns.of(parent)
    const m = this.#render(t, profile, setting)
    return part === 'persona' ? m.parts.persona : this.#memoryParts(t, parent, profile, setting, m).memory
  }
}

/** The agents that carry their own sections: attaching and detaching them, and acknowledging what a request sent. */
class TrackedAgents {
  readonly #byAgent = new Map<Agent, Tracked>()
  readonly #texts: SectionTexts
  readonly #stats: InjectionStats
  readonly #records: TurnRecords

  constructor(texts: SectionTexts, stats: InjectionStats, records: TurnRecords) {
    this.#texts = texts
    this.#stats = stats
    this.#records = records
  }

  /** What the memory half of `agent`'s next request carries; nothing for an agent without sections of its own. */
  core(agent: Agent): CoreMemory {
    const t = this.#byAgent.get(agent)
    return t === undefined ? { used: [], chars: 0 } : this.#texts.core(t)
  }

  get size(): number {
    return this.#byAgent.size
  }

  attach(agent: Agent): void {
    if (this.#byAgent.has(agent)) return
    const scoped = agent.ctx.get('systemPrompt')
    if (!scoped) {
      this.#stats.warn({ key: 'no-scoped-prompt' })
      return
    }
    const t: Tracked = { agent, subagent: agent.session.header.origin === 'subagent', disposers: [] }
    try {
      t.disposers.push(
        scoped.section({
          name: PERSONA_SECTION,
          order: PERSONA_ORDER,
          text: () => this.#stats.safe('persona', 'conversation', () => this.#texts.persona(t)),
        }),
      )
      t.disposers.push(
        scoped.section({
          name: MEMORY_SECTION,
          order: MEMORY_ORDER,
          text: () => this.#stats.safe('memory', 'conversation', () => this.#texts.memory(t)),
        }),
      )
    } catch (error) {
      this.#detach(t)
      this.#stats.warn({ key: 'sections-failed', detail: errorText(error) })
      return
    }
    this.#byAgent.set(agent, t)
  }

  detach(agent: Agent): void {
    const t = this.#byAgent.get(agent)
    if (t) this.#detach(t)
    this.#records.forget(agent.id)
  }

  #detach(t: Tracked): void {
    for (const dispose of t.disposers.splice(0)) {
      try {
        dispose()
      } catch {
        // Already gone with the agent's own scope.
      }
    }
    this.#byAgent.delete(t.agent)
  }

  detachAll(): void {
    for (const t of [...this.#byAgent.values()]) this.#detach(t)
  }

  // The request for this step is about to go out with what was just assembled: the model has now been told about
  // this profile, and it answers this turn.
  acknowledge(agent: Agent, turn: number): void {
    const t = this.#byAgent.get(agent)
    if (!t || t.subagent || !t.assembled) return
    const answered = t.assembled
    t.seen = { profileId: answered.profileId, name: answered.name }
    const record = this.#records.at(agent.id, turn)
    // A turn's later steps add what their requests carried that its first did not (a hand edit mid-turn).
    record.core = record.speakerId === answered.profileId ? union(record.core, answered.used) : answered.used
    record.speakerId = answered.profileId
    this.#records.save(record)
  }
}

/** What the memory half of a conversation's next request carries: its items, and its characters. */
export interface CoreMemory {
  used: UsedMemory[]
  chars: number
}

/** What installPrompt hands back: the diagnostics reader, and what the memory half of a conversation carries. */
export interface PromptPart {
  diagnostics(): PromptDiagnostics
  core(agent: Agent): CoreMemory
}

/** What else the prompt part works with: who answers a turn, the speakers' notice, and the turns' records. */
export interface PromptWith {
  /** Who answers each conversation's turn (none: the conversation's own profile answers every turn). */
  turns?: TurnReader
  speakers?: Pick<Speakers, 'notice'>
  /**
   * The record of each running turn, which recall and the model choice write into too, and the ledger it is handed to
   * (none: a record of its own, written to the store's ledger).
   */
  records?: TurnRecords
}

/**
 * Register the sections and the agent listeners. `with_.turns` names the profile that answers a conversation's turn
 * (the global sections follow `store.effective()`, the default profile); `with_.speakers` words the notice of a change of
 * speaker; the turn's record (`with_.records`) holds what recall sent, which the ledger records. Returns the diagnostics reader
 * and the core reader; everything registered is undone when `ctx` unloads.
 */
export function installPrompt(
  ctx: Context,
  store: PromptStore,
  config: PromptConfig,
  log: Pick<Log, 'warn'>,
  with_: PromptWith = {},
): PromptPart {
  const stats = new InjectionStats(log)
  const texts = new SectionTexts(store, config, stats, with_.turns ?? createTurnReader(store), with_.speakers)
  const tracked = new TrackedAgents(texts, stats, with_.records ?? new TurnRecords(new TurnLedger(store, log)))
  const diagnostics = (): PromptDiagnostics => stats.snapshot(tracked.size)
  const core = (agent: Agent) => tracked.core(agent)

  const prompt = ctx.get('systemPrompt')
  if (!prompt) {
    stats.warn({ key: 'no-system-prompt' })
    return { diagnostics, core }
  }
  prompt.section({
    name: PERSONA_SECTION,
    order: PERSONA_ORDER,
    text: () => stats.safe('persona', 'global', () => texts.globalPersona()),
  })
  prompt.section({
    name: MEMORY_SECTION,
    order: MEMORY_ORDER,
    text: () => stats.safe('memory', 'global', () => texts.globalMemory()),
  })

  // Synchronous on purpose: `agent/created` is not awaited, and only synchronous work is sure to precede the first
  // assembly. Nothing may escape it — a throw there vetoes the agent.
  ctx.on('agent/created', ({ agent }) => stats.guarded('agent/created', () => tracked.attach(agent)))
  ctx.on('agent/disposed', ({ agent }) => stats.guarded('agent/disposed', () => tracked.detach(agent)))
  // After the other listeners: only a step that still goes to the model (the loop skips an empty first step) counts.
  ctx.on('agent/pre-step', async ({ agent, turn, step }, next) => {
    const decision = await next()
    if (decision.kind === 'enter' && (decision.messages.length > 0 || step > 1))
      stats.guarded('agent/pre-step', () => tracked.acknowledge(agent, turn))
    return decision
  })
  const agents = ctx.get('agents')
  if (agents) for (const agent of agents.list()) stats.guarded('agents/attach', () => tracked.attach(agent))
  else stats.warn({ key: 'no-agents' })

  ctx.effect(() => () => tracked.detachAll())
  return { diagnostics, core }
}
