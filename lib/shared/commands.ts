/**
 * The commands of `POST /__ap/command` by op: what each takes, what each answers, and which only the host half may
 * send. The browser's `command(op, args)` (client/data/api.ts) and the route that hands a body to the store
 * (http/routes.ts) are typed with it, so a misspelt op or field, a host-only op sent from the page, or a reply field
 * no op answers fails the typecheck. Built from the op schemas (schema-commands.ts, types only) and the names in contract.ts (`CommandReply` and the reply
 * shapes); it never validates anything (each operation checks the fields it is given) and holds no behaviour but the
 * one list of host-only ops.
 */
import type { MemoryItem, MemoryWrite, Profile } from '../state/model.ts'
import type {
  Command,
  CommandReply,
  FileResult,
  MemoryHistoryEntry,
  MergeReport,
  NameChange,
  ProfileHead,
  WireSession,
} from './contract.ts'
import type { CommandInput, Op } from './schema-commands.ts'

export type { Op }

/**
 * The ops only the host half sends, refused over HTTP. The turn ledger (`turn.record`): which profile answered a turn
 * is the host's to say. `sessions.forget`: which conversations still exist is the host's own listing. Compression
 * (`memory.compress`): the background job's alone, because it also keeps the copy `memory.undo` restores, so a page
 * sending one would make "undo the compression" undo what was no compression (the page edits memory with
 * `profile.update`). A sync's pull (`sync.apply`): what another machine saved is the sync repository's to say. A team
 * library's pull (`library.apply`): what a team profile says is the team repository's to say.
 */
export const HOST_ONLY_OPS = [
  'turn.record',
  'sessions.forget',
  'memory.compress',
  'sync.apply',
  'library.apply',
] as const satisfies readonly Op[]

/** An op only the host half sends (see {@link HOST_ONLY_OPS}). */
export type HostOnlyOp = (typeof HOST_ONLY_OPS)[number]

/** An op the browser may send. */
export type BrowserOp = Exclude<Op, HostOnlyOp>

/** A command the browser may send: what the route hands the store. */
export type BrowserCommand = Extract<Command, { op: BrowserOp }>

/** What op `O` takes besides its name. */
export type ArgsOf<O extends Op> = Omit<CommandInput<O>, 'op'>

/** Whether `op` is one only the host half sends. */
export function isHostOnly(op: string): op is HostOnlyOp {
  return (HOST_ONLY_OPS as readonly string[]).includes(op)
}

/** A command on a memory list answers with the conversation too when the list is a conversation's. */
type ListFields = { session?: WireSession }

/** A command on one conversation's settings answers with that conversation as it is now. */
type ConversationFields = { session: WireSession }

/** A reply that adds nothing to the state, meta and notice. */
type NoFields = Record<never, never>

/**
 * The fields each op's reply adds to {@link CommandReply}. A profile a reply carries (create, duplicate) goes out as
 * its head, like the profiles of the state.
 */
export interface ReplyFields {
  'profile.create': { profile: ProfileHead }
  'profile.update': NoFields
  'profile.duplicate': { profile: ProfileHead }
  /** How many conversations were unpinned, and how many casts lost the profile. */
  'profile.delete': { unbound: number; uncast: number }
  'profile.activate': NoFields
  /** The items written, the texts already known, the items the new ones replaced, and the replacements that could not
   * apply (texts; the new fact was kept beside the old one). */
  'memory.add': ListFields & { added: MemoryItem[]; duplicates: string[]; replaced: MemoryItem[]; unresolved: string[] }
  'memory.update': ListFields
  'memory.remove': ListFields
  'memory.clear': ListFields
  'memory.undo': NoFields
  /** Newest first, at most 200. */
  'memory.history': ListFields & { entries: MemoryHistoryEntry[] }
  /** As `memory.add`: the lines added, and those the memory already had or an earlier line said. */
  'memory.paste': ReplyFields['memory.add']
  /** The item the approved suggestion replaced, when it named one. */
  'memory.approve': ListFields & { replaced: MemoryItem[] }
  /** How many items the revert changed back (0: the change is gone already). */
  'memory.revert': ListFields & { reverted: number }
  'session.set': ConversationFields
  'user.set': NoFields
  'session.clear': ConversationFields
  'session.refreshMemory': ConversationFields
  /** How many conversations' settings went. */
  'sessions.clearAll': { cleared: number }
  /** Profiles imported; a merge reports what it did with the rest, a replace how many conversations it unpinned;
   * `userAdded` (present when the file brought any) counts the user-layer facts it added. */
  'state.import': { imported: number; userAdded?: number } & (MergeReport | { unbound: number; names: NameChange[] })
  /** Profiles imported in all, what became of each file, and the user-layer facts the files brought as suggestions. */
  'profiles.importFiles': { imported: number; files: FileResult[]; userAdded: number }
  'state.restoreDefaults': NoFields
}

/** What op `O` answers. */
export type ReplyOf<O extends BrowserOp> = CommandReply & ReplyFields[O]

/**
 * The fields each op's reply carries on the host side (`store.command`), before the route turns a profile into its
 * head and adds the conversation. Every op has an entry, the host-only ones too.
 */
export interface HostReplyFields {
  'profile.create': { profile: Profile }
  'profile.update': NoFields
  'profile.duplicate': { profile: Profile }
  'profile.delete': ReplyFields['profile.delete']
  'profile.activate': NoFields
  'memory.add': { added: MemoryItem[]; duplicates: string[]; replaced: MemoryItem[]; unresolved: string[] }
  'memory.update': NoFields
  'memory.remove': NoFields
  'memory.clear': NoFields
  /** How many items the compression carried over unchanged. */
  'memory.compress': { carried: number }
  'memory.undo': NoFields
  'memory.history': { entries: MemoryHistoryEntry[] }
  'memory.approve': { replaced: MemoryItem[] }
  'memory.paste': HostReplyFields['memory.add']
  'memory.revert': { reverted: number }
  'session.set': NoFields
  'user.set': NoFields
  'session.clear': NoFields
  'session.refreshMemory': NoFields
  'sessions.clearAll': ReplyFields['sessions.clearAll']
  'state.import': ReplyFields['state.import']
  'profiles.importFiles': ReplyFields['profiles.importFiles']
  'state.restoreDefaults': NoFields
  'turn.record': NoFields
  /** How many conversations' settings went. */
  'sessions.forget': { forgotten: number }
  /** How many profiles the pull changed, added or deleted. */
  'sync.apply': { profiles: number }
  /** How many of the library's profiles the pull added, changed or took away. */
  'library.apply': {
    profiles: number
    /** The memory items and history of the library's profiles that left the list, as they were at that moment. */
    gone: { id: string; items: MemoryItem[]; history: MemoryWrite[] }[]
  }
}

/** Whether `T` is a union of more than one type. */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/**
 * What the host's `store.command` answers for op `O`: its own fields when the one op is known where it is sent; for a
 * command whose op is one of several or none known (a body the route hands on), any field, unknown until checked.
 */
export type HostReplyOf<O extends Op> = [O] extends [never]
  ? Record<string, unknown>
  : true extends IsUnion<O>
    ? Record<string, unknown>
    : HostReplyFields[O]
