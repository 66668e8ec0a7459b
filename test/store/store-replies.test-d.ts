/**
 * The host's commands answer typed by op (`ProfileStore.command`, over HostReplyFields in lib/shared/commands.ts),
 * so the host's callers (memory_save, the extraction job, the file import) read reply fields without casts. A
 * type-level spec: the typecheck gate compiles it, and every `@ts-expect-error` fails that gate the day the line under
 * it compiles. Nothing here runs.
 */
import { expectTypeOf } from 'vitest'
import type { HostReplyFields, Op } from '../../lib/shared/commands.ts'
import type { MemoryHistoryEntry } from '../../lib/shared/memory-target.ts'
import type { MergeReport } from '../../lib/shared/import-report.ts'
import type { MemoryItem, Profile } from '../../lib/state/model.ts'
import type { Command } from '../../lib/shared/command-inputs.ts'
import type { ProfileStore } from '../../lib/store/store.ts'

/** The map names every op the store takes, the host-only ones too. */
expectTypeOf<keyof HostReplyFields>().toEqualTypeOf<Op>()

/** Replies as the host's callers read them. */
export async function replies(store: ProfileStore, anyCommand: Command): Promise<void> {
  const added = await store.command({ op: 'memory.add', target: { profileId: 'a' }, items: [{ text: 'x' }] })
  expectTypeOf(added.added).toEqualTypeOf<MemoryItem[]>()
  expectTypeOf(added.replaced).toEqualTypeOf<MemoryItem[]>()
  expectTypeOf(added.duplicates).toEqualTypeOf<string[]>()
  // A host reply carries the whole profile (the route sends its head).
  expectTypeOf((await store.command({ op: 'profile.duplicate', id: 'a' })).profile).toEqualTypeOf<Profile>()
  expectTypeOf((await store.command({ op: 'memory.history', target: { user: true } })).entries).toEqualTypeOf<
    MemoryHistoryEntry[]
  >()
  expectTypeOf((await store.command({ op: 'sessions.forget', sessionIds: ['s'] })).forgotten).toEqualTypeOf<number>()
  const merged = await store.command({ op: 'state.import', mode: 'merge', payload: {} })
  if ('renamed' in merged) expectTypeOf(merged.renamed).toEqualTypeOf<MergeReport['renamed']>()

  // @ts-expect-error a field the op does not answer
  void (await store.command({ op: 'profile.update', id: 'a', patch: {} })).profile
  // @ts-expect-error a field of another op
  void (await store.command({ op: 'sessions.clearAll' })).added
  const reverted = (await store.command({ op: 'memory.revert', target: { user: true }, entryId: 'e' })).reverted
  // @ts-expect-error a count is not a list
  expectTypeOf(reverted).toEqualTypeOf<MemoryItem[]>()

  // A command whose op is not known where it is sent (a body the route hands on) answers any field, unknown.
  expectTypeOf((await store.command(anyCommand)).whatever).toEqualTypeOf<unknown>()
}
