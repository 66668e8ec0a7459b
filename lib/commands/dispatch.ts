/**
 * The store's commands as pure functions: (state, command) → next state, a notice and any extra result. Holds the
 * profile and conversation commands and routes every other command to its module (memory, import, file import); the
 * store is its only importer. It never touches the disk, the clock or randomness directly (both come in through
 * `OpContext`), and never mutates the state it is given.
 */
import { LIMITS, userItemsOf } from '../state/model.ts'
import type { Profile, SessionSetting, State } from '../state/model.ts'
import { blankContent, factoryState } from '../state/defaults.ts'
import { applyMemoryCommand, rebaseItems } from './memory.ts'
import { applyFileImport } from './file-import.ts'
import { pasteFacts } from './paste.ts'
import { learnFacts, unlearn } from './learn.ts'
import { decide } from './decide.ts'
import { applyHistoryCommand, recordHistory } from './history.ts'
import {
  findProfile,
  notice,
  unbindMissing,
  withProfile,
  withSession,
  withUndo,
  withUser,
  type OpContext,
  type OpResult,
} from './kit.ts'
import type { ProfilePatch } from '../shared/command-inputs.ts'
import type { CommandOf, Op } from '../shared/schema-commands.ts'
import { applyImport } from './transfer.ts'
import { applySync } from './sync-apply.ts'
import { applyLibrary, teamRefusal } from './library-apply.ts'
import { sessionsOf } from '../state/sessions.ts'
import { invalid, isEmptySetting, knownCast, freeName, newName, profilePatchOf, brokeRule } from '../validate/state.ts'
import { distinctName, namesTaken } from '../shared/profile-names.ts'
import { arriving, itemsOf, patchOf } from '../provenance/provenance.ts'
import { settleSuggestion } from './model-suggestion.ts'
import { parseCommand } from '../validate/command.ts'

/** A fresh profile id that no profile in `taken` uses. */
function freshProfileId(taken: ReadonlySet<string>, ctx: OpContext): string {
  for (;;) {
    const candidate = ctx.newId('p')
    if (!taken.has(candidate)) return candidate
  }
}

function createProfile(state: State, cmd: CommandOf<'profile.create'>, ctx: OpContext): OpResult {
  if (state.profiles.length >= LIMITS.profiles) {
    throw invalid('profiles', `already holds ${LIMITS.profiles} profiles, the limit`, LIMITS.profiles)
  }
  const { model, ...patch } =
    cmd.profile === undefined ? {} : patchOf(profilePatchOf(cmd.profile, 'profile'), 'profile', arriving('user', ctx))
  if (patch.name !== undefined)
    patch.name = freeName(newName(patch.name, 'profile.name'), state.profiles, undefined, 'profile.name')
  const profile: Profile = {
    id: freshProfileId(new Set(state.profiles.map((p) => p.id)), ctx),
    name: patch.name ?? distinctName('新配置', namesTaken(state.profiles), LIMITS.name),
    ...blankContent(),
    ...patch,
    ...(model == null ? {} : { model }),
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
  return {
    state: { ...state, activeId: profile.id, profiles: [...state.profiles, profile] },
    notice: notice('profile.created', { name: profile.name }),
    extra: { profile },
    changed: true,
  }
}

function updateProfile(state: State, cmd: CommandOf<'profile.update'>, ctx: OpContext): OpResult {
  const current = findProfile(state, cmd.id, 'id')
  const existing = new Map(current.memory.items.map((it) => [it.id, it]))
  const { basedOn, ...fields } = cmd.patch
  // A team profile's memory and the model it runs on are the user's own; every other field is the library's.
  const foreign = Object.keys(fields).find(
    (k) => k !== 'memory' && k !== 'model' && (fields as Record<string, unknown>)[k] !== undefined,
  )
  if (current.library !== undefined && foreign !== undefined) throw teamRefusal(current, `patch.${foreign}`)
  const patch = patchOf(profilePatchOf(fields, 'patch'), 'patch', arriving('user', ctx, { existing }))
  // A name left as it is saves, even one an older version let in (a twin, a word of the plugin): renaming is the fix.
  if (patch.name !== undefined && patch.name !== current.name)
    patch.name = freeName(newName(patch.name, 'patch.name'), state.profiles, current.id, 'patch.name')
  if (basedOn !== undefined) {
    if (patch.memory === undefined) throw invalid('patch.basedOn', 'applies only together with patch.memory')
    const started = new Set(basedOn)
    const summary = fields.memory?.summary === undefined ? current.memory.summary : patch.memory.summary
    const items = rebaseItems(
      current.memory.items,
      patch.memory.items,
      started,
      'patch.memory.items',
      LIMITS.memoryItems,
      ctx,
    )
    patch.memory = { summary, items }
  }
  const same = (Object.keys(patch) as (keyof ProfilePatch)[]).every(
    (k) => JSON.stringify(patch[k]) === JSON.stringify(current[k]),
  )
  if (same && cmd.suggestion === undefined) return { state, notice: notice('profile.unchanged'), changed: false }
  const { model, ...rest } = patch
  const answered = cmd.suggestion === undefined ? current : settleSuggestion(current, cmd.suggestion)
  const next: Profile = { ...answered, ...rest, updatedAt: ctx.now }
  if (model === null) delete next.model
  else if (model !== undefined) next.model = model
  return {
    state: withProfile(state, next),
    notice: notice('profile.updated', { name: next.name }),
    changed: true,
  }
}

function duplicateProfile(state: State, cmd: CommandOf<'profile.duplicate'>, ctx: OpContext): OpResult {
  const source = findProfile(state, cmd.id, 'id')
  if (state.profiles.length >= LIMITS.profiles) {
    throw invalid('profiles', `already holds ${LIMITS.profiles} profiles, the limit`, LIMITS.profiles)
  }
  // A copy of a team profile is the user's own: no library mark, editable, with the tools it ran with.
  const { library: _library, ...own } = source
  const copy: Profile = {
    ...own,
    id: freshProfileId(new Set(state.profiles.map((p) => p.id)), ctx),
    name: distinctName(`${source.name} 副本`, namesTaken(state.profiles), LIMITS.name),
    memory: { summary: source.memory.summary, items: source.memory.items.map((it) => ({ ...it, id: ctx.newId('m') })) },
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
  const at = state.profiles.indexOf(source) + 1
  return {
    state: { ...state, profiles: [...state.profiles.slice(0, at), copy, ...state.profiles.slice(at)] },
    notice: notice('profile.duplicated', { name: copy.name }),
    extra: { profile: copy },
    changed: true,
  }
}

function deleteProfile(state: State, cmd: CommandOf<'profile.delete'>): OpResult {
  const gone = findProfile(state, cmd.id, 'id')
  if (gone.library !== undefined) throw teamRefusal(gone, 'id')
  if (state.profiles.length === 1)
    throw brokeRule('conflict', 'id: the last profile cannot be deleted', 'id', 'profile.last')
  const profiles = state.profiles.filter((p) => p !== gone)
  const { sessions, unbound, uncast } = unbindMissing(state.sessions, new Set(profiles.map((p) => p.id)))
  const wasActive = state.activeId === gone.id
  const next: State = withUndo(
    { ...state, activeId: wasActive ? profiles[0]!.id : state.activeId, profiles, sessions },
    gone.id,
  )
  return {
    state: next,
    notice: notice('profile.deleted', { name: gone.name, unbound, uncast, active: wasActive ? profiles[0]!.name : '' }),
    extra: { unbound, uncast },
    changed: true,
  }
}

function activateProfile(state: State, cmd: CommandOf<'profile.activate'>): OpResult {
  const target = findProfile(state, cmd.id, 'id')
  const n = notice('profile.activated', { name: target.name })
  if (state.activeId === target.id) return { state, notice: n, changed: false }
  return { state: { ...state, activeId: target.id }, notice: n, changed: true }
}

function setSession(state: State, cmd: CommandOf<'session.set'>, ctx: OpContext): OpResult {
  const key = cmd.sessionId
  const patch = cmd.patch
  if (patch.basedOn !== undefined && patch.memories === undefined)
    throw invalid('patch.basedOn', 'applies only together with patch.memories')
  const current: SessionSetting = state.sessions.get(key) ?? { profileId: null, note: '', memories: [] }
  const next: SessionSetting = { ...current }
  if (patch.profileId !== undefined) {
    next.profileId = patch.profileId === null ? null : findProfile(state, patch.profileId, 'patch.profileId').id
  }
  if (patch.note !== undefined) next.note = patch.note
  if (patch.incognito === true) next.incognito = true
  else if (patch.incognito === false) delete next.incognito
  if (patch.cast !== undefined) {
    const cast = knownCast(patch.cast, 'patch.cast', new Set(state.profiles.map((p) => p.id)))
    if (cast.length > 0) next.cast = cast
    else delete next.cast
  }
  if (patch.memories !== undefined) {
    const existing = new Map(current.memories.map((it) => [it.id, it]))
    const given = itemsOf(patch.memories, 'patch.memories', arriving('user', ctx, { existing, sessionId: key }))
    next.memories =
      patch.basedOn === undefined
        ? given
        : rebaseItems(current.memories, given, new Set(patch.basedOn), 'patch.memories', LIMITS.sessionMemories, ctx)
  }
  if (JSON.stringify(next) === JSON.stringify(current) && state.sessions.has(key)) {
    return { state, notice: notice('session.unchanged'), changed: false }
  }
  const after = withSession(state, key, next)
  const cleared = isEmptySetting(next)
  const pinned = next.profileId === null ? undefined : state.profiles.find((p) => p.id === next.profileId)!
  const incognito =
    patch.incognito === undefined || (patch.incognito === true) === (current.incognito === true)
      ? undefined
      : next.incognito === true
  const cast =
    patch.cast === undefined ? undefined : (next.cast ?? []).map((id) => state.profiles.find((p) => p.id === id)!.name)
  return {
    state: after,
    notice:
      cast !== undefined
        ? cast.length > 0
          ? notice('session.cast', { names: cast, count: cast.length })
          : notice('session.castCleared')
        : incognito !== undefined
          ? incognito
            ? notice('session.incognitoOn')
            : notice('session.incognitoOff')
          : cleared
            ? notice('session.cleared')
            : pinned !== undefined
              ? notice('session.pinned', { name: pinned.name })
              : notice('session.updated'),
    changed: after !== state,
  }
}

/**
 * `user.set {items, basedOn?}`: the settings page's save of the user layer. With `basedOn` (the ids the editor
 * started from) items saved meanwhile — by the model in a conversation — stay (see `rebaseItems`).
 */
function setUser(state: State, cmd: CommandOf<'user.set'>, ctx: OpContext): OpResult {
  const current = userItemsOf(state)
  const existing = new Map(current.map((it) => [it.id, it]))
  const given = itemsOf(cmd.items, 'items', arriving('user', ctx, { existing }))
  const items =
    cmd.basedOn === undefined
      ? given
      : rebaseItems(current, given, new Set(cmd.basedOn), 'user.items', LIMITS.userItems, ctx)
  if (JSON.stringify(items) === JSON.stringify(current))
    return { state, notice: notice('user.unchanged'), changed: false }
  return { state: withUser(state, items), notice: notice('user.saved', { count: items.length }), changed: true }
}

function clearSession(state: State, cmd: CommandOf<'session.clear'>): OpResult {
  const key = cmd.sessionId
  const after = withSession(state, key, { profileId: null, note: '', memories: [] })
  return { state: after, notice: notice('session.cleared'), changed: after !== state }
}

/**
 * `session.refreshMemory {sessionId}`: the conversation takes the memory as it is now from its next turn (under
 * cache-stable memory it otherwise keeps the memory text it started with). A stamp in its settings rather than a
 * message to this process, because the process running the conversation may be another one.
 */
function refreshSessionMemory(state: State, cmd: CommandOf<'session.refreshMemory'>, ctx: OpContext): OpResult {
  const key = cmd.sessionId
  const current: SessionSetting = state.sessions.get(key) ?? { profileId: null, note: '', memories: [] }
  return {
    state: withSession(state, key, { ...current, memoryRefreshedAt: ctx.now }),
    notice: notice('session.memoryRefreshed'),
    changed: true,
  }
}

function clearAllSessions(state: State): OpResult {
  const count = state.sessions.size
  return {
    state: count === 0 ? state : { ...state, sessions: sessionsOf() },
    notice: notice('sessions.clearedAll', { count }),
    extra: { cleared: count },
    changed: count > 0,
  }
}

/**
 * `sessions.forget {sessionIds}`: the settings of conversations the host no longer has go (their turns go too, in the
 * store). Written by the host half only, from the host's own listing of its sessions.
 */
export function forgetSessions(state: State, cmd: CommandOf<'sessions.forget'>): OpResult {
  let next = state
  for (const key of cmd.sessionIds) next = withSession(next, key, { profileId: null, note: '', memories: [] })
  const count = state.sessions.size - next.sessions.size
  return {
    state: next,
    notice: notice('sessions.forgotten', { count }),
    extra: { forgotten: count },
    changed: next !== state,
  }
}

function restoreDefaults(ctx: OpContext): OpResult {
  return {
    state: factoryState(ctx.now),
    notice: notice('state.restored'),
    changed: true,
  }
}

/** An op that changes the state: every op but `turn.record`. */
type StateOp = Exclude<Op, 'turn.record'>

/** How one op runs: (state, its parsed command, context) → its outcome. */
type Handler<K extends Op> = (state: State, cmd: CommandOf<K>, ctx: OpContext) => OpResult

/**
 * The handler of every op but `turn.record` (the turn ledger lives apart from the state: the store writes it). A
 * missing handler fails the typecheck, as a handler for an op without a schema does.
 */
export const COMMAND_HANDLERS: { [K in StateOp]: Handler<K> } = {
  'profile.create': createProfile,
  'profile.update': updateProfile,
  'profile.duplicate': duplicateProfile,
  'profile.delete': deleteProfile,
  'profile.activate': activateProfile,
  'memory.add': applyMemoryCommand,
  'memory.update': applyMemoryCommand,
  'memory.remove': applyMemoryCommand,
  'memory.clear': applyMemoryCommand,
  'memory.compress': applyMemoryCommand,
  'memory.undo': applyMemoryCommand,
  'memory.approve': applyMemoryCommand,
  'memory.paste': pasteFacts,
  'memory.learn': learnFacts,
  'memory.unlearn': unlearn,
  'memory.decide': decide,
  'memory.history': applyHistoryCommand,
  'memory.revert': applyHistoryCommand,
  'session.set': setSession,
  'user.set': setUser,
  'session.clear': clearSession,
  'session.refreshMemory': refreshSessionMemory,
  'sessions.clearAll': clearAllSessions,
  'sessions.forget': forgetSessions,
  'sync.apply': applySync,
  'library.apply': applyLibrary,
  'state.import': applyImport,
  'profiles.importFiles': applyFileImport,
  'state.restoreDefaults': (_state, _cmd, ctx) => restoreDefaults(ctx),
}

/**
 * Run op `op`'s handler on `cmd`: one type parameter names both, so the handler looked up is the one whose command
 * `cmd` is, without a cast.
 */
function runHandler<K extends StateOp>(op: K, state: State, cmd: CommandOf<K>, ctx: OpContext): OpResult {
  const handler: Handler<K> = COMMAND_HANDLERS[op]
  return handler(state, cmd, ctx)
}

/**
 * Apply one state command and record what it did to memory in the history. Throws `StoreError` for anything
 * refused, in which case nothing changed. `input` is checked by its op's schema first (validate/command.ts).
 * `turn.record` is not a state command (the turn ledger lives apart) and is refused here.
 */
export function applyCommand(state: State, input: unknown, ctx: OpContext): OpResult {
  const cmd = parseCommand(input)
  if (cmd.op === 'turn.record') throw invalid('op', 'is not a known operation ("turn.record")')
  const result = runHandler(cmd.op, state, cmd, ctx)
  return ctx.recordHistory === false ? result : recordHistory(state, result, cmd, ctx)
}
