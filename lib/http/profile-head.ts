/**
 * A profile's head (see {@link ProfileHead}): the part of it every state reply carries. One function for the host's
 * wire and for anything else that must show a profile the way the state does.
 */
import type { ProfileHead } from '../shared/wire-state.ts'
import type { Profile } from '../state/model.ts'
import { itemTally } from '../state/lazy-list.ts'

/**
 * Characters of the model id a head carries: every head field is paid 200 times in every state reply, and the 64 KB
 * a reply may hold leave about 7 KB beside 200 heads at their limits; 20 take 6.6 KB there (shorter ids —
 * `deepseek-v4-flash`, `claude-sonnet-4-5` — come whole; a longer one ends in "…", whole in the editor).
 */
export const HEAD_MODEL_CHARS = 20

/** The head of `profile`, with `avatar` (its avatar URL, or '') in place of its avatar data URL. */
export function profileHead(profile: Profile, avatar: string): ProfileHead {
  const { id, name, emoji, updatedAt, memory, model, library } = profile
  // Counted from the rows when the items are still on disk (lazy-list.ts): a head never reads a whole memory.
  const { pending } = itemTally(memory.items)
  return {
    id,
    name,
    emoji,
    avatar,
    updatedAt,
    ...(pending > 0 ? { pending } : {}),
    ...(model === undefined ? {} : { model: clip(model.model) }),
    ...(library === undefined ? {} : { library: library.name }),
  }
}

/** `id` within {@link HEAD_MODEL_CHARS} code points, a longer one cut with "…". */
function clip(id: string): string {
  const chars = [...id]
  return chars.length <= HEAD_MODEL_CHARS ? id : `${chars.slice(0, HEAD_MODEL_CHARS - 1).join('')}…`
}
