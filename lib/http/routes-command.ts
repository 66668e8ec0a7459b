/**
 * `POST /__ap/command`: every change the page makes. The body is parsed at the door by its op's own schema (an op
 * only the host sends, or one the page reads with a GET, is refused first), then the avatar URLs it sends back are
 * swapped for what they stand for, an import's files are read in the worker, a model choice is checked against the
 * host's models, and the store runs the command (an undone learning run then has its past conversations offered
 * again); the reply is the state after it with the command's fields (and a saved profile whole, the user layer when
 * the command changed it). Owns this route only; it never writes its own data rules (the commands and their schemas
 * own them).
 */
import type { BrowserCommand } from '../shared/commands.ts'
import { isHostOnly, isReadOp } from '../shared/commands.ts'
import { WIRE } from '../shared/wire-table.ts'
import { READ_FILES } from '../shared/files.ts'
import { USER_HISTORY, type Profile, type State } from '../state/model.ts'
import { acceptedModel } from '../commands/model-suggestion.ts'
import { parseCommand } from '../validate/command.ts'
import { modelChoice } from '../validate/model.ts'
import { brokeRule, invalid, record } from '../validate/state.ts'
import { parse } from '../validate/core.ts'
import { READ_IMPORT_SCHEMA } from '../shared/schema-commands.ts'
import { COMMAND_CAPS } from './caps.ts'
import type { Reply } from './reply.ts'
import { stateReply, type Call, type Handler, type RouteDeps } from './route-kit.ts'
import { offerUndoneAgain } from './routes-learn.ts'
import { userReply, wholeProfile } from './routes-profiles.ts'
import { parseAvatarUrl, resolveAvatarUrl, wireHead, wireSession } from './wire.ts'

/**
 * The body as a command the browser may send, parsed by its op's schema: an object naming an op that is not the
 * host half's alone, with known keys only and every field within its rules. An import whose large body the worker
 * parsed carries its files read already, checked there file by file.
 */
function commandDoor(body: unknown): BrowserCommand {
  const op = record(body, 'body').op
  if (typeof op !== 'string') throw invalid('op', 'must be a string naming the operation')
  if (isHostOnly(op)) throw invalid('op', `${op} is written by the host, not over HTTP`)
  if (isReadOp(op)) throw invalid('op', `${op} only reads: GET ${WIRE[op].path} answers it, never behind a save`)
  // An import's files are each checked where they are read (the worker), so one bad file is reported as that file's
  // and the others still import: here the list is checked for its count alone.
  if (op === 'profiles.importFiles' && !(READ_FILES in (body as object)))
    return parse(READ_IMPORT_SCHEMA, body, '', 'command') as BrowserCommand
  return parseCommand(body) as BrowserCommand
}

/** Swap an avatar URL the browser sent back for what it stands for; `selfId` is the profile being edited. */
function withAvatarResolved<T extends { avatar?: string } | undefined>(
  deps: RouteDeps,
  holder: T,
  field: string,
  selfId: string | undefined,
): T {
  if (holder === undefined) return holder
  const { avatar, ...rest } = holder
  const ref = avatar === undefined ? undefined : parseAvatarUrl(avatar)
  if (ref === undefined) return holder
  const resolved = resolveAvatarUrl(deps.store, ref, selfId)
  // Without the avatar, or with another: the same shape, since `avatar` is optional.
  if (resolved.kind === 'unchanged') return rest as T
  if (resolved.kind === 'data') return { ...rest, avatar: resolved.dataUrl } as T
  throw invalid(field, 'refers to an avatar that no longer exists; pick the image again')
}

/**
 * A profile saved with a model the host does not offer now is refused, naming the field; so is accepting a suggested
 * model the host does not offer (field `suggestion`). Imports are not checked: a file from another machine may name
 * models this host lacks, and it only suggests them (lib/commands/model-suggestion.ts).
 */
async function checkModel(deps: RouteDeps, cmd: BrowserCommand): Promise<void> {
  if (cmd.op === 'profile.update' && cmd.suggestion === 'accept')
    await checkChoice(deps, acceptedModel(deps.store.state.profiles, cmd.id), 'suggestion')
  if (cmd.op === 'profile.update') await checkChoice(deps, cmd.patch.model, 'patch.model')
  if (cmd.op === 'profile.create') await checkChoice(deps, cmd.profile?.model, 'profile.model')
}

/** Refuse a model choice (at `field`) the host does not offer now, or cannot check; nothing for none. */
async function checkChoice(deps: RouteDeps, raw: unknown, field: string): Promise<void> {
  if (raw === undefined || raw === null) return
  const choice = modelChoice(raw, field)
  const models = deps.models?.()
  if (choice === null) return
  if (models === undefined)
    throw brokeRule(
      'invalid',
      `${field}: cannot be checked: this host has no model service (llm) running`,
      field,
      'model.unchecked',
    )
  await models.check(choice, field)
}

/** The conversation a command changes the settings of, if any. */
function conversationOf(cmd: BrowserCommand): string | undefined {
  if (cmd.op === 'session.set' || cmd.op === 'session.clear' || cmd.op === 'session.refreshMemory') return cmd.sessionId
  return 'target' in cmd && cmd.target !== undefined && 'sessionId' in cmd.target ? cmd.target.sessionId : undefined
}

/**
 * What the user layer's reply is read from: its items and its history list. A write replaces each one it changes
 * (the state is frozen), so the same two objects are the same layer.
 */
function userLayerOf(state: State): readonly [unknown, unknown] {
  return [state.user, state.history?.[USER_HISTORY]]
}

function sameUserLayer(a: readonly [unknown, unknown], b: readonly [unknown, unknown]): boolean {
  return a[0] === b[0] && a[1] === b[1]
}

/** Extra fields may carry a profile (create, duplicate): it goes out as its head, like the profiles of the state. */
function wireExtra(deps: RouteDeps, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const v = value as Partial<Profile>
  return typeof v.id === 'string' && typeof v.avatar === 'string' && typeof v.memory === 'object'
    ? wireHead(deps.store, v as Profile)
    : value
}

async function postCommand(deps: RouteDeps, call: Call<'command'>): Promise<Reply> {
  const cmd = call.body
  if (cmd.op === 'profile.update') cmd.patch = withAvatarResolved(deps, cmd.patch, 'patch.avatar', cmd.id)
  if (cmd.op === 'profile.create') cmd.profile = withAvatarResolved(deps, cmd.profile, 'profile.avatar', undefined)
  // An import's files are read in the worker: decoding and parsing a file from the internet is what could hold every
  // page and conversation. A large body's files were read while the worker parsed it (import-pool.ts), and came with it.
  if (cmd.op === 'profiles.importFiles' && !(READ_FILES in cmd)) {
    Object.assign(cmd, { [READ_FILES]: await call.imports.readFiles(cmd.files) })
  }
  await checkModel(deps, cmd)
  const userBefore = userLayerOf(deps.store.state)
  const { state: after, meta: _meta, notice, ...extra } = await deps.store.command(cmd)
  for (const [key, value] of Object.entries(extra)) extra[key] = wireExtra(deps, value)
  if (cmd.op === 'memory.unlearn') await offerUndoneAgain(deps, cmd.importId)
  // The state carries no conversation settings: a command on one conversation answers with that conversation.
  const conversation = conversationOf(cmd)
  if (conversation !== undefined) extra.session = wireSession(deps.store, conversation)
  // A saved profile answers with itself whole, so the editor that saved it reads it from the reply, not again (and
  // with its memory list's first rows when the page asked: a list with an archive is more than the core it carries).
  if (cmd.op === 'profile.update') extra.saved = wholeProfile(deps, cmd.id, call.query.window)
  // The state carries only the user layer's count: a command after which the layer is not what it was answers with
  // it, so the page showing it (About you) reads it from the reply instead of asking again. Compared on the state the
  // command left, not read again: each read of the state asks the database whether another process wrote.
  if (!sameUserLayer(userLayerOf(after), userBefore)) extra.user = userReply(deps)
  // The current snapshot, not the result's: later commands only add to it, and avatar hashes are the current ones.
  return stateReply(deps, JSON.stringify({ ...extra, notice }))
}

/** The handler of `POST /__ap/command`. */
export const COMMAND_ROUTE: Handler<'command'> = { caps: COMMAND_CAPS, door: commandDoor, run: postCommand }
