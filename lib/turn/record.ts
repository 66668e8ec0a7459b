/**
 * The record of a conversation's running turn: who answered, the memory items the system prompt's memory half carried,
 * the items recall sent beside them, and the model and parameters the requests went out with. The prompt part, recall
 * and the model choice each write their share; the prompt part and the model choice hand it to the turn ledger
 * (lib/turn/ledger.ts) as its requests go out. A record is per turn: the first write of a new turn number starts an empty one, so nothing of one
 * turn (a named speaker's model, recall's items) carries into the next. It keeps the latest turn of each conversation
 * in memory only and never writes the store.
 */
import type { UsedMemory } from '../state/model.ts'
import type { RecordedModel } from '../state/schema-state.ts'

/** One turn of one conversation, as its parts wrote it. */
export interface TurnRecord {
  readonly sessionId: string
  readonly turn: number
  /** The profile that answered (the speaker), once a request of the turn went out. */
  speakerId?: string
  /** The memory items the memory half of the turn's requests carried (the prompt part writes them). */
  core: UsedMemory[]
  /** The memory items recall sent after the user's message in this turn (recall writes them). */
  recalled: UsedMemory[]
  /** The model of the turn's latest request (the model choice writes it). */
  model?: RecordedModel
}

/** Conversations whose latest record is kept: a bound, so a long-lived host does not grow without end. */
const KEPT = 1000

/** Where a record is kept beyond this process: the turn ledger (lib/turn/ledger.ts). */
export interface TurnSink {
  save(record: TurnRecord): void
  forget(sessionId: string): void
}

/** The records of every conversation's latest turn. */
export class TurnRecords {
  readonly #bySession = new Map<string, TurnRecord>()
  readonly #sink: TurnSink | undefined

  /** `sink` keeps what {@link save} is handed (none: the records live in memory only). */
  constructor(sink?: TurnSink) {
    this.#sink = sink
  }

  /** The record of `sessionId`'s turn `turn`, started empty when the conversation's latest record is of another turn. */
  at(sessionId: string, turn: number): TurnRecord {
    const known = this.#bySession.get(sessionId)
    if (known !== undefined && known.turn === turn) return known
    const fresh: TurnRecord = { sessionId, turn, core: [], recalled: [] }
    this.#bySession.delete(sessionId)
    if (this.#bySession.size >= KEPT) this.#bySession.delete(this.#bySession.keys().next().value!)
    this.#bySession.set(sessionId, fresh)
    return fresh
  }

  /** The record of `sessionId`'s turn `turn` when one was written, else undefined. */
  find(sessionId: string, turn: number): TurnRecord | undefined {
    const known = this.#bySession.get(sessionId)
    return known?.turn === turn ? known : undefined
  }

  /** Hand `record` to the ledger (it writes only what changed since its last write of that conversation). */
  save(record: TurnRecord): void {
    this.#sink?.save(record)
  }

  /** Drop `sessionId`'s record (its conversation closed). */
  forget(sessionId: string): void {
    this.#bySession.delete(sessionId)
    this.#sink?.forget(sessionId)
  }
}
