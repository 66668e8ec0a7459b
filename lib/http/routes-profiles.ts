/**
 * The routes that read profiles and conversations: one profile whole or as its head, its avatar, the exports, the user
 * layer, one conversation, its turn ledger and the host's models. Each reads the store and answers; none writes. Owns
 * these handlers only (the wire form of what they answer is wire.ts's).
 */
import type { ModelCatalog } from '../shared/models.ts'
import type { ProfileReply, UserReply } from '../shared/wire-replies.ts'
import { DEFAULT_CONFIG } from '../config/config.ts'
import { findProfile } from '../commands/kit.ts'
import { exportFile } from '../interop/file-export.ts'
import { hasHistory, userItemsOf, userShare } from '../state/model.ts'
import { listMemory } from '../memory/list.ts'
import type { MemorySearch } from '../shared/wire-inputs.ts'
import { sessionId } from '../validate/state.ts'
import { json, type Reply } from './reply.ts'
import { jsonOf, type Call, type Handler, type RouteDeps } from './route-kit.ts'
import { avatarImage, coreOnly, memoryCounts, toWireProfile, wireHead, wireSession } from './wire.ts'
import { StoreError } from '../shared/errors.ts'

/** Local calendar date, YYYY-MM-DD: the day the user made the file, as their own clock says. */
function today(): string {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** The envelope of every profile (or of `?id=…`), with the user layer when `?user=1`. */
function getExport(deps: RouteDeps, call: Call<'export'>): Reply {
  const asked = call.query.id
  const ids = asked === undefined ? [] : typeof asked === 'string' ? [asked] : asked
  const envelope = deps.store.exportEnvelope(ids.length > 0 ? ids : undefined, { user: call.query.user === '1' })
  return json(JSON.stringify(envelope, null, 2), {
    'Content-Disposition': `attachment; filename="dsh-agent-profiles-${today()}.json"`,
  })
}

/** One profile as a Character Card (PNG, JSON or CHARX) or a Markdown file: `?format=card-png|card-json|charx|markdown[&lang=en]`. */
function getProfileExport(deps: RouteDeps, call: Call<'export.profile'>): Reply {
  // The profile is looked for before the format is checked: an unknown id answers 404 whatever the format.
  const profile = findProfile(deps.store.state, call.param, 'id')
  const file = exportFile(profile, call.query.format ?? null, call.query.lang ?? null)
  return {
    status: 200,
    headers: { 'Content-Type': file.type, 'Cache-Control': 'no-store', 'Content-Disposition': file.disposition },
    body: file.body,
  }
}

function getAvatar(deps: RouteDeps, call: Call<'avatar'>): Reply {
  const image = avatarImage(deps.store, call.param)
  if (image === undefined) {
    throw new StoreError('not-found', `id: no avatar for profile ${JSON.stringify(call.param.slice(0, 80))}`, 'id')
  }
  // A URL minted with the current hash names immutable bytes; any other URL must revalidate against the ETag.
  const headers = {
    ETag: image.etag,
    'Cache-Control': call.query.v === image.hash ? 'private, max-age=31536000, immutable' : 'no-cache',
  }
  const tags = call.req.headers['if-none-match']?.split(',').map((t) => t.trim().replace(/^W\//, ''))
  if (tags !== undefined && (tags.includes(image.etag) || tags.includes('*'))) return { status: 304, headers }
  return { status: 200, headers: { ...headers, 'Content-Type': image.type }, body: image.bytes }
}

/**
 * One profile whole, as the page that shows or edits it reads it (and as a save answers with it): its core memory, its
 * head, the revision it was read at, its memory's counts and whether that memory has a recorded write; with `window`
 * (a save that asked, routes-command.ts) and a memory with an archive, also the first `window` items of its memory
 * list as the search route answers them. Undefined for a profile the store does not hold.
 */
export function wholeProfile(
  deps: RouteDeps,
  id: string,
  window = 0,
): Extract<ProfileReply, { profile: unknown }> | undefined {
  // The revision first: reading it is what brings in another process's commits, so the profile is at least as new.
  const revision = deps.store.revision
  // Read once: each read of the state asks the database whether another process wrote (a save's reply pays this).
  const state = deps.store.state
  const profile = state.profiles.find((p) => p.id === id)
  if (profile === undefined) return undefined
  const counts = memoryCounts(profile)
  return {
    profile: coreOnly(toWireProfile(deps.store, profile)),
    head: wireHead(deps.store, profile),
    revision,
    memoryCounts: counts,
    ...(hasHistory(state, { profileId: profile.id }) ? { history: true as const } : {}),
    // The search route's own function, so the page's first rows are the route's by construction. Only asked for and
    // only with an archive: every other save's reply pays one comparison for it.
    ...(window > 0 && counts.archived > 0 ? { window: listMemory(deps.store, firstRows(id, window)) } : {}),
  }
}

/** The search route's query for the first `limit` items of profile `id`'s memory list, unfiltered. */
function firstRows(id: string, limit: number): MemorySearch {
  return { layer: 'profile', owner: id, q: '', source: [], archived: undefined, pending: undefined, offset: 0, limit }
}

/**
 * One profile as the wire carries it, whole for a page that shows or edits it, or (`?head`) its head alone for a page
 * that heard it changed or met it in a turn head; a profile deleted since answers with how it looked then, so the
 * turns it answered keep its face.
 */
function getProfile(deps: RouteDeps, call: Call<'profile'>): Reply {
  const whole = call.query.head === undefined ? wholeProfile(deps, call.param) : undefined
  if (whole !== undefined) return jsonOf(whole)
  const profile = deps.store.state.profiles.find((p) => p.id === call.param)
  if (profile !== undefined) return jsonOf({ head: wireHead(deps.store, profile) } satisfies ProfileReply)
  const retired = deps.store.retired(call.param)
  if (retired === undefined)
    throw new StoreError('not-found', `id: no profile ${JSON.stringify(call.param.slice(0, 80))}`, 'id')
  return jsonOf({ retired } satisfies ProfileReply)
}

/**
 * The user layer's items and budget share as `GET /__ap/user` answers them, and as a change that wrote the layer
 * answers with them (routes-command.ts, routes-state.ts): kept out of the state reply, whose size must not grow with
 * them.
 */
export function userReply(deps: RouteDeps): UserReply {
  const budget = deps.memoryBudget ?? DEFAULT_CONFIG.memoryBudget
  const state = deps.store.state
  return {
    items: [...userItemsOf(state)],
    share: userShare(budget),
    budget,
    ...(hasHistory(state, { user: true }) ? { history: true as const } : {}),
  }
}

/** `GET /__ap/models`: the host's providers and models for the editor's picker. */
async function getModels(deps: RouteDeps): Promise<Reply> {
  const models = deps.models?.()
  const catalog: ModelCatalog =
    models === undefined ? { providers: [], failures: [{ missing: 'llm' }] } : await models.catalog()
  return jsonOf(catalog)
}

/**
 * A conversation's turn ledger: which profile answered each turn and how many memory items each turn's requests
 * carried (`memories`, for turns recorded since that was kept); with `?turn=N`, only those items of turn N (null when
 * none were recorded), so the ledger reply stays a number per turn however much memory the turns carried.
 */
function getTurns(deps: RouteDeps, call: Call<'turns'>): Reply {
  const sid = sessionId(call.param, 'sessionId')
  if (call.query.turn === undefined) {
    const models = deps.models?.()?.turns(sid)
    return jsonOf({
      turns: deps.store.turnsOf(sid),
      memories: deps.store.turnMemoryCounts(sid),
      ...(models === undefined ? {} : { models }),
    })
  }
  const turn = Number(call.query.turn)
  return jsonOf({ turn, memories: deps.store.turnMemories(sid, turn) ?? null })
}

/** The handlers of the routes that read profiles and conversations. */
export const PROFILE_ROUTES = {
  export: { run: getExport },
  'export.profile': { run: getProfileExport },
  avatar: { run: getAvatar },
  profile: { run: getProfile },
  user: { run: (deps) => jsonOf(userReply(deps)) },
  models: { run: getModels },
  turns: { run: getTurns },
  /** One conversation's own settings and the profile it uses: what the browser shows for the conversation on screen. */
  session: { run: (deps, call) => jsonOf(wireSession(deps.store, sessionId(call.param, 'sessionId'))) },
} satisfies {
  [K in 'export' | 'export.profile' | 'avatar' | 'profile' | 'user' | 'models' | 'turns' | 'session']: Handler<K>
}
