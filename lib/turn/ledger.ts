/**
 * The turn ledger's writer: hands a turn's record (lib/turn/record.ts) to the store as `turn.record` — the speaker,
 * the memory items the turn's requests carried (the memory half's and recall's, the union over its steps) and the
 * model and parameters of its latest request — whenever what the ledger would keep of it changed. The prompt part
 * calls it as a step's request is acknowledged (`agent/pre-step`), the model choice once the request's model is known
 * (`agent/request`), so a turn's row holds both. It never reads the ledger back, never awaits the write (a turn never
 * waits on the store) and never throws: a refused write is a warning.
 *
 * A record is committed without waiting for the disk and made durable just after, off the event loop
 * (lib/store/db/durable-later.ts): both hooks run before the turn's request is sent, and a commit that waits for its
 * sync there held the turn for the disk twice (~1 ms each alone, more when a sync's git wrote to the same disk a moment
 * before). A kill loses no record; a power cut in the moment before the sync can lose the last turn's record, never
 * anything the user saved (a batch with any other command is committed as every command is).
 */
import type { UsedMemory } from '../state/model.ts'
import type { ProfileStore } from '../store/store.ts'
import type { RecordedModel } from '../state/schema-state.ts'
import { errorText } from '../shared/errors.ts'
import { DURABLE_LATER, syncWal, walLong } from '../store/db/durable-later.ts'
import type { Log } from '../shared/log.ts'
import type { TurnRecord, TurnSink } from './record.ts'

/** Conversations whose last written turn is remembered: a bound, so a long-lived host does not grow without end. */
const KEPT = 1000

/** What was last written for a conversation: the turn, its speaker, its items and its model. */
interface Written {
  turn: number
  profileId: string
  used: UsedMemory[]
  model: RecordedModel | undefined
}

/** `a` with the items of `b` it lacks appended (an item is its layer and id); `a` itself when it lacks none. */
export function union(a: UsedMemory[], b: UsedMemory[]): UsedMemory[] {
  const have = new Set(a.map((m) => `${m.layer}:${m.id}`))
  const more = b.filter((m) => !have.has(`${m.layer}:${m.id}`))
  return more.length === 0 ? a : [...a, ...more]
}

function sameModel(a: RecordedModel | undefined, b: RecordedModel | undefined): boolean {
  return (
    a === b ||
    (a !== undefined &&
      b !== undefined &&
      a.provider === b.provider &&
      a.model === b.model &&
      a.reasoningEffort === b.reasoningEffort &&
      a.temperature === b.temperature &&
      a.maxTokens === b.maxTokens)
  )
}

/** Writes each turn's record to the store's ledger, once per change. */
export class TurnLedger implements TurnSink {
  readonly #store: Pick<ProfileStore, 'command' | 'readOnly' | 'file'>
  readonly #log: Pick<Log, 'warn'>
  readonly #written = new Map<string, Written>()
  /**
   * The WAL was past SQLite's automatic checkpoint at the last record's sync: the next record is committed as every
   * command is, and its commit copies the WAL into the database file (records alone never would).
   */
  #walLong = false

  constructor(store: Pick<ProfileStore, 'command' | 'readOnly' | 'file'>, log: Pick<Log, 'warn'>) {
    this.#store = store
    this.#log = log
  }

  /** Write `record` when a speaker answers it and the ledger's row of it would change; else nothing. */
  save(record: TurnRecord): void {
    const { sessionId, turn, speakerId, model } = record
    if (speakerId === undefined) return
    const last = this.#written.get(sessionId)
    // A turn's later steps add what their requests carried that its first did not (a hand edit mid-turn); recall's
    // items are recorded beside the core's, marked.
    const same = last?.turn === turn && last.profileId === speakerId
    const used = union(same ? union(last.used, record.core) : record.core, record.recalled)
    if (same && used === last.used && sameModel(model, last.model)) return
    this.#written.delete(sessionId)
    if (this.#written.size >= KEPT) this.#written.delete(this.#written.keys().next().value!)
    this.#written.set(sessionId, { turn, profileId: speakerId, used, model })
    // Data this version may not write: the turn is not recorded (and not warned about on every turn).
    if (this.#store.readOnly !== undefined) return
    const later = !this.#walLong
    this.#store
      .command({
        op: 'turn.record',
        sessionId,
        turn,
        profileId: speakerId,
        memories: used,
        ...(model === undefined ? {} : { model }),
        ...(later ? { [DURABLE_LATER]: true as const } : {}),
      })
      .then(async () => {
        if (later) this.#walLong = walLong(await syncWal(this.#store.file))
      })
      .catch((error: unknown) => this.#log.warn(`agent-profiles: could not record turn ${turn}: ${errorText(error)}`))
  }

  /** Forget what was written for `sessionId` (its conversation closed). */
  forget(sessionId: string): void {
    this.#written.delete(sessionId)
  }
}
