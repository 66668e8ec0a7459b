/**
 * The state as the page sees it and how it hears of changes: each profile as its head, one conversation's settings,
 * the reply of every route that changes the data, and the push channel's events. Both halves import these
 * declarations, so renaming a field fails the typecheck of both. Types only; no behaviour.
 */
import type { Profile, SessionSetting, State } from '../state/model.ts'
import type { Meta } from './meta.ts'
import type { Notice } from './notices.ts'

/** A profile as the browser sees it: `avatar` is '' or an avatar URL, never a data URL. */
export type WireProfile = Profile

/**
 * A profile as every state reply carries it: what the lists, the switcher and the turn heads show, never its texts,
 * tool settings or memory (200 profiles at their limits would make every reply megabytes). A page that shows or edits
 * any of those fetches the profile whole (`GET /__ap/profile/<id>`); `updatedAt` moves with every save of the profile,
 * so a copy fetched earlier is current while its `updatedAt` is the head's. Every field here is paid 200 times in every
 * reply: with 200 profiles at their limits (40-character names) the heads take about 57 KB of the 64 KB a reply may.
 */
export interface ProfileHead {
  id: string
  name: string
  emoji: string
  /** '' or an avatar URL, as in {@link WireProfile}. */
  avatar: string
  updatedAt: number
  /** Memory items awaiting the user's approval (ask-first mode); present when there are any. */
  pending?: number
  /** The model id the profile brings, cut to HEAD_MODEL_CHARS (lib/http/profile-head.ts; whole, with its provider and
   * controls, in the whole profile); absent: the conversation's model. */
  model?: string
  /** The name of the team library a team profile comes from (read-only in the page); absent: the user's own. */
  library?: string
}

/**
 * State as the browser sees it: each profile as its {@link ProfileHead}. In place of `memoryUndo` (a full copy of each
 * compressed profile's previous memory, which only the host reads) it carries `undo`: profile id → when the
 * compression that `memory.undo` can revert ran. The history is not in it: `memory.history` reads one list at a time. In place of
 * the conversation settings (100,000 of them would make every reply
 * megabytes) it carries `pins` (profile id → how many conversations pin it) and `conversations` (how many have
 * settings); one conversation's settings come from `GET /__ap/session/<id>` (see {@link WireSession}).
 */
export type WireState = Omit<State, 'memoryUndo' | 'sessions' | 'history' | 'user' | 'profiles'> & {
  profiles: ProfileHead[]
  undo?: Record<string, number>
  /** How many items the user layer holds; the items come from `GET /__ap/user` (see {@link UserReply}). */
  userItems: number
  pins: Record<string, number>
  /** How many conversations have settings of their own. */
  conversations: number
}

/** One conversation as the browser sees it: its own settings (null when it has none) and the profile it uses now. */
export interface WireSession {
  sessionId: string
  setting: SessionSetting | null
  /** The profile in effect now: the pin when it names an existing profile, else the global default. */
  profileId: string
  pinned: boolean
  /** Its own memories have recorded writes; absent: none yet. */
  history?: true
}

/** What a route that changes the data answers (a command, a restore): the state after it and the `meta` with it. */
export interface StateReply {
  state: WireState
  meta: Meta
}

/**
 * What `POST /__ap/command` answers for every op: the state after it, its `meta` and the command's notice. The fields
 * each op adds to it are in shared/commands.ts (`ReplyOf`).
 */
export interface CommandReply extends StateReply {
  notice: Notice
}

/** One change as the browser hears it. Every list is of ids; an empty list means nothing of that kind changed. */
export interface Change {
  /** Profiles added or changed. */
  profiles: string[]
  /** Of those, the ones whose memory changed (saved by the user, the model, or the background job). */
  memory: string[]
  /** Profiles removed. */
  removed: string[]
  /** The profile ids in list order, present when a profile was added, removed or moved. */
  order?: string[]
  /** The new global default, present when it changed. */
  activeId?: string
  /** Conversations whose settings changed (a pin, a note, a conversation memory), or were forgotten. */
  sessions: string[]
  /** Per profile, when its last compression ran (what `memory.undo` reverts), present when that changed. */
  undo?: Record<string, number>
  /** The state's pins per profile and count of conversations with settings, present when conversations changed. */
  pins?: Record<string, number>
  conversations?: number
  /** The user layer's item count, present when the user layer changed (the page fetches `GET /__ap/user`). */
  user?: number
}

/**
 * One event of the push channel. `change`: a saved change, its `id` the store revision it made. `reload`: the page
 * asked to resume from a revision the channel no longer remembers (or from another run of the host), so it must
 * load the state afresh. `meta`: what the meta says of the data changed with no saved change (the background
 * integrity check started or ended), at the revision the channel is at: the page fetches the meta; it is never kept
 * for a page that resumes, which loads the meta with the state anyway.
 */
export type LiveEvent =
  | { kind: 'change'; revision: number; change: Change }
  | { kind: 'reload'; revision: number }
  | { kind: 'meta'; revision: number }
