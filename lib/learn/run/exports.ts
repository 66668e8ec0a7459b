/**
 * The export the user sent to learn from, kept in the host's memory between reading it and learning from it: one at
 * a time (a new one takes the place of the last), held as text (lib/learn/export-parts.ts), with what it was found to
 * hold; and the plan of learning a pick of it (lib/learn/run/plan.ts) against the memory that would learn, each
 * conversation parsed as the plan or the run reaches it, a slice at a time (lib/learn/slices.ts). It never reads bytes itself (the import worker does,
 * lib/http/import-pool.ts) and never writes the store.
 */
import type { ExportService, LearnConversation } from '../conversation.ts'
import { holdConversations, type ConversationSlices, type HeldExport, type HeldRead } from '../export-parts.ts'
import { selectConversations } from '../select.ts'
import { Slices } from '../slices.ts'
import { planLearning } from './plan.ts'
import type { KnownFact } from '../../memory/job.ts'
import type { LearnExportReply, LearnPick, LearnPlanReply } from '../../shared/learn.ts'
import { userItemsOf, type MemoryItem, type State } from '../../state/model.ts'

/** The memory the pick's facts would go to, as the facts each call is shown (so the model does not repeat them). */
export function knownOf(state: State, into: LearnPick['into']): KnownFact[] | undefined {
  const items: readonly MemoryItem[] | undefined =
    'user' in into ? userItemsOf(state) : state.profiles.find((p) => p.id === into.profileId)?.memory.items
  if (items === undefined) return undefined
  const layer = 'user' in into ? 'user' : 'profile'
  return items.filter((it) => it.pending !== true).map((it) => ({ text: it.text, layer, id: it.id }))
}

/** Why a pick cannot be planned: no export read yet, no profile of that id, or one whose memory is off. */
export type Unplanned = 'no-export' | 'no-profile' | 'memory-off'

/**
 * What a pick chooses: the export's service, the conversations picked (parsed as they are walked, a slice a step), how many and their
 * messages, and the facts the learning memory holds.
 */
export interface Picked {
  service: ExportService
  picked: ConversationSlices
  conversations: number
  messages: number
  known: KnownFact[]
}

/** The export last read, and what the page is told of it. */
export class LearnExports {
  #read: HeldExport | undefined
  #reply: LearnExportReply = {}

  /** Take what reading an export came to: a read export replaces the last; a refused one leaves it unchanged. */
  take(read: HeldRead): LearnExportReply {
    if (!read.ok) return { refused: read.error }
    this.#read = read.export
    this.#reply = { found: read.export.conversations.found(read.export.service) }
    return this.#reply
  }

  /**
   * Take the user's own past dsh conversations (past-sessions.ts) as the source to learn from, in place of the
   * export last read: the same pick, plan and run then apply to them.
   */
  takePast(conversations: LearnConversation[]): LearnExportReply {
    return this.take({ ok: true, export: { service: 'dsh', conversations: holdConversations(conversations) } })
  }

  /** What the last export read holds ({} when none was read). */
  reply(): LearnExportReply {
    return this.#reply
  }

  /**
   * What learning `pick` costs, with calls of at most `limit` characters; or why there is nothing to plan: no export
   * read yet, no profile of that id, or one whose memory is off (the caller words the refusal).
   */
  async plan(pick: LearnPick, state: State, limit: number): Promise<LearnPlanReply | Unplanned> {
    // One count of slices for the pick, the parse and the plan: all of it is work on the loop.
    const slices = new Slices()
    const chosen = await this.picked(pick, state, slices)
    if (typeof chosen === 'string') return chosen
    const { picked, conversations, messages, known } = chosen
    const plan = await planLearning(picked, limit, known, slices)
    return {
      conversations,
      messages,
      calls: plan.calls.length,
      inputTokens: plan.inputTokens,
      outputTokens: plan.outputTokens,
    }
  }

  /**
   * The conversations `pick` chooses of the export last read, and what the memory that would learn holds; the
   * conversations the pick and its walk parse are counted in `slices`.
   */
  async picked(pick: LearnPick, state: State, slices = new Slices()): Promise<Picked | Unplanned> {
    if (this.#read === undefined) return 'no-export'
    const known = knownOf(state, pick.into)
    if (known === undefined) return 'no-profile'
    // A profile whose memory is off learns nothing, as its conversations teach it nothing.
    const into = pick.into
    if ('profileId' in into && state.profiles.find((p) => p.id === into.profileId)?.memoryEnabled === false)
      return 'memory-off'
    const held = this.#read.conversations
    const service = this.#read.service
    const picks = await selectConversations(held, pick, slices)
    return {
      service,
      picked: held.parsed(picks, slices),
      conversations: picks.length,
      messages: picks.reduce((n, i) => n + held.messagesOf(i), 0),
      known,
    }
  }
}
