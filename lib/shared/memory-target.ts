/**
 * Where a memory command writes (a profile's own memory, one conversation's memories, the user layer): the three
 * forms of a target and their schemas, the layer each names, and a history entry as `memory.history` answers it with
 * its list. Both halves import it; it never reads the state.
 */
import * as z from 'zod'
import type { MemoryLayer, MemoryWrite } from '../state/model.ts'
import { id, sessionId, strict } from '../state/schema-kit.ts'

/** The three forms of a memory target, each with its own keys. */
const TARGETS = {
  profile: strict({ profileId: id }),
  session: strict({ sessionId }),
  user: strict({ user: z.literal(true) }),
}

/** Where a memory operation writes: a profile's own memory, one conversation's memories, or the user layer. */
export type MemoryTarget = z.output<(typeof TARGETS)[keyof typeof TARGETS]>

/** The target of a memory command as its schema types it; which of the three forms it is decides how it is checked
 * (see {@link targetSchemaOf}), so a refusal names the field of that form. */
export const targetField = z.custom<MemoryTarget>(() => true)

/** The form a memory target takes by the keys it has, or undefined when it is none of them. */
export function targetSchemaOf(t: Record<string, unknown>): (typeof TARGETS)[keyof typeof TARGETS] | undefined {
  if (t.profileId !== undefined && t.sessionId === undefined) return TARGETS.profile
  if (t.sessionId !== undefined && t.profileId === undefined) return TARGETS.session
  return t.user === true ? TARGETS.user : undefined
}

/** The memory list a layer names for a conversation (`sessionId`) on a profile (`profileId`). */
export function layerTarget(layer: MemoryLayer, profileId: string, sessionId: string): MemoryTarget {
  return layer === 'user' ? { user: true } : layer === 'conversation' ? { sessionId } : { profileId }
}

/** The layer a memory list belongs to. */
export function targetLayer(target: MemoryTarget): MemoryLayer {
  return 'user' in target ? 'user' : 'profileId' in target ? 'profile' : 'conversation'
}

/** A history entry as `memory.history` answers it: with the list it belongs to and the entries that reverted it. */
export type MemoryHistoryEntry = MemoryWrite & { target: MemoryTarget; revertedBy?: string[] }
