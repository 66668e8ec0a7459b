/**
 * The wire form of the store's data: state with each profile as its head (no long texts, no memory items) and each
 * avatar data URL replaced by a cacheable `/__ap/avatar/<id>?v=<hash>` URL, a whole profile for the page that shows
 * it, the reverse mapping for avatars that come back in command patches, and the avatar bytes themselves.
 * Owns only these translations; it never writes the store and never talks HTTP.
 */

import { AVATAR_PREFIX, hasHistory, type Profile, type State } from '../state/model.ts'
import { profileHead } from './profile-head.ts'
import { itemTally } from '../state/lazy-list.ts'
import { pinCounts } from '../state/sessions.ts'
import type { ProfileStore } from '../store/store.ts'
import { avatarParts } from '../validate/state.ts'
import { WIRE } from '../shared/wire-table.ts'
import type { MemoryCounts } from '../shared/wire-replies.ts'
import type { ProfileHead, WireProfile, WireSession, WireState } from '../shared/wire-state.ts'

/** Path prefix of the avatar route; `<prefix><encoded id>?v=<hash>` is an avatar URL. */
const AVATAR_PATH = WIRE.avatar.path

/** The cacheable URL of a profile's avatar, or '' when it has none. */
export function avatarUrl(store: ProfileStore, profileId: string): string {
  const hash = store.avatarHash(profileId)
  return hash === '' ? '' : `${AVATAR_PATH}${encodeURIComponent(profileId)}?v=${encodeURIComponent(hash)}`
}

/** The profile with its avatar data URL swapped for its avatar URL, and without its Character Card extras. */
export function toWireProfile(store: ProfileStore, profile: Profile): WireProfile {
  // Card extras only feed exports, which the host writes; they can be large, and the browser never reads them.
  if (profile.card !== undefined) {
    const { card: _card, ...rest } = profile
    return toWireProfile(store, rest)
  }
  return profile.avatar === '' ? profile : { ...profile, avatar: avatarUrl(store, profile.id) }
}

/**
 * The profile with only the core of its memory: archived items (thousands, in a long-used profile) reach the page
 * through the memory list's route, one window at a time.
 */
export function coreOnly(profile: WireProfile): WireProfile {
  if (!profile.memory.items.some((it) => it.archived === true)) return profile
  return { ...profile, memory: { ...profile.memory, items: profile.memory.items.filter((it) => it.archived !== true) } }
}

/** How many items a profile's memory holds in all, archived, and awaiting approval. */
export function memoryCounts(profile: Profile): MemoryCounts {
  // Counted from the rows when the items are still on disk (see lib/state/lazy-list.ts).
  return itemTally(profile.memory.items)
}

/** What every state reply carries of a profile (see {@link ProfileHead}). */
export function wireHead(store: ProfileStore, profile: Profile): ProfileHead {
  return profileHead(profile, profile.avatar === '' ? '' : avatarUrl(store, profile.id))
}

/** The wire's `undo`: per profile with a compression to undo, when that compression ran. */
export function undoTimes(state: State): Record<string, number> {
  return Object.fromEntries(Object.entries(state.memoryUndo ?? {}).map(([id, entry]) => [id, entry.at]))
}

// Snapshots and their profiles are frozen and replaced on change, while an untouched profile keeps its object from one
// snapshot to the next. So each head is serialized and UTF-8 encoded once for as long as its profile is unchanged, and
// a new snapshot costs the changed heads plus one copy of the rest; the whole is kept per snapshot, since every reply
// of a batch carries the same one. Its size follows the number of profiles (a few hundred bytes each), never their
// texts or memories, nor the number of conversations.
const wireBytes = new WeakMap<State, Buffer>()
const partBytes = new WeakMap<object, Buffer>()
const COMMA = Buffer.from(',')

function encodedOnce(part: object, json: () => string): Buffer {
  let bytes = partBytes.get(part)
  if (bytes === undefined) {
    bytes = Buffer.from(json())
    partBytes.set(part, bytes)
  }
  return bytes
}

/** The wire state of the store's current snapshot as UTF-8 JSON (its `profiles` key first); callers must not modify it. */
export function wireStateBytes(store: ProfileStore, state: State = store.state): Buffer {
  let bytes = wireBytes.get(state)
  if (bytes === undefined) {
    // The history is read one list at a time (`memory.history`), never with every state.
    // The user layer's items come from their own route; the state carries only their count.
    const { profiles, sessions, memoryUndo: _undo, history: _history, user, ...rest } = state
    const parts: Buffer[] = [Buffer.from('{"profiles":[')]
    profiles.forEach((p, i) => {
      if (i > 0) parts.push(COMMA)
      parts.push(encodedOnce(p, () => JSON.stringify(wireHead(store, p))))
    })
    const tail = {
      ...rest,
      undo: undoTimes(state),
      pins: Object.fromEntries(pinCounts(sessions)),
      conversations: sessions.size,
      userItems: user?.items.length ?? 0,
    } satisfies Omit<WireState, 'profiles'>
    parts.push(Buffer.from(`],${JSON.stringify(tail).slice(1)}`))
    bytes = Buffer.concat(parts)
    wireBytes.set(state, bytes)
  }
  return bytes
}

/** One conversation's wire form (see {@link WireSession}). */
export function wireSession(store: ProfileStore, sessionId: string): WireSession {
  const { profile, pinned, setting } = store.effective(sessionId)
  return {
    sessionId,
    setting: setting ?? null,
    profileId: profile.id,
    pinned,
    ...(hasHistory(store.state, { sessionId }) ? { history: true as const } : {}),
  }
}

/** A parsed avatar URL: whose avatar, and the hash the URL was minted with. */
export interface AvatarRef {
  id: string
  hash: string
}

/** Parse `/__ap/avatar/<id>?v=<hash>` (also without the query); undefined for anything else. */
export function parseAvatarUrl(value: string): AvatarRef | undefined {
  const match = /^\/__ap\/avatar\/([^/?#&]+)(?:\?v=([^/?#&]*))?$/.exec(value)
  if (match === null) return undefined
  try {
    return { id: decodeURIComponent(match[1]!), hash: decodeURIComponent(match[2] ?? '') }
  } catch {
    return undefined
  }
}

/** What an avatar URL found in a command means: keep the avatar as it is, use these data URL bytes, or nothing usable. */
export type AvatarResolution = { kind: 'unchanged' } | { kind: 'data'; dataUrl: string } | { kind: 'unknown' }

/**
 * Resolve an avatar URL sent back by the browser. The profile's own avatar URL (even a stale one) means "unchanged":
 * the draft never touched it, so a newer avatar saved meanwhile must survive. Another profile's current avatar URL
 * stands for its bytes (copying an avatar onto a new draft).
 */
export function resolveAvatarUrl(store: ProfileStore, ref: AvatarRef, selfId: string | undefined): AvatarResolution {
  if (selfId !== undefined && ref.id === selfId) return { kind: 'unchanged' }
  const source = store.state.profiles.find((p) => p.id === ref.id)
  if (source === undefined || source.avatar === '' || store.avatarHash(source.id) !== ref.hash)
    return { kind: 'unknown' }
  return { kind: 'data', dataUrl: source.avatar }
}

/** Decoded avatar bytes with their type and entity tag. */
export interface AvatarImage {
  type: string
  bytes: Buffer
  etag: string
  hash: string
}

// Decoding is cached per (profile, content hash); bounded so deleted or re-uploaded avatars cannot pile up.
const AVATAR_CACHE_MAX = 256
const avatarCache = new Map<string, AvatarImage>()

/** The current avatar of a profile as bytes, or undefined when the profile is unknown or has none. */
export function avatarImage(store: ProfileStore, profileId: string): AvatarImage | undefined {
  const profile = store.state.profiles.find((p) => p.id === profileId)
  if (profile === undefined || profile.avatar === '') return undefined
  const hash = store.avatarHash(profileId)
  const key = `${profileId}\n${hash}`
  const cached = avatarCache.get(key)
  if (cached !== undefined) return cached
  // The store admits only raster base64 data URLs; re-checking here keeps a hand-edited file from serving SVG.
  if (!AVATAR_PREFIX.test(profile.avatar)) return undefined
  const { type, bytes } = avatarParts(profile.avatar)
  const image: AvatarImage = { type: `image/${type}`, bytes, etag: `"${hash}"`, hash }
  if (avatarCache.size >= AVATAR_CACHE_MAX) avatarCache.clear()
  avatarCache.set(key, image)
  return image
}
