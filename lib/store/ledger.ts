/**
 * The turn ledger: which profile answered each turn of each conversation, so a turn head keeps its avatar after the
 * conversation switches profile. Owns the ledger file and its bounds. It never writes the session log (the host's
 * history stays untouched) and is never exported (session ids are local to this machine).
 *
 * Why its own append-only file rather than a field of the data file: the ledger can reach 2,000 conversations ×
 * 500 turns, far bigger than the profiles, and it grows on every turn. Recording a turn appends one short line (no
 * rewrite of anything), the data file stays small for the edits a user waits on, and a damaged ledger can never cost
 * a profile. The file is rewritten compactly only when dead lines outnumber live ones.
 */
import { mkdir, open, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

/** Turns kept per conversation; older turns are dropped first. */
export const LEDGER_TURNS = 500
/** Conversations kept; the one recorded longest ago is dropped first. */
export const LEDGER_CONVERSATIONS = 2_000

/** The ledger in memory, bounded, with its append-only file. */
export class TurnLedger {
  readonly file: string
  /** Conversations in least-recently-recorded-first order; each maps turn → profile id. */
  #turns = new Map<string, Map<number, string>>()
  #live = 0
  #lines = 0

  constructor(file: string) {
    this.file = file
  }

  /** Replay the file. A missing file is an empty ledger; a torn or foreign line is skipped, never fatal. */
  async load(): Promise<{ skipped: number }> {
    const text = await readFile(this.file, 'utf8').catch(() => '')
    let skipped = 0
    for (const line of text.split('\n')) {
      if (line === '') continue
      this.#lines++
      try {
        const e: unknown = JSON.parse(line)
        const { s, t, p } = e as { s: unknown; t: unknown; p: unknown }
        if (typeof s !== 'string' || typeof p !== 'string' || !Number.isSafeInteger(t)) throw new Error('bad entry')
        this.#put(s, t as number, p)
      } catch {
        skipped++
      }
    }
    return { skipped }
  }

  /** Turn number → profile id for one conversation. */
  turnsOf(sessionId: string): Record<number, string> {
    return Object.fromEntries(this.#turns.get(sessionId) ?? [])
  }

  /**
   * Append the entry durably, then apply it in memory. Compacts the file when it is mostly dead lines and `mayRewrite`
   * says this process may rewrite shared files (it holds the writer lock); every dsh process appends, one rewrites.
   */
  async record(sessionId: string, turn: number, profileId: string, mayRewrite: () => Promise<boolean> = async () => true): Promise<void> {
    if (this.#turns.get(sessionId)?.get(turn) === profileId) return
    await mkdir(dirname(this.file), { recursive: true })
    const handle = await open(this.file, 'a', 0o600)
    try {
      await handle.write(`${JSON.stringify({ s: sessionId, t: turn, p: profileId })}\n`)
      await handle.datasync()
    } finally {
      await handle.close()
    }
    this.#lines++
    this.#put(sessionId, turn, profileId)
    // The entry is already durable; a failed compaction only leaves a longer file, retried on a later turn.
    if (this.#lines > 2 * this.#live + 1_000 && await mayRewrite()) await this.#compact().catch(() => {})
  }

  #put(sessionId: string, turn: number, profileId: string): void {
    const turns = this.#turns.get(sessionId) ?? new Map<number, string>()
    this.#turns.delete(sessionId)
    this.#turns.set(sessionId, turns)
    if (!turns.has(turn)) this.#live++
    turns.set(turn, profileId)
    if (turns.size > LEDGER_TURNS) {
      turns.delete(Math.min(...turns.keys()))
      this.#live--
    }
    if (this.#turns.size > LEDGER_CONVERSATIONS) {
      const [oldest, dropped] = this.#turns.entries().next().value!
      this.#turns.delete(oldest)
      this.#live -= dropped.size
    }
  }

  async #compact(): Promise<void> {
    // Read back first: another dsh process may have appended turns this one never saw.
    const current = new TurnLedger(this.file)
    await current.load()
    const lines: string[] = []
    for (const [s, turns] of current.#turns) for (const [t, p] of turns) lines.push(JSON.stringify({ s, t, p }))
    await writeFileAtomic(this.file, lines.length === 0 ? '' : `${lines.join('\n')}\n`, { fsync: true, mode: 0o600 })
    this.#turns = current.#turns
    this.#live = current.#live
    this.#lines = lines.length
  }
}
