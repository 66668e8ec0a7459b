/**
 * The stored types are the output types of their schemas (lib/state/schema-state.ts), never written beside them: a
 * field added to a schema is in the type the store, the commands and the page hold, and a stored shape takes the
 * fields its input schema takes, no more and no fewer. A type-level spec: the typecheck gate compiles it, and every
 * `@ts-expect-error` fails that gate the day the line under it compiles. Nothing here runs.
 */
import { expectTypeOf } from 'vitest'
import type * as z from 'zod'
import type {
  MemoryItemInput,
  MemoryItemStored,
  MemoryWriteInput,
  ProfileRecord,
  ProfileStored,
  SessionSettingInput,
  SessionSettingStored,
} from '../../lib/state/schema-state.ts'
import type { MemoryItem, MemoryWrite, Profile, SessionSetting, UsedMemory } from '../../lib/state/model.ts'

/** Each stored type is its schema's output. */
expectTypeOf<MemoryItem>().toEqualTypeOf<z.output<typeof MemoryItemStored>>()
expectTypeOf<Profile>().toEqualTypeOf<z.output<typeof ProfileStored>>()
expectTypeOf<SessionSetting>().toEqualTypeOf<z.output<typeof SessionSettingStored>>()

/** A stored shape has exactly the fields its input schema takes: a field added to the input reaches the stored type. */
expectTypeOf<keyof MemoryItem>().toEqualTypeOf<keyof z.output<typeof MemoryItemInput>>()
expectTypeOf<keyof Profile>().toEqualTypeOf<keyof z.output<typeof ProfileRecord>>()
expectTypeOf<keyof SessionSetting>().toEqualTypeOf<keyof z.output<typeof SessionSettingInput>>()
expectTypeOf<keyof MemoryWrite>().toEqualTypeOf<keyof z.output<typeof MemoryWriteInput>>()

/** What the store fills in is there; a flag is stored as `true` or left out; the lists of a profile hold items. */
expectTypeOf<MemoryItem['id']>().toEqualTypeOf<string>()
expectTypeOf<MemoryItem['source']>().toEqualTypeOf<'user' | 'tool' | 'auto' | 'compress' | 'import'>()
expectTypeOf<MemoryItem['pinned']>().toEqualTypeOf<true | undefined>()
expectTypeOf<MemoryItem['sessionId']>().toEqualTypeOf<string | undefined>()
expectTypeOf<Profile['memory']['items'][number]>().toEqualTypeOf<MemoryItem>()
expectTypeOf<Profile['name']>().toEqualTypeOf<string>()
expectTypeOf<SessionSetting['profileId']>().toEqualTypeOf<string | null>()
expectTypeOf<MemoryWrite['edited'][number]['after']>().toEqualTypeOf<MemoryItem>()
expectTypeOf<UsedMemory['recalled']>().toEqualTypeOf<true | undefined>()

// @ts-expect-error a stored item's flag is never false
export const unpinned: MemoryItem = { id: 'a', text: 'x', source: 'user', at: 0, pinned: false }
