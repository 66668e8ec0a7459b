/**
 * A profile's memory compressed, and the one-step undo of a compression (`memory.compress|undo`), as pure functions
 * over the state: what the compression condensed stays, archived; what was saved meanwhile is carried over. It never
 * decides when to compress (the memory job does) and never touches the disk.
 */
import { LIMITS } from '../state/model.ts'
import type { MemoryItem, Profile, State } from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import { invalid, parsedMemory } from '../validate/state.ts'
import { arriving, memoryOf } from '../provenance/provenance.ts'
import { carry, findProfile, notice, withProfile, withUndo, type OpContext, type OpResult } from './kit.ts'
import { StoreError } from '../shared/errors.ts'

function fits(p: Profile, items: readonly MemoryItem[], field: string): void {
  if (items.length > LIMITS.memoryItems) {
    throw invalid(
      field,
      `would give「${p.name}」${items.length} memory items, over the limit of ${LIMITS.memoryItems}`,
      LIMITS.memoryItems,
    )
  }
}

/**
 * Replace the core of a profile's memory with a compressed one, keeping the previous memory for one undo. The items
 * the compression condensed (those of `basedOn`, or every unpinned item of the core without it) are never forgotten:
 * they stay, archived (out of the prompt, still listed, searchable and recallable). Items saved while the compression
 * ran (ids outside `basedOn`) are carried over, so a slow model call cannot swallow a new memory; pinned items are
 * kept as they are, first, whether or not the answer names them; items archived before stay as they are.
 */
export function compress(state: State, cmd: CommandOf<'memory.compress'>, ctx: OpContext): OpResult {
  const p = findProfile(state, cmd.profileId, 'profileId')
  // `sessionId` is the conversation whose growth triggered it, for the history; nothing else reads it.
  const next = memoryOf(parsedMemory(cmd.memory), 'memory', arriving('compress', ctx))
  if (next.summary.trim() === '' && next.items.length === 0) {
    throw invalid('memory', 'is empty; an empty compression would erase the memory, so it is refused')
  }
  // Pinned items stay first and verbatim whatever the answer says; a compressed item repeating one is dropped.
  // Suggestions are the user's to decide, not the model's to merge: they stay as they are too.
  const pinned = p.memory.items.filter((it) => it.pinned === true || it.pending === true)
  const archive = p.memory.items.filter((it) => it.archived === true && !pinned.includes(it))
  const core = p.memory.items.filter((it) => it.archived !== true && !pinned.includes(it))
  const compressed = carry(
    pinned,
    next.items.map(({ pinned: _p, archived: _a, ...it }) => it),
    ctx,
  )
  const covered = cmd.basedOn === undefined ? undefined : new Set(cmd.basedOn)
  const carried =
    covered === undefined
      ? []
      : carry(
          [...pinned, ...compressed],
          core.filter((it) => !covered.has(it.id)),
          ctx,
        )
  const condensed = core
    .filter((it) => covered === undefined || covered.has(it.id))
    .map((it): MemoryItem => ({ ...it, archived: true }))
  const items = [...pinned, ...compressed, ...carried, ...condensed, ...archive]
  fits(p, items, 'memory.items')
  const after = withProfile(state, { ...p, memory: { summary: next.summary, items }, updatedAt: ctx.now })
  // The counts are of the core, the part the prompt carries: what was condensed is still there, archived.
  const was = pinned.length + core.length
  const now = pinned.length + compressed.length + carried.length
  return {
    state: withUndo(after, p.id, { memory: p.memory, at: ctx.now }),
    notice: notice('memory.compressed', { name: p.name, before: was, after: now }),
    extra: { carried: carried.length },
    changed: true,
  }
}

/** Restore the memory from before the last compression, keeping what was added since then. */
export function undo(state: State, cmd: CommandOf<'memory.undo'>, ctx: OpContext): OpResult {
  const p = findProfile(state, cmd.profileId, 'profileId')
  const entry = state.memoryUndo?.[p.id]
  if (entry === undefined)
    throw new StoreError('not-found', `profileId: 「${p.name}」has no compression to undo`, 'profileId')
  const since = p.memory.items.filter((it) => it.at >= entry.at && it.source !== 'compress')
  const items = [...entry.memory.items, ...carry(entry.memory.items, since, ctx)]
  fits(p, items, 'memory.items')
  const after = withProfile(state, { ...p, memory: { summary: entry.memory.summary, items }, updatedAt: ctx.now })
  return {
    state: withUndo(after, p.id, undefined),
    notice: notice('memory.undone', { name: p.name }),
    changed: true,
  }
}
