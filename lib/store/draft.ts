/**
 * A batch applied to a draft: the commands that waited together, applied in order to the current state without
 * settling anyone, each one's outcome kept (answered now, refused alone, or answered after the batch's commit); then
 * the settling of every caller once the batch is committed or failed. It never writes (the store commits the draft)
 * and never decides whether the data may be written (the rules it is given do).
 */
import { randomBytes } from 'node:crypto'
import type { State } from '../state/model.ts'
import type { Notice } from '../shared/notices.ts'
import { applyCommand, forgetSessions } from '../commands/dispatch.ts'
import { record } from '../validate/state.ts'
import { parseCommand } from '../validate/command.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import type { Turn } from './db/ledger.ts'
import type { CommandResult } from './store.ts'
import { checkTurn, turnNotice } from './turn-record.ts'
import { StoreError } from '../shared/errors.ts'
import { listsChanged, wantsListsOnDisk } from './lists-on-disk.ts'

/** One command waiting in the queue, with its caller's promise. */
export interface Waiting {
  cmd: unknown
  resolve(result: CommandResult): void
  reject(error: unknown): void
}

/** A command's own answer, before the batch it joined is written. */
type Reply = { notice: Notice; [extra: string]: unknown }

/** What a batch will do for one caller: answer now, refuse, or answer after the batch's commit. */
type Outcome =
  { caller: Waiting; now: CommandResult } | { caller: Waiting; error: unknown } | { caller: Waiting; reply: Reply }

/** A batch applied to the current state: the state it makes, how many commands changed it, its turns, every outcome. */
export interface Draft {
  state: State
  changes: number
  turns: Turn[]
  /** Conversations whose turns go (`sessions.forget`). */
  forget: string[]
  /** Profiles whose memory list is kept on disk after the commit (lists-on-disk.ts). */
  onDisk: Set<string>
  outcomes: Outcome[]
}

/** What a draft is made under: the store's choices and its refusals. */
export interface DraftRules {
  /** Whether memory writes go into the history (StoreOptions.recordHistory). */
  recordHistory: boolean
  /** Throw the refusal of a write, worded with `what`, when nothing may be written. */
  refuseWrite(what: string): void
  /** Throw the refusal of a turn when not even a turn may be recorded. */
  refuseTurn(): void
  /** Throw when going from `prev` to `next` would write a row set aside. */
  guard(prev: State, next: State): void
}

function newId(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`
}

/** Whether a draft changes nothing at all: no state, no turn, no forgotten conversation. */
export function isEmptyDraft(draft: Draft): boolean {
  return draft.changes === 0 && draft.turns.length === 0 && draft.forget.length === 0
}

/** Apply `batch` in order to `base` without settling anyone. */
export function draftBatch(base: State, batch: readonly Waiting[], rules: DraftRules): Draft {
  let draft = base
  let changes = 0
  const turns: Turn[] = []
  const forget: string[] = []
  const onDisk = new Set<string>()
  const outcomes: Outcome[] = []
  for (const caller of batch) {
    try {
      const cmd = record(caller.cmd, 'command')
      if (cmd.op === 'sessions.forget') {
        const forgotten = parseCommand(cmd) as CommandOf<'sessions.forget'>
        const result = forgetSessions(draft, forgotten)
        rules.refuseWrite('not forgotten')
        if (result.changed) {
          draft = result.state
          changes++
        }
        forget.push(...forgotten.sessionIds)
        outcomes.push({ caller, reply: { ...result.extra, notice: result.notice } })
        continue
      }
      if (cmd.op === 'turn.record') {
        const { turn, profile } = checkTurn(draft, parseCommand(cmd) as CommandOf<'turn.record'>)
        rules.refuseTurn()
        turns.push(turn)
        outcomes.push({ caller, reply: { notice: turnNotice(turn, profile) } })
        continue
      }
      const result = applyCommand(draft, cmd, { now: Date.now(), newId, recordHistory: rules.recordHistory })
      const reply = { ...result.extra, notice: result.notice }
      if (!result.changed && draft === base) {
        // Nothing before it in this batch changed anything: its answer does not hang on the commit.
        outcomes.push({ caller, now: { ...reply, state: draft } })
        continue
      }
      if (result.changed) {
        rules.refuseWrite('not saved')
        rules.guard(draft, result.state)
        if (wantsListsOnDisk(caller.cmd)) for (const id of listsChanged(draft, result.state)) onDisk.add(id)
        draft = result.state
        changes++
      }
      outcomes.push({ caller, reply })
    } catch (e) {
      outcomes.push({ caller, error: e })
    }
  }
  return { state: draft, changes, turns, forget, onDisk, outcomes }
}

/** Settle every caller of a batch that was committed (or needed no commit): `state` is what the commit made durable. */
export function settle(draft: Draft, state: State): void {
  for (const o of draft.outcomes) {
    if ('now' in o) o.caller.resolve(o.now)
    else if ('error' in o) o.caller.reject(o.error)
    else o.caller.resolve({ ...o.reply, state })
  }
}

/** Settle every caller of a batch whose commit failed: its changes are refused with `message`. */
export function refuseBatch(draft: Draft, message: string, refusal?: () => StoreError): void {
  for (const o of draft.outcomes) {
    if ('now' in o) o.caller.resolve(o.now)
    else if ('error' in o) o.caller.reject(o.error)
    else o.caller.reject(refusal?.() ?? new StoreError('io', message))
  }
}
