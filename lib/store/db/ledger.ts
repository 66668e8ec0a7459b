/**
 * The turn ledger: which profile answered each turn of each conversation, with the memory items its requests
 * carried and the model and parameters of its latest request, as rows of `turns`. Owns recording turns, forgetting a conversation's, and reading them back. It never
 * checks a turn (the store does, before its batch) and never opens a transaction (the batch's write does).
 */
import type { UsedMemory } from '../../state/model.ts'
import { UsedMemoriesSchema, type RecordedModel } from '../../state/schema-state.ts'
import type { Connection } from './connection.ts'
import { COLUMNS, jsonColumn, rowOf, rowsOf } from './row-read.ts'

/** One turn of the ledger: which profile answered turn `turn` of conversation `sessionId`, with the memory items its
 * requests carried and the model of its latest request (each absent for turns recorded before they were). */
export interface Turn {
  sessionId: string
  turn: number
  profileId: string
  memories?: UsedMemory[]
  model?: RecordedModel
}

/** The ledger of one database. */
export class Ledger {
  readonly #conn: Connection
  /** Whether the turns table has its memories column (a database opened read-only may predate it). */
  readonly #memories: boolean

  constructor(conn: Connection, options: { memories: boolean }) {
    this.#conn = conn
    this.#memories = options.memories
  }

  /** Record `turns` (a turn recorded again is replaced) and drop every turn of the conversations `forget`. */
  write(turns: readonly Turn[], forget: readonly string[]): void {
    const turn = this.#conn.statement(
      'INSERT INTO turns (session_id, turn, profile_id, memories, model) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET profile_id = excluded.profile_id, memories = excluded.memories, model = excluded.model',
    )
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v))
    for (const t of turns) turn.run(t.sessionId, t.turn, t.profileId, json(t.memories), json(t.model))
    const drop = this.#conn.statement('DELETE FROM turns WHERE session_id = ?')
    for (const id of forget) drop.run(id)
  }

  /** Turn number → id of the profile that answered it, for one conversation, as the database holds it now. */
  turnsOf(sessionId: string): Record<number, string> {
    const out: Record<number, string> = {}
    for (const r of rowsOf(
      'turns',
      COLUMNS.turnProfile,
      this.#conn.statement('SELECT turn, profile_id FROM turns WHERE session_id = ?').all(sessionId),
    ))
      out[r.turn] = r.profile_id
    return out
  }

  /** Turn number → how many memory items its requests carried, for the turns of one conversation that recorded them. */
  memoryCounts(sessionId: string): Record<number, number> {
    const out: Record<number, number> = {}
    if (!this.#memories) return out
    for (const r of rowsOf(
      'turns',
      COLUMNS.turnCount,
      this.#conn
        .statement(
          'SELECT turn, json_array_length(memories) AS n FROM turns WHERE session_id = ? AND memories IS NOT NULL',
        )
        .all(sessionId),
    ))
      out[r.turn] = r.n
    return out
  }

  /** The memory items turn `turn` of a conversation carried; undefined when the ledger has none recorded for it. */
  memories(sessionId: string, turn: number): UsedMemory[] | undefined {
    if (!this.#memories) return undefined
    const row = this.#conn
      .statement('SELECT memories FROM turns WHERE session_id = ? AND turn = ?')
      .get(sessionId, turn)
    if (row === undefined) return undefined
    const { memories } = rowOf('turns', COLUMNS.turnMemories, row)
    return memories === null
      ? undefined
      : jsonColumn(UsedMemoriesSchema, memories, `turns.${sessionId}/${turn}.memories`)
  }

  /** Every conversation the ledger holds turns of. */
  sessions(): string[] {
    return rowsOf(
      'turns',
      COLUMNS.turnSession,
      this.#conn.statement('SELECT DISTINCT session_id FROM turns').all(),
    ).map((r) => r.session_id)
  }
}
