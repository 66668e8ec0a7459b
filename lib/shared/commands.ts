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
  ProfileReply,
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
 * library's pull (`library.apply`): what a team profile says is the team repository's to say. A learning run's
 * facts (`memory.learn`): what a call found is the run's to say, with the run's id that undoes it.
 */
export const HOST_ONLY_OPS = [
  'turn.record',
  'sessions.forget',
  'memory.compress',
  'sync.apply',
  'library.apply',
  'memory.learn',
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

/** A profile a reply carries goes out as its head, like the profiles of the state; every other field as it is. */
type OnTheWire<T> = { [K in keyof T]: T[K] extends Profile ? ProfileHead : T[K] }

/** The ops that change one conversation's settings: each answers with that conversation as it is now. */
type ConversationOp = 'session.set' | 'session.clear' | 'session.refreshMemory'

/**
 * What the route adds to an op's reply, read off the op's schema: a command on a conversation answers with it; one
 * on a memory list (a schema with a `target`) answers with the conversation too when the list is a conversation's;
 * a saved profile answers with itself whole (the editor that saved it reads it from there).
 */
type RouteFields<O extends BrowserOp> = (O extends ConversationOp
  ? { session: WireSession }
  : 'target' extends keyof CommandInput<O>
    ? { session?: WireSession }
    : unknown) &
  (O extends 'profile.update' ? { saved: Extract<ProfileReply, { profile: unknown }> } : unknown)

/**
 * What op `O` answers the page: the state, meta and notice, the op's own fields as the store answers them
 * ({@link HostReplyFields}) with a profile as its head, and what the route adds ({@link RouteFields}). Derived, so a
 * new op has one reply map to fill, the host's.
 */
export type ReplyOf<O extends BrowserOp> = CommandReply & OnTheWire<HostReplyFields[O]> & RouteFields<O>

/** A reply that adds nothing to the state, meta and notice. */
type NoFields = Record<never, never>

/**
 * The fields each op's reply carries on the host side (`store.command`), before the route turns a profile into its
 * head and adds the conversation: the one reply map, from which the page's ({@link ReplyOf}) is derived. Every op has
 * an entry, the host-only ones too.
 */
export interface HostReplyFields {
  'profile.create': { profile: Profile }
  'profile.update': NoFields
  'profile.duplicate': { profile: Profile }
  /** How many conversations were unpinned, and how many casts lost the profile. */
  'profile.delete': { unbound: number; uncast: number }
  'profile.activate': NoFields
  /** The items written, the texts already known, the items the new ones replaced, and the replacements that could not
   * apply (texts; the new fact was kept beside the old one). */
  'memory.add': { added: MemoryItem[]; duplicates: string[]; replaced: MemoryItem[]; unresolved: string[] }
  'memory.update': NoFields
  'memory.remove': NoFields
  'memory.clear': NoFields
  /** How many items the compression carried over unchanged. */
  'memory.compress': { carried: number }
  'memory.undo': NoFields
  /** Newest first, at most 200. */
  'memory.history': { entries: MemoryHistoryEntry[] }
  /** The item the approved suggestion replaced, when it named one. */
  'memory.approve': { replaced: MemoryItem[] }
  /** As `memory.add`: the lines added, and those the memory already had or an earlier line said. */
  'memory.paste': HostReplyFields['memory.add']
  /** As `memory.add`: the suggestions added, and the facts the memory already had or an earlier fact said. */
  'memory.learn': HostReplyFields['memory.add']
  /** How many items the undone run had brought. */
  'memory.unlearn': { removed: number }
  /** How many items the revert changed back (0: the change is gone already). */
  'memory.revert': { reverted: number }
  'session.set': NoFields
  'user.set': NoFields
  'session.clear': NoFields
  'session.refreshMemory': NoFields
  /** How many conversations' settings went. */
  'sessions.clearAll': { cleared: number }
  /** Profiles imported; a merge reports what it did with the rest, a replace how many conversations it unpinned;
   * `userAdded` (present when the file brought any) counts the user-layer facts it added. */
  'state.import': { imported: number; userAdded?: number } & (MergeReport | { unbound: number; names: NameChange[] })
  /** Profiles imported in all, what became of each file, and the user-layer facts the files brought as suggestions. */
  'profiles.importFiles': { imported: number; files: FileResult[]; userAdded: number }
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
