/**
 * A profile's head (see {@link ProfileHead}): the part of it every state reply carries. One function for the host's
 * wire and for anything else that must show a profile the way the state does.
 */
import type { ProfileHead } from './contract.ts'
import type { Profile } from './model.ts'

/** The head of `profile`, with `avatar` (its avatar URL, or '') in place of its avatar data URL. */
export function profileHead(profile: Profile, avatar: string): ProfileHead {
  const { id, name, emoji, updatedAt, memory, model } = profile
  const pending = memory.items.reduce((n, it) => (it.pending === true ? n + 1 : n), 0)
  return { id, name, emoji, avatar, updatedAt, ...(pending > 0 ? { pending } : {}), ...(model === undefined ? {} : { model: model.model }) }
}
