/**
 * What the routes that only read answer besides the state (lib/shared/wire-table.ts names each route's reply): a
 * profile whole, the user layer, a conversation's turns, a memory list's window and its bounds, a preview, the
 * backups. Both halves import these declarations. Types and constants only; no behaviour.
 */
import type { MemoryItem, UsedMemory } from '../state/model.ts'
import type { TurnModel } from './models.ts'
import type { ProfileHead, WireProfile } from './wire-state.ts'

/** What `POST /__ap/preview` answers. */
export interface PreviewReply {
  text: string
  chars: number
  tokens: number
}

/** `GET /__ap/turns/<sessionId>`: which profile answered each turn, and how many memory items each turn's requests
 * carried (turns recorded since that was kept). */
export interface TurnsReply {
  turns: Record<number, string>
  memories: Record<number, number>
  /** Which model answered each turn this host process ran (absent on a host without the model part). */
  models?: Record<number, TurnModel>
}

/** `GET /__ap/turns/<sessionId>?turn=N`: the memory items turn N's requests carried, null when none were recorded. */
export interface TurnMemoriesReply {
  turn: number
  memories: UsedMemory[] | null
}

/** A deleted profile as the turns it answered still show it: its look when it was deleted, and when that was. */
export interface RetiredProfile {
  id: string
  name: string
  emoji: string
  /** The avatar's raster data URL, or '' when it had none. */
  avatar: string
  at: number
}

/** What `GET /__ap/user` answers: the user layer's items and its share of the memory budget, in characters. */
export interface UserReply {
  items: MemoryItem[]
  /** Characters of the memory budget the user layer may use while the rest of memory needs it. */
  share: number
  budget: number
  /** The layer has recorded writes; absent: none yet. */
  history?: true
}

/** How many items a profile's memory holds in all (core and archive), how many of them are archived, how many are
 * suggestions. */
export interface MemoryCounts {
  items: number
  archived: number
  pending: number
}

/** Items one `GET /__ap/memory/search` answers at most, and by default. */
export const SEARCH_PAGE = { max: 200, default: 50 } as const

/** Characters of a search query at most. */
export const SEARCH_QUERY_CHARS = 200

/**
 * Different words a memory-list search looks for at most (each costs a pass over the list), counted after those
 * another word of the query already holds are dropped.
 */
export const SEARCH_QUERY_WORDS = 8

/**
 * What `GET /__ap/memory/search?layer=&owner=&q=&source=&archived=&pending=&offset=&limit=` answers: the window
 * `[offset, offset + limit)` of the items of one memory list that match, and how many match in all. Without `q`
 * newest first; with `q` best match first.
 */
export interface MemorySearchReply {
  items: MemoryItem[]
  total: number
  offset: number
  limit: number
  revision: number
}

/**
 * What `GET /__ap/profile/<id>` answers: the profile whole (its memory carrying only the core items: archived ones
 * come from the search route) with its head and the store revision it was read at, or
 * (for one deleted since) how it looked. With `?head` a profile answers with its head alone.
 */
export type ProfileReply =
  | {
      profile: WireProfile
      head: ProfileHead
      revision: number
      memoryCounts: MemoryCounts
      /** Its memory has recorded writes (`memory.history` has something to show); absent: none yet. Here, not in
       * the head: every head field is paid 200 times in every state reply. */
      history?: true
      /**
       * Only in a save's reply that asked for it (`POST /__ap/command?window=N`), and only when the memory has an
       * archive: the first N items of its memory list unfiltered, as `GET /__ap/memory/search` answers them, so the
       * page shows the saved list without asking for it again (without an archive the core above is the whole list).
       */
      window?: MemorySearchReply
    }
  | { head: ProfileHead }
  | { retired: RetiredProfile }

/** One backup the user can restore, and what it holds. */
export interface BackupInfo {
  /** `2026-12-01` (the day's copy) or `<timestamp>-before-restore` (the data a restore replaced). */
  name: string
  kind: 'daily' | 'before-restore'
  /** When it was taken (ms). */
  at: number
  /** Size on disk, avatars included. */
  bytes: number
  profiles: { id: string; name: string; items: number }[]
  /** Memory items in all (the user layer's too). */
  items: number
  sessions: number
}

/** What `GET /__ap/backups` answers. */
export interface BackupsReply {
  backups: BackupInfo[]
}
