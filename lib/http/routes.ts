/**
 * The plugin's HTTP API, `/__ap/*`: the browser's only door to the store. Owns routing, what each route answers and
 * the mapping of every store failure onto the one error shape. The fence lives in fence.ts, the wire form of state in
 * wire.ts, the push channel in events.ts and writing a reply onto the socket in reply.ts. It never writes its own data rules (validate/state.ts
 * and the commands' provenance policy own them, for drafts too), never renders prompt text (prompt/render.ts does), and never answers a 500 with a stack.
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-host-webserver'
import { checkJsonContentType, checkMethod, checkRequestOrigin, readJsonBody } from './fence.ts'
import { ImportPool } from './import-pool.ts'
import { OwnImports } from '../store/import-batches.ts'
import { OWN_IMPORT_PATH } from '../shared/own-import.ts'
import { getOwnImport, postOwnImport } from './own-import-routes.ts'
import { OWN_FILE_BOUNDS, READ_FILES } from '../shared/files.ts'
import type { BodyShapeLimits } from './body-shape.ts'
import { MAX_DEPTH } from '../validate/core.ts'
import { describe, json, refusalReply, send, type Reply } from './reply.ts'
import { createEventHub, type EventHub, type HubOptions } from './events.ts'
import { createUpgrade, type UpgradeHandler } from './upgrade.ts'
import { profileFile } from '../commands/file-export.ts'
import {
  API_BASE,
  BACKUPS_PATH,
  EVENTS_PATH,
  MEMORY_SEARCH_PATH,
  MODELS_PATH,
  RESTORE_PATH,
  SYNC_NOW_PATH,
  LIBRARIES_PATH,
  LIBRARY_ADD_PATH,
  LIBRARY_REMOVE_PATH,
  SYNC_PATH,
  SYNC_SETTINGS_PATH,
  USER_PATH,
  type BackupsReply,
  type Meta,
  type ModelCatalog,
  type ProfileReply,
  type UserReply,
} from '../shared/contract.ts'
import { isHostOnly, type BrowserCommand } from '../shared/commands.ts'
import { listMemory, listQueryOf } from '../memory/list.ts'
import { LIMITS, hasHistory, userItemsOf, userShare, type Profile } from '../state/model.ts'
import { UNITS_PER_GRAPHEME } from '../shared/graphemes.ts'
import type { RenderableProfile, RenderableSetting } from '../prompt/render.ts'
import type { ModelChoiceApi } from '../prompt/model-choice.ts'
import { modelChoice } from '../validate/model.ts'
import { DEFAULT_CONFIG } from '../config/config.ts'
import type { ProfileStore } from '../store/store.ts'
import { dataDirForms } from '../store/db/layout.ts'
import { withoutDataDir } from '../shared/errors.ts'
import { StoreError, invalid, profilePatch, record, brokeRule, sessionId, sessionSetting } from '../validate/state.ts'
import { asDraft, patchOf, settingOf } from '../commands/provenance.ts'
import { acceptedModel } from '../commands/model-suggestion.ts'
import {
  AVATAR_PATH,
  avatarImage,
  coreOnly,
  memoryCounts,
  parseAvatarUrl,
  resolveAvatarUrl,
  toWireProfile,
  wireHead,
  wireSession,
  wireStateBytes,
} from './wire.ts'
import type { Log } from '../shared/log.ts'
import type { SyncPart } from '../sync/install.ts'

/** Every route lives under the contract's base path, registered on the host's web server as one prefix route. */
const ROUTE_PREFIX = API_BASE

/**
 * Body cap of `/__ap/command`. Its largest legitimate body is `state.import` of a whole export: 100 profiles whose
 * avatars each sit at the 400,000-character limit (40 MB) must fit, with ~80 KB of text per profile on top. Avatars
 * are shrunk in the browser to tens of KB, so a full LIMITS.profiles (200) export of real avatars fits easily.
 */
export const COMMAND_BODY_LIMIT = 48 * 1024 * 1024

const DRAFT_CHARS =
  LIMITS.name +
  LIMITS.emoji * UNITS_PER_GRAPHEME +
  LIMITS.role +
  LIMITS.personality +
  LIMITS.speakingStyle +
  LIMITS.rules +
  LIMITS.summary +
  LIMITS.note +
  (LIMITS.memoryItems + LIMITS.sessionMemories) * LIMITS.memoryItem

/**
 * Body cap of `/__ap/preview` (about 36 MB, since a profile may hold 10,000 items): one draft with every text field,
 * memory item and conversation memory at its limit in 3-byte UTF-8 characters, 256 bytes of JSON framing per item,
 * and an unsaved avatar. Nothing larger can be a draft the store would accept, so a larger body is refused before it
 * is read.
 */
export const PREVIEW_BODY_LIMIT =
  DRAFT_CHARS * 3 + (LIMITS.memoryItems + LIMITS.sessionMemories) * 256 + LIMITS.avatar + 64 * 1024

/**
 * How deep any body may nest: the store's own nesting limit for plain JSON (a card's extras, an import's payload)
 * plus the levels of a command around it (the command, its payload, the profile list, a profile). Deeper is refused
 * by the store in any case; the cap refuses it before a parser walks it.
 */
export const BODY_DEPTH_LIMIT = MAX_DEPTH + 8

/**
 * JSON values of a `/__ap/command` body: its largest legitimate body by count is `state.import` of the user's own
 * export as an object, which may bring as many values as a file the user confirmed as theirs (OWN_FILE_BOUNDS);
 * files travel as text, one value each. A body of 1.5 million `{}` (3 million values) is refused as it arrives.
 */
export const COMMAND_SHAPE: BodyShapeLimits = { depth: BODY_DEPTH_LIMIT, values: OWN_FILE_BOUNDS.values }

/**
 * JSON values of a `/__ap/preview` body: one draft of every memory item and conversation memory at its limit, each
 * an object of at most 16 values (its dozen fields), and the few values of the other fields.
 */
export const PREVIEW_SHAPE: BodyShapeLimits = {
  depth: BODY_DEPTH_LIMIT,
  values: (LIMITS.memoryItems + LIMITS.sessionMemories) * 16 + 1024,
}

/** A small settings body: a restore names one backup (`{"name": …}`), sync names a remote and a branch. */
const SMALL_SHAPE: BodyShapeLimits = { depth: 4, values: 64 }

/** What the routes need from the rest of the plugin; index.ts builds it. */
export interface RouteDeps {
  store: ProfileStore
  /** Render a profile (plus conversation settings) exactly as the model would see it. */
  preview: (profile: RenderableProfile, setting?: RenderableSetting) => { text: string; chars: number; tokens: number }
  /** The `meta` of state replies: data location, counts, diagnostics, lastError, memory job… */
  meta: () => Meta
  /** The host's configured trusted hosts (`webRuntime.trustedHosts`), read per request. */
  trustedHosts: () => readonly string[]
  log: Log
  /** Characters of memory the prompt carries (the default budget when absent), for the user layer's share. */
  memoryBudget?: number
  /** The profiles' model part, while the host's `llm` and `agents` are up: its model lists, check and turn record. */
  models?: () => ModelChoiceApi | undefined
  /** The push channel; createHandler makes one over `store` (with these options) when none is given. */
  events?: EventHub
  eventOptions?: HubOptions
  /** The import worker; createHandler starts its own when none is given. */
  imports?: ImportPool
  /** The sync part (its settings, status and "sync now"), when installed. */
  sync?: () => SyncPart | undefined
}

/** A node:http request handler that never rejects. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

const STORE_STATUS: Record<StoreError['code'], number> = {
  invalid: 400,
  'not-found': 404,
  conflict: 409,
  locked: 409,
  io: 500,
  'read-only': 409,
  // The data directory cannot be written (its permissions, a read-only disk): the service cannot save, whoever asks.
  unwritable: 503,
}

/** Route context handed to each route: the parsed URL, the request and (for POST routes) the parsed body. */
interface Call {
  url: URL
  req: IncomingMessage
  imports: ImportPool
  /** The background import of a large own file (one at a time). */
  own: OwnImports
  /** Path segment after the route's prefix, decoded (`/__ap/avatar/<id>`). */
  param: string
  body: unknown
}

interface Route {
  methods: readonly string[]
  /** Byte cap of the JSON body; only POST routes have one. */
  bodyLimit?: number
  /** Nesting and value caps of the JSON body, checked as it arrives; every route with a body has them. */
  shape?: BodyShapeLimits
  run: (deps: RouteDeps, call: Call) => Reply | Promise<Reply>
}

const EXACT: Record<string, Route> = {
  [`${ROUTE_PREFIX}/state`]: { methods: ['GET'], run: getState },
  [`${ROUTE_PREFIX}/command`]: {
    methods: ['POST'],
    bodyLimit: COMMAND_BODY_LIMIT,
    shape: COMMAND_SHAPE,
    run: postCommand,
  },
  [`${ROUTE_PREFIX}/preview`]: {
    methods: ['POST'],
    bodyLimit: PREVIEW_BODY_LIMIT,
    shape: PREVIEW_SHAPE,
    run: postPreview,
  },
  [`${ROUTE_PREFIX}/export`]: { methods: ['GET'], run: getExport },
  [EVENTS_PATH]: { methods: ['GET'], run: getEvents },
  [`${ROUTE_PREFIX}/meta`]: { methods: ['GET'], run: getMeta },
  [USER_PATH]: { methods: ['GET'], run: getUser },
  [MODELS_PATH]: { methods: ['GET'], run: getModels },
  [MEMORY_SEARCH_PATH]: { methods: ['GET'], run: getMemorySearch },
  [BACKUPS_PATH]: { methods: ['GET'], run: getBackups },
  [RESTORE_PATH]: { methods: ['POST'], bodyLimit: 4 * 1024, shape: SMALL_SHAPE, run: postRestore },
  [SYNC_PATH]: { methods: ['GET'], run: (deps) => json(JSON.stringify(syncPart(deps).reply())) },
  [SYNC_SETTINGS_PATH]: { methods: ['POST'], bodyLimit: 4 * 1024, shape: SMALL_SHAPE, run: syncSettings },
  [SYNC_NOW_PATH]: { methods: ['POST'], bodyLimit: 1024, shape: SMALL_SHAPE, run: syncNow },
  // The body of an import command with one file: the same caps as `/command`, its files read in the worker.
  [OWN_IMPORT_PATH]: {
    methods: ['GET', 'POST'],
    bodyLimit: COMMAND_BODY_LIMIT,
    shape: COMMAND_SHAPE,
    run: (_deps, call) =>
      call.req.method === 'POST' ? postOwnImport(call.own, call.imports, call.body) : getOwnImport(call.own),
  },
  [LIBRARIES_PATH]: { methods: ['GET'], run: (deps) => json(JSON.stringify(syncPart(deps).libraries.reply())) },
  [LIBRARY_ADD_PATH]: { methods: ['POST'], bodyLimit: 4 * 1024, shape: SMALL_SHAPE, run: addLibrary },
  [LIBRARY_REMOVE_PATH]: { methods: ['POST'], bodyLimit: 1024, shape: SMALL_SHAPE, run: removeLibrary },
}

const WITH_PARAM: Record<string, Route> = {
  [AVATAR_PATH]: { methods: ['GET'], run: getAvatar },
  [`${ROUTE_PREFIX}/turns/`]: { methods: ['GET'], run: getTurns },
  [`${ROUTE_PREFIX}/session/`]: { methods: ['GET'], run: getSession },
  [`${ROUTE_PREFIX}/export/`]: { methods: ['GET'], run: getProfileExport },
  [`${ROUTE_PREFIX}/profile/`]: { methods: ['GET'], run: getProfile },
}

function match(pathname: string): { route: Route; rawParam: string } | undefined {
  const exact = EXACT[pathname]
  if (exact !== undefined) return { route: exact, rawParam: '' }
  for (const [prefix, route] of Object.entries(WITH_PARAM)) {
    const rest = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : undefined
    if (rest !== undefined && rest !== '' && !rest.includes('/')) return { route, rawParam: rest }
  }
  return undefined
}

/** The `meta` of a reply as JSON. A failing diagnostics provider must not turn a saved change into an error reply. */
function metaJson(deps: RouteDeps): string {
  try {
    return JSON.stringify(deps.meta()) ?? '{}'
  } catch (error) {
    deps.log.warn(`agent-profiles: routes: meta() failed: ${describe(error)}`)
    return '{}'
  }
}

const STATE_KEY = Buffer.from('{"state":')

/**
 * `{state, meta, ...fields}` for the store's current snapshot; `fields` is a JSON object's text. The state's bytes
 * come from wire.ts, encoded once per snapshot and shared by every reply (not copied into each); only meta and the
 * fields are encoded per reply.
 */
function stateReply(deps: RouteDeps, fields = '{}'): Reply {
  const tail = fields === '{}' ? '}' : `,${fields.slice(1)}`
  return json([STATE_KEY, wireStateBytes(deps.store), Buffer.from(`,"meta":${metaJson(deps)}${tail}`)])
}

function getState(deps: RouteDeps): Reply {
  return stateReply(deps)
}

/**
 * The body of `POST /__ap/command` as a command the browser may send: an object naming an op that is not the host
 * half's alone. Only the op is checked here: every operation validates the fields it is given (arguments arrive
 * untrusted, as `Command` says), and refuses an op it does not know.
 */
function browserCommand(body: unknown): BrowserCommand {
  const cmd = { ...record(body, 'body') }
  if (typeof cmd.op !== 'string') throw invalid('op', 'must be a string naming the operation')
  if (isHostOnly(cmd.op)) throw invalid('op', `${cmd.op} is written by the host, not over HTTP`)
  return cmd as BrowserCommand
}

/** Swap an avatar URL the browser sent back for what it stands for; `selfId` is the profile being edited. */
function withAvatarResolved<T extends { avatar?: string } | undefined>(
  deps: RouteDeps,
  holder: T,
  field: string,
  selfId: string | undefined,
): T {
  // The fields are not validated yet (the operation does that): anything but an object is left for it to refuse.
  if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) return holder
  const { avatar, ...rest } = holder
  const ref = typeof avatar === 'string' ? parseAvatarUrl(avatar) : undefined
  if (ref === undefined) return holder
  const resolved = resolveAvatarUrl(deps.store, ref, selfId)
  // Without the avatar, or with another: the same shape, since `avatar` is optional.
  if (resolved.kind === 'unchanged') return rest as T
  if (resolved.kind === 'data') return { ...rest, avatar: resolved.dataUrl } as T
  throw invalid(field, 'refers to an avatar that no longer exists; pick the image again')
}

async function postCommand(deps: RouteDeps, call: Call): Promise<Reply> {
  const cmd = browserCommand(call.body)
  if (cmd.op === 'profile.update') cmd.patch = withAvatarResolved(deps, cmd.patch, 'patch.avatar', cmd.id)
  if (cmd.op === 'profile.create') cmd.profile = withAvatarResolved(deps, cmd.profile, 'profile.avatar', undefined)
  // An import's files are read in the worker: decoding and parsing a file from the internet is what could hold every
  // page and conversation (the command checks the list itself, so only a list that passes its count is sent). A large
  // body's files were read while the worker parsed it (import-pool.ts), and came with it.
  if (
    cmd.op === 'profiles.importFiles' &&
    !(READ_FILES in cmd) &&
    Array.isArray(cmd.files) &&
    cmd.files.length > 0 &&
    cmd.files.length <= LIMITS.profiles
  ) {
    Object.assign(cmd, { [READ_FILES]: await call.imports.readFiles(cmd.files) })
  }
  await checkModel(deps, cmd)
  const { state: _state, meta: _meta, notice, ...extra } = await deps.store.command(cmd)
  for (const [key, value] of Object.entries(extra)) extra[key] = wireExtra(deps, value)
  // The state carries no conversation settings: a command on one conversation answers with that conversation.
  const conversation = conversationOf(cmd)
  if (conversation !== undefined) extra.session = wireSession(deps.store, conversation)
  // The current snapshot, not the result's: later commands only add to it, and avatar hashes are the current ones.
  return stateReply(deps, JSON.stringify({ ...extra, notice }))
}

/**
 * A profile saved with a model the host does not offer now is refused, naming the field; so is accepting a suggested
 * model the host does not offer (field `suggestion`). Imports are not checked: a file from another machine may name
 * models this host lacks, and it only suggests them (lib/commands/model-suggestion.ts).
 */
async function checkModel(deps: RouteDeps, cmd: BrowserCommand): Promise<void> {
  if (cmd.op === 'profile.update' && cmd.suggestion === 'accept')
    await checkChoice(deps, acceptedModel(deps.store.state.profiles, cmd.id), 'suggestion')
  const holder =
    cmd.op === 'profile.update'
      ? { value: cmd.patch, field: 'patch.model' }
      : cmd.op === 'profile.create'
        ? { value: cmd.profile, field: 'profile.model' }
        : undefined
  if (holder === undefined || typeof holder.value !== 'object' || holder.value === null) return
  await checkChoice(deps, holder.value.model, holder.field)
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

/** `GET /__ap/models`: the host's providers and models for the editor's picker. */
async function getModels(deps: RouteDeps): Promise<Reply> {
  const models = deps.models?.()
  const catalog: ModelCatalog =
    models === undefined ? { providers: [], failures: [{ missing: 'llm' }] } : await models.catalog()
  return json(JSON.stringify(catalog))
}

/** The conversation a command changes the settings of, if any. */
function conversationOf(cmd: BrowserCommand): string | undefined {
  // Asked of a command the store took, so its fields are what its type says.
  if (cmd.op === 'session.set' || cmd.op === 'session.clear' || cmd.op === 'session.refreshMemory') return cmd.sessionId
  return 'target' in cmd && cmd.target !== undefined && 'sessionId' in cmd.target ? cmd.target.sessionId : undefined
}

/** Extra fields may carry a profile (create, duplicate): it goes out as its head, like the profiles of the state. */
function wireExtra(deps: RouteDeps, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const v = value as Partial<Profile>
  return typeof v.id === 'string' && typeof v.avatar === 'string' && typeof v.memory === 'object'
    ? wireHead(deps.store, v as Profile)
    : value
}

/** Only what the renderer reads is taken from a draft; ids, times and the avatar of an unsaved draft do not matter. */
const RENDERED_FIELDS = ['name', 'role', 'personality', 'speakingStyle', 'rules', 'memoryEnabled', 'memory'] as const

function pick(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]))
}

function postPreview(deps: RouteDeps, call: Call): Reply {
  const body = record(call.body, 'body')
  // The same rules as saving, so a preview refuses exactly what a save would (with the same field and limit).
  const d = asDraft(Date.now())
  const profile = patchOf(
    profilePatch(pick(record(body.profile ?? {}, 'profile'), RENDERED_FIELDS), 'profile'),
    'profile',
    d,
  )
  const setting =
    body.setting === undefined || body.setting === null
      ? undefined
      : settingOf(
          sessionSetting(pick(record(body.setting, 'setting'), ['note', 'memories']), 'setting', new Set()),
          'setting',
          d,
        )
  const { text, chars, tokens } = deps.preview(profile, setting)
  return json(JSON.stringify({ text, chars, tokens }))
}

/** Local calendar date, YYYY-MM-DD: the day the user made the file, as their own clock says. */
function today(): string {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** The envelope of every profile (or of `?id=…`), with the user layer when `?user=1`. */
function getExport(deps: RouteDeps, call: Call): Reply {
  const ids = call.url.searchParams.getAll('id')
  const envelope = deps.store.exportEnvelope(ids.length > 0 ? ids : undefined, {
    user: call.url.searchParams.get('user') === '1',
  })
  return json(JSON.stringify(envelope, null, 2), {
    'Content-Disposition': `attachment; filename="dsh-agent-profiles-${today()}.json"`,
  })
}

/** One profile as a Character Card (PNG, JSON or CHARX) or a Markdown file: `?format=card-png|card-json|charx|markdown[&lang=en]`. */
function getProfileExport(deps: RouteDeps, call: Call): Reply {
  const file = profileFile(
    deps.store.state,
    call.param,
    call.url.searchParams.get('format'),
    call.url.searchParams.get('lang'),
  )
  return {
    status: 200,
    headers: { 'Content-Type': file.type, 'Cache-Control': 'no-store', 'Content-Disposition': file.disposition },
    body: file.body,
  }
}

function getAvatar(deps: RouteDeps, call: Call): Reply {
  const image = avatarImage(deps.store, call.param)
  if (image === undefined) {
    throw new StoreError('not-found', `id: no avatar for profile ${JSON.stringify(call.param.slice(0, 80))}`, 'id')
  }
  // A URL minted with the current hash names immutable bytes; any other URL must revalidate against the ETag.
  const headers = {
    ETag: image.etag,
    'Cache-Control':
      call.url.searchParams.get('v') === image.hash ? 'private, max-age=31536000, immutable' : 'no-cache',
  }
  const tags = call.req.headers['if-none-match']?.split(',').map((t) => t.trim().replace(/^W\//, ''))
  if (tags !== undefined && (tags.includes(image.etag) || tags.includes('*'))) return { status: 304, headers }
  return { status: 200, headers: { ...headers, 'Content-Type': image.type }, body: image.bytes }
}

/**
 * One profile as the wire carries it, whole for a page that shows or edits it, or (`?head`) its head alone for a page
 * that heard it changed or met it in a turn head; a profile deleted since answers with how it looked then, so the
 * turns it answered keep its face.
 */
function getProfile(deps: RouteDeps, call: Call): Reply {
  // The revision first: reading it is what brings in another process's commits, so the profile is at least as new.
  const revision = deps.store.revision
  const profile = deps.store.state.profiles.find((p) => p.id === call.param)
  const retired = profile === undefined ? deps.store.retired(call.param) : undefined
  if (profile === undefined && retired === undefined)
    throw new StoreError('not-found', `id: no profile ${JSON.stringify(call.param.slice(0, 80))}`, 'id')
  const reply: ProfileReply =
    profile === undefined
      ? { retired: retired! }
      : call.url.searchParams.has('head')
        ? { head: wireHead(deps.store, profile) }
        : {
            profile: coreOnly(toWireProfile(deps.store, profile)),
            head: wireHead(deps.store, profile),
            revision,
            memoryCounts: memoryCounts(profile),
            ...(hasHistory(deps.store.state, { profileId: profile.id }) ? { history: true as const } : {}),
          }
  return json(JSON.stringify(reply))
}

/** One window of one memory list, filtered (see lib/memory/list.ts): the settings page's list of up to 10,000 items. */
function getMemorySearch(deps: RouteDeps, call: Call): Reply {
  return json(JSON.stringify(listMemory(deps.store, listQueryOf(call.url.searchParams))))
}

/** The user layer's items and budget share: kept out of the state reply, whose size must not grow with them. */
function getUser(deps: RouteDeps): Reply {
  const budget = deps.memoryBudget ?? DEFAULT_CONFIG.memoryBudget
  const state = deps.store.state
  const reply: UserReply = {
    items: [...userItemsOf(state)],
    share: userShare(budget),
    budget,
    ...(hasHistory(state, { user: true }) ? { history: true as const } : {}),
  }
  return json(JSON.stringify(reply))
}

function getBackups(deps: RouteDeps): Reply {
  const reply: BackupsReply = { backups: deps.store.backups() }
  return json(JSON.stringify(reply))
}

/** Restore the backup `{name}`; answers the state it restored, like a command. */
async function postRestore(deps: RouteDeps, call: Call): Promise<Reply> {
  const body = record(call.body, 'body')
  if (typeof body.name !== 'string') throw invalid('name', 'must be the name of a backup')
  await deps.store.restoreBackup(body.name)
  return stateReply(deps)
}

/** The sync part, or a refusal saying it is not there. */
function syncPart(deps: RouteDeps): SyncPart {
  const part = deps.sync?.()
  if (part === undefined) throw new StoreError('not-found', 'sync: this host runs no sync part')
  return part
}

/** Set the sync settings `{remote, branch}` (an empty remote turns sync off); answers the settings and status. */
async function syncSettings(deps: RouteDeps, call: Call): Promise<Reply> {
  const part = syncPart(deps)
  const body = record(call.body, 'body')
  // Worded like a malformed value: the page names the field and what it accepts.
  if (typeof body.remote !== 'string')
    throw brokeRule('invalid', 'remote: must be a string (empty: sync off)', 'remote', 'sync.remote.form')
  if (body.branch !== undefined && typeof body.branch !== 'string')
    throw brokeRule('invalid', 'branch: must be a string', 'branch', 'sync.branch.form')
  return json(JSON.stringify(await part.configure({ remote: body.remote, branch: body.branch ?? '' })))
}

/** Sync now; answers the status after the run. */
async function syncNow(deps: RouteDeps): Promise<Reply> {
  return json(JSON.stringify(await syncPart(deps).now()))
}

/** Add the team library `{remote, branch?, name?}` and answer the libraries after its first pull. */
async function addLibrary(deps: RouteDeps, call: Call): Promise<Reply> {
  const part = syncPart(deps).libraries
  const body = record(call.body, 'body')
  for (const key of Object.keys(body))
    if (!['remote', 'branch', 'name'].includes(key)) throw invalid(key, 'is not a field of a team library')
  if (typeof body.remote !== 'string') throw invalid('remote', 'must be a string')
  for (const key of ['branch', 'name'] as const)
    if (body[key] !== undefined && typeof body[key] !== 'string') throw invalid(key, 'must be a string')
  return json(
    JSON.stringify(
      await part.add({
        remote: body.remote,
        branch: body.branch as string | undefined,
        name: body.name as string | undefined,
      }),
    ),
  )
}

/** Remove the team library `{id}`; answers the libraries left. */
async function removeLibrary(deps: RouteDeps, call: Call): Promise<Reply> {
  const body = record(call.body, 'body')
  if (typeof body.id !== 'string') throw invalid('id', 'must be a string')
  return json(JSON.stringify(await syncPart(deps).libraries.remove(body.id)))
}

/** The `meta` alone (counts, diagnostics, the revision), for a page that heard of a change. */
function getMeta(deps: RouteDeps): Reply {
  return json(`{"meta":${metaJson(deps)}}`)
}

/** The push channel is a WebSocket (upgrade.ts): a plain GET is told so. */
function getEvents(): Reply {
  return refusalReply({
    status: 426,
    code: 'invalid',
    message: 'the event channel is a WebSocket: open it with an Upgrade request',
    field: 'upgrade',
    headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
  })
}

/**
 * A conversation's turn ledger: which profile answered each turn and how many memory items each turn's requests
 * carried (`memories`, for turns recorded since that was kept); with `?turn=N`, only those items of turn N (null when
 * none were recorded), so the ledger reply stays a number per turn however much memory the turns carried.
 */
function getTurns(deps: RouteDeps, call: Call): Reply {
  const sid = sessionId(call.param, 'sessionId')
  const asked = call.url.searchParams.get('turn')
  if (asked === null) {
    const models = deps.models?.()?.turns(sid)
    return json(
      JSON.stringify({
        turns: deps.store.turnsOf(sid),
        memories: deps.store.turnMemoryCounts(sid),
        ...(models === undefined ? {} : { models }),
      }),
    )
  }
  const turn = /^\d{1,15}$/.test(asked) ? Number(asked) : -1
  if (turn < 0) throw invalid('turn', 'must be a non-negative integer')
  return json(JSON.stringify({ turn, memories: deps.store.turnMemories(sid, turn) ?? null }))
}

/** One conversation's own settings and the profile it uses: what the browser shows for the conversation on screen. */
function getSession(deps: RouteDeps, call: Call): Reply {
  return json(JSON.stringify(wireSession(deps.store, sessionId(call.param, 'sessionId'))))
}

/** Bodies from this size are parsed in the import worker; below it a parse takes under a millisecond or two. */
const LARGE_BODY = 256 * 1024

async function serve(
  deps: RouteDeps,
  { imports, own }: Pick<Call, 'imports' | 'own'>,
  req: IncomingMessage,
): Promise<Reply | undefined> {
  let trusted: readonly string[] = []
  try {
    trusted = deps.trustedHosts()
  } catch (error) {
    deps.log.warn(`agent-profiles: routes: trustedHosts() failed, only loopback is trusted: ${describe(error)}`)
  }
  const fenced = checkRequestOrigin(req.headers, trusted)
  if (fenced !== null) return refusalReply(fenced)
  const url = new URL(req.url ?? '/', 'http://localhost')
  const found = match(url.pathname)
  if (found === undefined) {
    return refusalReply({
      status: 404,
      code: 'not-found',
      message: `no route ${JSON.stringify(url.pathname.slice(0, 120))}`,
      field: 'path',
    })
  }
  const { route, rawParam } = found
  const wrongMethod = checkMethod(req.method, route.methods)
  if (wrongMethod !== null) return refusalReply(wrongMethod)
  let param: string
  try {
    param = decodeURIComponent(rawParam)
  } catch {
    return refusalReply({ status: 400, code: 'invalid', message: 'the path has a malformed %-escape', field: 'path' })
  }
  let body: unknown
  if (route.bodyLimit !== undefined && req.method === 'POST') {
    const wrongType = checkJsonContentType(req.headers)
    if (wrongType !== null) return refusalReply(wrongType)
    const read = await readJsonBody(
      req,
      route.bodyLimit,
      { from: LARGE_BODY, parse: (bytes) => imports.parseJson(bytes) },
      route.shape,
    )
    if ('gone' in read) return undefined
    if (!read.ok) return refusalReply(read.refusal)
    body = read.value
  }
  try {
    return await route.run(deps, { url, req, imports, own, param, body })
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    const status = STORE_STATUS[error.code] ?? 500
    if (status >= 500) deps.log.error(`agent-profiles: routes: the store failed: ${error.message}`)
    return refusalReply({
      status,
      code: error.code,
      // The log keeps the path; a reply says "the data directory" (the page words a refusal from its code anyway).
      message: withoutDataDir(error.message, dataDirForms(deps.store.file), 'the data directory'),
      field: error.field,
      limit: error.limit,
      rule: error.rule,
      ...(error.values === undefined ? {} : { values: error.values }),
    })
  }
}

/** The request handler of every `/__ap/*` route, usable on any node:http server, and its push channel. It never rejects. */
export function createHandler(
  deps: RouteDeps,
): RouteHandler & { events: EventHub; imports: ImportPool; own: OwnImports; upgrade: UpgradeHandler } {
  const events = deps.events ?? createEventHub(deps.store, deps.eventOptions)
  const imports = deps.imports ?? new ImportPool({ log: deps.log })
  const own = new OwnImports(deps.store, deps.log)
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let reply: Reply | undefined
    try {
      reply = await serve(deps, { imports, own }, req)
    } catch (error) {
      deps.log.error(`agent-profiles: routes: ${req.method} ${req.url} failed: ${describe(error)}`)
      reply = refusalReply({
        status: 500,
        code: 'internal',
        message: 'internal error in dsh-agent-profiles; the details are in the dsh log',
      })
    }
    if (reply === undefined) {
      res.destroy()
      return
    }
    try {
      send(req, res, reply)
    } catch (error) {
      deps.log.error(`agent-profiles: routes: writing the reply failed: ${describe(error)}`)
      res.destroy()
    }
  }
  return Object.assign(handler, { events, imports, own, upgrade: createUpgrade(events, deps.trustedHosts, deps.log) })
}

/**
 * Register the routes on the host's web server when there is one. The dependency is soft: the headless profile has
 * no web server, and a hard one would leave the whole plugin pending there.
 */
export function installRoutes(ctx: Context, deps: RouteDeps): void {
  ctx.inject(['webServer'], (web) => {
    // Made with the web server, so a process without one (headless) keeps no push channel.
    const handler = createHandler(deps)
    web.effect(() => () => handler.events.close(), 'agent-profiles:events')
    web.effect(
      () => () => {
        void handler.imports.close()
        void handler.own.close()
      },
      'agent-profiles:import worker',
    )
    web.effect(() => web.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler }), 'agent-profiles:routes')
    web.effect(
      () => web.webServer.registerUpgrade({ path: EVENTS_PATH, handler: handler.upgrade }),
      'agent-profiles:events upgrade',
    )
  })
}
