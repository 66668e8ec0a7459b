/**
 * `memory.decide {target, verdict, itemIds? | importId?}`: many suggestions of one memory list approved or dismissed
 * in one write, so the history records one entry (each suggestion an edit, or a removal, in it) and one revert of it
 * brings them all back. Which suggestions: the ticked ones (`itemIds`), those one learning run or import brought
 * (`importId`), or every suggestion of the list. All or nothing: an id that is not a suggestion of the list refuses
 * the whole command, naming it. Approval follows `memory.approve`'s rules, item by item. Pure function of the state.
 */
import type { MemoryItem, State } from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { normalizeMemory, normalizedItem } from '../shared/memory-text.ts'
import { invalid } from '../validate/state.ts'
import { notice, type OpContext, type OpResult } from './kit.ts'
import { approvedOf, leavesOnApproval, slotOf } from './memory.ts'
import { StoreError } from '../shared/errors.ts'

/** The ids of the suggestions the command names, each checked against the list. */
function chosenOf(items: readonly MemoryItem[], cmd: CommandOf<'memory.decide'>): Set<string> {
  if (cmd.itemIds === undefined) {
    const pending = items.filter((it) => it.pending === true)
    const picked = cmd.importId === undefined ? pending : pending.filter((it) => it.importId === cmd.importId)
    return new Set(picked.map((it) => it.id))
  }
  if (cmd.importId !== undefined) throw invalid('importId', 'applies only without itemIds')
  const byId = new Map(items.map((it) => [it.id, it]))
  cmd.itemIds.forEach((wanted, i) => {
    const it = byId.get(wanted)
    if (it === undefined)
      throw new StoreError('not-found', `itemIds[${i}]: no memory item with id "${wanted}"`, `itemIds[${i}]`)
    if (it.pending !== true)
      throw new StoreError(
        'conflict',
        `itemIds[${i}]: this memory item is not a suggestion awaiting approval`,
        `itemIds[${i}]`,
      )
  })
  return new Set(cmd.itemIds)
}

/**
 * The list with the chosen suggestions approved: what they replace leaves. A list never holds two items saying the
 * same (every write path refuses or skips the second), so a chosen suggestion the rest already says can only come
 * from a list written by hand; it is dropped rather than refusing the whole decision.
 */
function approveAll(items: readonly MemoryItem[], chosen: ReadonlySet<string>) {
  const byId = new Map(items.map((it) => [it.id, it]))
  const replacedIds = new Set<string>()
  for (const it of items) {
    if (!chosen.has(it.id) || it.replaces === undefined) continue
    const old = byId.get(it.replaces)
    if (old !== undefined && leavesOnApproval(old)) replacedIds.add(old.id)
  }
  const said = new Set(
    items.filter((it) => !chosen.has(it.id) && !replacedIds.has(it.id)).map((it) => normalizedItem(it)),
  )
  const replaced: MemoryItem[] = []
  const next = items.flatMap((it): MemoryItem[] => {
    if (replacedIds.has(it.id)) {
      replaced.push(it)
      return []
    }
    if (!chosen.has(it.id)) return [it]
    const key = normalizeMemory(it.text)
    if (said.has(key)) return []
    said.add(key)
    return [approvedOf(it)]
  })
  return { next, replaced }
}

/** Approve or dismiss the suggestions the command names, in one write. */
export function decide(state: State, cmd: CommandOf<'memory.decide'>, ctx: OpContext): OpResult {
  const slot = slotOf(state, cmd.target, ctx)
  const chosen = chosenOf(slot.items, cmd)
  const approving = cmd.verdict === 'approve'
  if (chosen.size === 0) {
    const none = approving ? notice('memory.approvedMany', { count: 0 }) : notice('memory.dismissedMany', { count: 0 })
    return { state, notice: none, extra: { decided: 0, replaced: [] }, changed: false }
  }
  if (!approving) {
    return {
      state: slot.write(slot.items.filter((it) => !chosen.has(it.id))),
      notice: notice('memory.dismissedMany', { count: chosen.size }),
      extra: { decided: chosen.size, replaced: [] },
      changed: true,
    }
  }
  const { next, replaced } = approveAll(slot.items, chosen)
  return {
    state: slot.write(next),
    notice: notice('memory.approvedMany', { count: chosen.size }),
    extra: { decided: chosen.size, replaced },
    changed: true,
  }
}
