/**
 * The commands of `POST /__ap/command` by op: what each takes, what each answers, and which the page may not send
 * (those only the host half sends, and those it reads with a GET). The browser's `command(op, args)`
 * (client/data/api.ts) and the route that hands a body to the store (http/routes.ts) are typed with it, so a misspelt
 * op or field, a host-only or read-only op sent from the page, or a reply field no op answers fails the typecheck.
 * Built from the op schemas (schema-commands.ts, types only), where each op names the fields of its reply beside what
 * it takes, and the reply shapes of the page (`CommandReply`, wire-state.ts); it never validates anything (each
 * operation checks the fields it is given) and holds no behaviour but the lists of host-only and read-only ops.
 */
import type { Profile } from '../state/model.ts'
import type { Command } from './command-inputs.ts'
import type { CommandReply, ProfileHead, WireSession } from './wire-state.ts'
import type { ProfileReply, UserReply } from './wire-replies.ts'
import type { COMMAND_SCHEMAS, CommandInput, Op } from './schema-commands.ts'
import type { Replies } from './replies.ts'

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

/**
 * The ops that only read, refused over HTTP as well: the page reads each with a GET of its own (`memory.history` with
 * `GET /__ap/memory/history`), answered from the state as it is, so a read never waits in the store's write queue
 * behind a save. The store still answers them to the host's own callers.
 */
export const READ_OPS = ['memory.history'] as const satisfies readonly Op[]

/** An op that only reads (see {@link READ_OPS}). */
type ReadOp = (typeof READ_OPS)[number]

/** An op the browser may send. */
export type BrowserOp = Exclude<Op, HostOnlyOp | ReadOp>

/** A command the browser may send: what the route hands the store. */
export type BrowserCommand = Extract<Command, { op: BrowserOp }>

/** What op `O` takes besides its name. */
export type ArgsOf<O extends Op> = Omit<CommandInput<O>, 'op'>

/** Whether `op` is one only the host half sends. */
export function isHostOnly(op: string): op is HostOnlyOp {
  return (HOST_ONLY_OPS as readonly string[]).includes(op)
}

/** Whether `op` only reads, and is read with a GET of its own (see {@link READ_OPS}). */
export function isReadOp(op: string): op is ReadOp {
  return (READ_OPS as readonly string[]).includes(op)
}

/** A profile a reply carries goes out as its head, like the profiles of the state; every other field as it is. */
type OnTheWire<T> = { [K in keyof T]: T[K] extends Profile ? ProfileHead : T[K] }

/** The ops that change one conversation's settings: each answers with that conversation as it is now. */
type ConversationOp = 'session.set' | 'session.clear' | 'session.refreshMemory'

/**
 * What the route adds to an op's reply, read off the op's schema: a command on a conversation answers with it; one
 * on a memory list (a schema with a `target`) answers with the conversation too when the list is a conversation's;
 * a saved profile answers with itself whole (the editor that saved it reads it from there); any command after which
 * the user layer is not what it was answers with the layer (the state carries only its count).
 */
type RouteFields<O extends BrowserOp> = (O extends ConversationOp
  ? { session: WireSession }
  : 'target' extends keyof CommandInput<O>
    ? { session?: WireSession }
    : unknown) &
  (O extends 'profile.update' ? { saved: Extract<ProfileReply, { profile: unknown }> } : unknown) & {
    user?: UserReply
  }

/**
 * What op `O` answers the page: the state, meta and notice, the op's own fields as the store answers them
 * ({@link HostReplyFields}) with a profile as its head, and what the route adds ({@link RouteFields}). Derived, so a
 * new op's reply is written once, beside its schema.
 */
export type ReplyOf<O extends BrowserOp> = CommandReply & OnTheWire<HostReplyFields[O]> & RouteFields<O>

/** A reply that adds nothing to the state, meta and notice. */
type NoFields = Record<never, never>

/** The fields a schema's `reply<R>()` names (schema-commands.ts `answers`), or none. */
type FieldsOf<S> = S extends Replies<infer R> ? (unknown extends R ? NoFields : NonNullable<R>) : NoFields

/**
 * The fields each op's reply carries on the host side (`store.command`), before the route turns a profile into its
 * head and adds the conversation: read off the op's schema in COMMAND_SCHEMAS, where each op names its reply beside
 * what it takes, so a new op cannot be left out. The page's ({@link ReplyOf}) is derived from it.
 */
export type HostReplyFields = { [O in Op]: FieldsOf<(typeof COMMAND_SCHEMAS)[O]> }

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
