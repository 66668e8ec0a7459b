/**
 * Recall in the host: when a user message of a conversation is claimed for a turn, the memory items of that
 * conversation's scope most relevant to the conversation so far, the new message first (lib/memory/recall.ts ranks,
 * lib/memory/search.ts looks them up), go to the
 * model as runtime context — `systemPrompt.context`, which the loop renders after the new user message and appends
 * to the conversation's log only when its text changed. So the cached system prompt stays byte-identical, a fact saved
 * a minute ago is recallable at once, and a block once sent stays in the log: each turn sends only what this
 * conversation has not been sent yet, and keeps the previous text (nothing appended) when nothing new is relevant.
 * Owns the per-conversation record of what was sent and the recall diagnostics; what it sent in a turn goes into that
 * turn's record (lib/turn/record.ts), which the ledger keeps. It never writes memory and never throws into the host.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-system-prompt'
import { performance } from 'node:perf_hooks'
import type { Config } from '../config/config.ts'
import type { RecallStatus } from '../shared/diagnostics.ts'
import { createTurnReader, type TurnReader } from '../turn/reader.ts'
import type { TurnRecords } from '../turn/record.ts'
import type { ProfileStore } from '../store/store.ts'
import { inertBraces } from '../prompt/render.ts'
import type { CoreMemory } from '../prompt/install.ts'
import { errorText } from '../shared/errors.ts'
import { DistinctWarnings } from '../log/warnings.ts'
import {
  EARLIER_MESSAGES,
  heldBy,
  lineText,
  pickRecall,
  recallQuery,
  recalledTexts,
  renderRecall,
  type Said,
  type Scored,
} from './recall.ts'
import { scopeLists, searchLists } from './search.ts'
import { indexFigures } from './index-size.ts'
import type { Log } from '../shared/log.ts'

/** The runtime-context contribution's name and order (among contexts; ours is the only one most turns). */
const RECALL_CONTEXT = 'agent-profiles:recall'
const RECALL_ORDER = 500

/** Items ranked per query: more than a budget can hold, so the cut is the budget's, not the lookup's. */
const HITS = 40
/** Events of the log read back for the messages before the new one: enough for a few exchanges with tool calls. */
const EVENTS_READ = 400

/** What one conversation was sent, and what its current turn asks. */
interface Conversation {
  /** A user message claimed for a turn, not recalled for yet. */
  question?: { turn: number; text: string }
  /** The recall text the conversation's runtime context holds now. */
  block: string
  /** The texts (one line each) this conversation was sent, by this process or, read from its log, an earlier one. */
  sent: Set<string>
}

/** What installRecall hands back. */
export interface RecallPart {
  status(): RecallStatus
}

const textOf = (content: readonly { type: string; text?: string }[]) =>
  content
    .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
    .join('\n')
    .trim()
const keyOf = (s: Scored) => `${s.layer}:${s.item.id}`

/** The plugin name the host's runtime-context snapshots carry as their source. */
const SNAPSHOT_SOURCE = '@deepseek-ai/dsh-system-prompt'

/**
 * What the conversation's log already holds of recall: its runtime-context snapshots stay in the log, so after a
 * restart (or when another process ran the conversation) their lines still count as sent, and the text recall last
 * contributed is its text now — returning anything else would make the host append a new snapshot (or, for '', one
 * saying that earlier snapshots no longer apply). Read once per conversation.
 */
function fromLog(agent: Agent): Pick<Conversation, 'sent' | 'block'> {
  const sent = new Set<string>()
  let block = ''
  for (const event of agent.session.events) {
    if (event.type !== 'user/message') continue
    const message = event.data as {
      source?: { kind?: string; plugin?: string; sections?: { name: string; text: string }[] }
      content?: { type: string; text?: string }[]
    }
    if (
      message.source?.kind !== 'plugin' ||
      message.source.plugin !== SNAPSHOT_SOURCE ||
      !Array.isArray(message.content)
    )
      continue
    for (const text of recalledTexts(textOf(message.content))) sent.add(text)
    block = message.source.sections?.find((section) => section.name === RECALL_CONTEXT)?.text ?? ''
  }
  return { sent, block }
}

/**
 * What recall may send this turn: the prompt's memory is one budget, `memoryBudget` + `recallBudget`, of which the
 * core (the memory half of the system prompt, `coreChars` long) takes its share first.
 */
export function turnBudget(config: Pick<Config, 'recallBudget' | 'memoryBudget'>, coreChars: number): number {
  return config.recallBudget + Math.max(0, config.memoryBudget - coreChars)
}

/**
 * The user's and the assistant's messages before `newest` in the conversation's log, oldest first, at most
 * {@link EARLIER_MESSAGES} (read from the end of the log, at most {@link EVENTS_READ} events back). The newest message
 * may already be in the log; it is the query's own and is left out.
 */
function earlierMessages(agent: Agent, newest: string): Said[] {
  const out: Said[] = []
  const events = agent.session.events
  let skipped = false
  for (let i = events.length - 1; i >= 0 && i >= events.length - EVENTS_READ && out.length < EARLIER_MESSAGES; i--) {
    const event = events[i]!
    let said: Said | undefined
    if (event.type === 'user/message') {
      const m = event.data as { source?: { kind?: string }; content?: { type: string; text?: string }[] }
      if (m.source?.kind === 'user' && Array.isArray(m.content)) said = { role: 'user', text: textOf(m.content) }
    } else if (event.type === 'assistant/message') {
      const m = (event.data as { message?: { content?: { type: string; text?: string }[] } }).message
      if (Array.isArray(m?.content)) said = { role: 'assistant', text: textOf(m.content) }
    }
    if (said === undefined || said.text === '') continue
    if (!skipped && out.length === 0 && said.role === 'user' && said.text === newest) {
      skipped = true
      continue
    }
    out.unshift(said)
  }
  return out
}

/** The diagnostics' figures of the last recall. */
type Last = RecallStatus['last']

/**
 * Recall of one plugin load: what each conversation was sent (read back from its log when first met), the recall run
 * when a claimed message's turn assembles its runtime context, and the diagnostics.
 */
class Recaller {
  readonly #store: ProfileStore
  readonly #config: Pick<Config, 'recallBudget' | 'memoryBudget'>
  readonly #core: (agent: Agent) => CoreMemory
  readonly #records: TurnRecords
  readonly #turns: TurnReader
  readonly #warnings: DistinctWarnings
  readonly #conversations = new WeakMap<Agent, Conversation>()
  readonly #totals = { recalls: 0, sent: 0, items: 0 }
  #last: Last = null

  constructor(
    store: ProfileStore,
    config: Pick<Config, 'recallBudget' | 'memoryBudget'>,
    log: Pick<Log, 'warn'>,
    core: (agent: Agent) => CoreMemory,
    records: TurnRecords,
    turns: TurnReader,
  ) {
    this.#store = store
    this.#config = config
    this.#core = core
    this.#records = records
    this.#turns = turns
    this.#warnings = new DistinctWarnings(log, 10)
  }

  /** The diagnostics: whether recall runs (`reason` says why not), its budget, the index, the last recall, the totals. */
  status(reason: string | undefined, missing: boolean): RecallStatus {
    return {
      available: reason === undefined,
      ...(reason === undefined ? {} : { reason }),
      ...(missing ? { missing: 'systemPrompt' } : {}),
      budget: this.#config.recallBudget,
      index: indexFigures(this.#store),
      last: this.#last,
      totals: { ...this.#totals },
    }
  }

  /** A user message claimed for a turn: the next assembly of that conversation's context recalls for it. */
  claimed(agent: Agent, turn: number, said: string): void {
    if (said !== '') this.#conversation(agent).question = { turn, text: said }
  }

  /** The runtime context's recall text for `agent`'s assembly (its text stays while no new message came). */
  context(agent: Agent | undefined): string {
    try {
      return this.#text(agent)
    } catch (error) {
      this.#warnings.warn({ key: 'recall-failed', detail: errorText(error) })
      return agent === undefined ? '' : (this.#conversations.get(agent)?.block ?? '')
    }
  }

  #conversation(agent: Agent): Conversation {
    let c = this.#conversations.get(agent)
    if (c === undefined) {
      c = fromLog(agent)
      this.#conversations.set(agent, c)
    }
    return c
  }

  #text(agent: Agent | undefined): string {
    if (agent === undefined || agent.session.header.origin === 'subagent') return ''
    const c = this.#conversations.get(agent)
    if (c === undefined) return ''
    const question = c.question
    if (question !== undefined) {
      c.question = undefined
      this.#recall(agent, c, question)
    }
    return c.block
  }

  /** Recall for the message of `question`: rank the scope's items and keep, as the block, what is new and fits. */
  #recall(agent: Agent, c: Conversation, question: { turn: number; text: string }): void {
    const started = performance.now()
    const { speaker: profile, setting } = this.#turns.of(agent.id)
    const lists = scopeLists(this.#store.state, profile, agent.id, setting)
    if (lists.length === 0) {
      // Memory is off: what recall said before no longer holds, and the loop says so when the text goes empty.
      c.block = ''
      c.sent.clear()
      return
    }
    const query = recallQuery(question.text, earlierMessages(agent, question.text), Date.now())
    const hits = searchLists(this.#store, lists, query.weights, HITS, 1)
    const held = this.#core(agent)
    const inCore = new Set(held.used.map((u) => `${u.layer}:${u.id}`))
    const budget = turnBudget(this.#config, held.chars)
    const picks = pickRecall(
      hits,
      budget,
      (s) => inCore.has(keyOf(s)) || c.sent.has(lineText(s.item.text)) || heldBy(s.item.text, query),
    )
    this.#totals.recalls++
    if (picks.length > 0) this.#send(agent, c, question.turn, picks)
    this.#last = {
      at: Date.now(),
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      sessionId: agent.id,
      items: picks.length,
      chars: picks.length > 0 ? c.block.length : 0,
      core: held.chars,
      budget,
      considered: hits.length,
    }
  }

  /** Make `picks` the conversation's block, remember them as sent, and hand them to the turn's record. */
  #send(agent: Agent, c: Conversation, turn: number, picks: readonly Scored[]): void {
    c.block = inertBraces(renderRecall(picks))
    for (const p of picks) c.sent.add(lineText(p.item.text))
    // The hand-off: the turn's record keeps what recall sent, and the ledger records it beside the core's items.
    this.#records.at(agent.id, turn).recalled = picks.map((p) => ({
      id: p.item.id,
      text: p.item.text,
      layer: p.layer,
      recalled: true,
      at: p.item.at,
    }))
    this.#totals.sent++
    this.#totals.items += picks.length
  }
}

/**
 * Register the recall context and its listener. `core` says what the memory half of a conversation's request
 * carries (prompt/install.ts), which recall leaves out; `records` takes what recall sent in each turn; `turns` says
 * who answers the turn (none: the conversation's own profile).
 */
export function installRecall(
  ctx: Context,
  store: ProfileStore,
  config: Pick<Config, 'recallBudget' | 'memoryBudget'>,
  log: Pick<Log, 'warn'>,
  core: (agent: Agent) => CoreMemory,
  records: TurnRecords,
  turns: TurnReader = createTurnReader(store),
): RecallPart {
  const recaller = new Recaller(store, config, log, core, records, turns)
  const prompt = ctx.get('systemPrompt')
  const reason =
    config.recallBudget === 0
      ? 'recallBudget is 0'
      : prompt === undefined
        ? 'the host has no systemPrompt service'
        : undefined
  const part: RecallPart = {
    status: () => recaller.status(reason, config.recallBudget !== 0 && prompt === undefined),
  }
  if (reason !== undefined || prompt === undefined) return part
  ctx.on('agent/inbox/claimed', ({ agent, message, turn }) => {
    if (message.source.kind === 'user') recaller.claimed(agent, turn, textOf(message.content))
  })
  prompt.context({ name: RECALL_CONTEXT, order: RECALL_ORDER, text: (c) => recaller.context(c.agent) })
  return part
}
