/**
 * Which profile a conversation uses, seen from the browser: the effective one now (its pin, else the global
 * default) and the one that answered each past turn (the host half's turn ledger, read through api.ts and cached
 * per conversation). It never writes anything and never renders.
 */
import { useEffect, useSyncExternalStore } from 'react'
import type { SessionSetting } from '../../state/model.ts'
import { useApi } from '../data/api.ts'
import { ClientCache, perClient } from '../data/client-cache.ts'
import type { ProfileHead, WireState } from '../../shared/wire-state.ts'
import type { TurnModel } from '../../shared/models.ts'

/** The profile a conversation uses now and why (as heads: whole profiles come from profiles.ts). */
export interface Effective {
  profile: ProfileHead
  /** True when the conversation pins this profile; false when it follows the global default. */
  pinned: boolean
  /** The conversation's own settings, when it has any. */
  setting: SessionSetting | undefined
  /** The global default, for "follow the default (…)" labels. */
  fallback: ProfileHead
}

/**
 * The profile in effect for a conversation with `setting` (its own settings, from `useConversation`): a pin to an
 * existing profile wins, otherwise the global default (as the host half decides it: a pin to a deleted profile falls
 * back too). Null only for a state with no profiles.
 */
export function effectiveProfile(state: WireState, setting: SessionSetting | null | undefined): Effective | null {
  const fallback = state.profiles.find((p) => p.id === state.activeId) ?? state.profiles[0]
  if (fallback === undefined) return null
  const pin = setting?.profileId ?? null
  const pinned = pin === null ? undefined : state.profiles.find((p) => p.id === pin)
  return { profile: pinned ?? fallback, pinned: pinned !== undefined, setting: setting ?? undefined, fallback }
}

/** Conversations whose ledger is kept in memory; the least recently added is dropped first. */
const KEPT_CONVERSATIONS = 50

interface ConversationLedger {
  turns: Record<number, string>
  /** Turn → how many memory items its requests carried. */
  memories: Record<number, number>
  /** Turn → the model that answered it (turns this host process ran). */
  models: Record<number, TurnModel>
  /** `<turn>:<reason>` pairs already asked about, so a turn missing from the ledger costs one request per reason. */
  asked: Set<string>
  /** A request is running; `due` says another one is wanted after it. */
  running: boolean
  due: boolean
}

/** The turn ledgers of the conversations shown in this page, fetched on demand and shared by every turn head. */
export class TurnLedgerCache extends ClientCache {
  readonly #ledgers = new Map<string, ConversationLedger>()

  /** The id of the profile that answered `turn` of `sessionId`, as far as this page knows. */
  profileOf(sessionId: string, turn: number): string | undefined {
    return this.#ledgers.get(sessionId)?.turns[turn]
  }

  /** The model that answered `turn` of `sessionId`, as far as this page knows. */
  modelOf(sessionId: string, turn: number): TurnModel | undefined {
    return this.#ledgers.get(sessionId)?.models[turn]
  }

  /** How many memory items `turn` of `sessionId` carried, as far as this page knows. */
  memoryCountOf(sessionId: string, turn: number): number | undefined {
    return this.#ledgers.get(sessionId)?.memories[turn]
  }

  /**
   * Ask the host about `turn` when it is not known yet. `reason` distinguishes moments worth a fresh look (a turn
   * still streaming may not be recorded yet; once it settles it is): one request per turn and reason at most, and
   * the asks of one render share a request.
   */
  ask(sessionId: string, turn: number, reason: string): void {
    const ledger = this.#ledger(sessionId)
    if (ledger.turns[turn] !== undefined) return
    const key = `${turn}:${reason}`
    if (ledger.asked.has(key)) return
    ledger.asked.add(key)
    ledger.due = true
    if (!ledger.running) void this.#load(sessionId, ledger)
  }

  #ledger(sessionId: string): ConversationLedger {
    let ledger = this.#ledgers.get(sessionId)
    if (ledger === undefined) {
      ledger = { turns: {}, memories: {}, models: {}, asked: new Set(), running: false, due: false }
      this.#ledgers.set(sessionId, ledger)
      if (this.#ledgers.size > KEPT_CONVERSATIONS) this.#ledgers.delete(this.#ledgers.keys().next().value!)
    }
    return ledger
  }

  async #load(sessionId: string, ledger: ConversationLedger): Promise<void> {
    ledger.running = true
    // Every head of one commit asks from its effect in the same task: one microtask later they are all in.
    await Promise.resolve()
    while (ledger.due) {
      ledger.due = false
      try {
        const reply = await this.client.turns(sessionId)
        ledger.turns = reply.turns
        ledger.memories = reply.memories
        ledger.models = reply.models ?? {}
      } catch (error) {
        // The head falls back to the current profile; the turn's next reason to ask tries again.
        console.warn('agent-profiles: could not read which profile answered each turn:', error)
        continue
      }
      this.changed()
    }
    ledger.running = false
  }
}

/** The ledger cache of `client`. */
const turnLedgerOf = perClient((client) => new TurnLedgerCache(client))

/** React hook: how many memory items `turn` of `sessionId` carried, once the ledger (asked for by the head) says. */
export function useTurnMemoryCount(sessionId: string, turn: number | undefined): number | undefined {
  const cache = turnLedgerOf(useApi())
  const read = (): number | undefined => (turn === undefined ? undefined : cache.memoryCountOf(sessionId, turn))
  return useSyncExternalStore(cache.subscribe, read, read)
}

/** React hook: the model that answered `turn` of `sessionId`, once the ledger (asked for by the head) says. */
export function useTurnModel(sessionId: string, turn: number | undefined): TurnModel | undefined {
  const cache = turnLedgerOf(useApi())
  const read = (): TurnModel | undefined => (turn === undefined ? undefined : cache.modelOf(sessionId, turn))
  return useSyncExternalStore(cache.subscribe, read, read)
}

/**
 * React hook: the id of the profile that answered `turn` of `sessionId`, asking the host when it is not known.
 * `turn` undefined asks nothing (a head that is not shown).
 */
export function useTurnProfileId(sessionId: string, turn: number | undefined, reason: string): string | undefined {
  const cache = turnLedgerOf(useApi())
  const read = (): string | undefined => (turn === undefined ? undefined : cache.profileOf(sessionId, turn))
  const id = useSyncExternalStore(cache.subscribe, read, read)
  useEffect(() => {
    if (turn !== undefined && id === undefined) cache.ask(sessionId, turn, reason)
  }, [cache, sessionId, turn, reason, id])
  return id
}
