/**
 * The outcomes of one extraction part (job.ts) that do not hang on the model's answer: why a part is not sent (its
 * profile gone or remembering nothing, no route, nothing to read), why an answer is not stored (what changed while
 * the model answered), and storing the placed facts one layer at a time. It never calls the model.
 */
import type { Session } from '@deepseek-ai/dsh-session'
import type { Profile, SessionSetting } from '../state/model.ts'
import type { CommandOf } from '../shared/schema-commands.ts'
import type { ProfileStore } from '../store/store.ts'
import { errorText } from '../shared/errors.ts'
import type { RunResult } from '../shared/diagnostics.ts'

/** The profile a part's facts go to (a speaker, or the conversation's own as it is now) and the conversation's setting. */
export function partTarget(
  store: ProfileStore,
  session: Session,
  speakerId: string | undefined,
): { profile: Profile | undefined; setting?: SessionSetting } {
  const own = store.effective(session.id)
  const profile = speakerId === undefined ? own.profile : store.state.profiles.find((p) => p.id === speakerId)
  return { profile, ...(own.setting ? { setting: own.setting } : {}) }
}

/** Why a part is not sent to the model at all (its profile gone or remembering nothing, no route, nothing to read). */
export function skippedBefore(profile: Profile | undefined, route: unknown, excerpt: string): RunResult | undefined {
  if (profile === undefined)
    return { outcome: 'skipped', skip: 'profile-deleted', reason: 'the profile that answered was deleted' }
  if (!profile.memoryEnabled)
    return {
      outcome: 'skipped',
      skip: 'memory-off',
      params: { name: profile.name },
      reason: `memory is off in「${profile.name}」`,
    }
  if (!route)
    return { outcome: 'failed', failure: 'unavailable', reason: 'no model route is known for this conversation' }
  if (excerpt === '') return { outcome: 'skipped', skip: 'nothing-to-read', reason: 'nothing to read' }
  return undefined
}

/** Why a part's answer is not stored: what changed while the model answered (the profile, incognito, memory off). */
export function skippedAfter(now: ReturnType<typeof partTarget>): RunResult | undefined {
  if (now.profile === undefined)
    return {
      outcome: 'skipped',
      skip: 'profile-deleted',
      reason: 'the profile that answered was deleted while the model answered',
    }
  if (now.setting?.incognito === true)
    return {
      outcome: 'skipped',
      skip: 'incognito',
      reason: 'the conversation was made incognito while the model answered',
    }
  if (!now.profile.memoryEnabled)
    return {
      outcome: 'skipped',
      skip: 'memory-off',
      params: { name: now.profile.name },
      reason: `memory was turned off in「${now.profile.name}」`,
    }
  return undefined
}

/** One write per layer; a layer whose write is refused keeps what it had, and the other layers still get theirs. */
export async function storeFacts(
  store: ProfileStore,
  places: ReadonlyArray<Pick<CommandOf<'memory.add'>, 'target' | 'items'>>,
  speaker: string,
): Promise<{ added: number; replaced: number; refused: string[] }> {
  let added = 0
  let replaced = 0
  const refused: string[] = []
  for (const { target, items } of places) {
    try {
      // The profile that answered: About-you facts a team profile brought are proposed, never written (memory.ts).
      const from = 'user' in target ? { from: speaker } : {}
      const result = await store.command({ op: 'memory.add', target, items, ...from })
      added += result.added.length
      replaced += result.replaced.length
    } catch (e) {
      refused.push(errorText(e))
    }
  }
  return { added, replaced, refused }
}
