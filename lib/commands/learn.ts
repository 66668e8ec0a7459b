/**
 * The commands of learning from another assistant's conversations: `memory.learn {target, importId, items}` (the
 * host's alone) adds what one call of a learning run found as suggestions the user approves — pending whatever the
 * memory's mode, each with where it came from (`origin`), the day it was true (`at`) and the run's id — deduplicated
 * against the memory and against each other, and naming the fact each would supersede, by `memory.add`'s rules; and
 * `memory.unlearn {target, importId}` undoes a run: every item carrying its id leaves the target's memory, approved
 * or not. Pure functions of the state.
 */
import type { CommandOf } from '../shared/schema-commands.ts'
import type { MemoryItem, State } from '../state/model.ts'
import { notice, type OpContext, type OpResult } from './kit.ts'
import { addItems, slotOf } from './memory.ts'

/** Add one call's facts as suggestions of the run `importId`. */
export function learnFacts(state: State, cmd: CommandOf<'memory.learn'>, ctx: OpContext): OpResult {
  const items = cmd.items.map(({ at: _at, ...rest }) => ({ ...rest, source: 'import' as const }))
  const result = addItems(state, { op: 'memory.add', target: cmd.target, items }, ctx, (item, i) => {
    item.pending = true
    item.importId = cmd.importId
    const at = cmd.items[i]!.at
    if (at !== undefined && at > 0) item.at = at
  })
  const added = (result.extra as { added?: MemoryItem[] } | undefined)?.added ?? []
  return result.changed ? { ...result, notice: notice('memory.learned', { count: added.length }) } : result
}

/** Take away every item the run `importId` brought to the target's memory. */
export function unlearn(state: State, cmd: CommandOf<'memory.unlearn'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const kept = slot.items.filter((it) => it.importId !== cmd.importId)
  const removed = slot.items.length - kept.length
  const done = notice('memory.unlearned', { count: removed })
  if (removed === 0) return { state, notice: done, extra: { removed }, changed: false }
  return { state: slot.write(kept), notice: done, extra: { removed }, changed: true }
}
