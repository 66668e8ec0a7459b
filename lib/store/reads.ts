/**
 * The store's answers that are read, never written: the profile a conversation uses, an avatar's hash, how a
 * deleted profile looked, the turn ledger, the conversations the store knows. Each answers from the state and the
 * database it is handed, and a fault of the database is logged and answered as "nothing" (a read never fails a page
 * or a turn). It never catches up with other processes (the store does, before it asks) and never writes.
 */
import type { Profile, SessionSetting, State } from '../state/model.ts'
import type { RetiredProfile } from '../shared/wire-replies.ts'
import { errorText } from '../shared/errors.ts'
import type { AvatarFiles } from './db/avatars.ts'
import type { Database } from './db/database.ts'

/** Where a read's fault is reported: the message for the log, and the error (a damaged page is more than a warning). */
type Warn = (message: string, error: unknown) => void

/** The profile a conversation uses now: its pin when it has one, else the global active profile. */
export function effectiveProfile(
  state: State,
  sessionId?: string,
): { profile: Profile; pinned: boolean; setting?: SessionSetting } {
  const setting = sessionId === undefined ? undefined : state.sessions.get(sessionId)
  const pin = setting?.profileId == null ? undefined : state.profiles.find((p) => p.id === setting.profileId)
  const profile = pin ?? state.profiles.find((p) => p.id === state.activeId) ?? state.profiles[0]!
  return setting === undefined
    ? { profile, pinned: pin !== undefined }
    : { profile, pinned: pin !== undefined, setting }
}

/** Short content hash of a profile's avatar, '' when it has none. */
export function avatarHashOf(state: State, avatars: AvatarFiles, profileId: string): string {
  const p = state.profiles.find((x) => x.id === profileId)
  return p === undefined || p.avatar === '' ? '' : avatars.infoOf(p).hash
}

/** How a deleted profile looked; undefined when it is not one (or the database cannot say). */
export function retiredOf(db: Database | undefined, profileId: string, warn: Warn): RetiredProfile | undefined {
  try {
    return db?.retired(profileId)
  } catch (e) {
    warn(`agent-profiles: reading how a deleted profile looked failed: ${errorText(e)}`, e)
    return undefined
  }
}

/** A read of the turn ledger; no database, or a fault (logged), reads as `fallback`. */
export function ledgerRead<T>(read: () => T | undefined, fallback: T, warn: Warn): T {
  try {
    return read() ?? fallback
  } catch (e) {
    warn(`agent-profiles: reading the turn ledger failed: ${errorText(e)}`, e)
    return fallback
  }
}

/** Every conversation the state holds settings of or the ledger holds turns of. */
export function conversationIdsOf(state: State, db: Database | undefined, warn: Warn): string[] {
  const ids = new Set(state.sessions.keys())
  for (const id of ledgerRead(() => db?.ledger.sessions(), [], warn)) ids.add(id)
  return [...ids]
}
