/**
 * The wire's one table: every route of `/__ap` by key, with its method, its path (and the path segment it takes), the
 * schema of its query or body, the type of its reply and the refusals it may answer. The host registers one handler
 * per key (lib/http/routes.ts: the typecheck refuses a key without one) and parses each request by the entry's schema
 * before the handler runs; the page calls a route by its key (lib/client/data/call.ts), its input and reply typed from
 * the same entry. The fence's refusals (403 cross-site or foreign host, 405, 413, 415) apply to every route and are not
 * repeated here. It never answers or sends a request.
 */
import * as z from 'zod'
import { API_BASE } from './wire-inputs.ts'
import type {
  BackupsReply,
  MemorySearchReply,
  PreviewReply,
  ProfileReply,
  TurnMemoriesReply,
  TurnsReply,
  UserReply,
} from './wire-replies.ts'
import type { CommandReply, StateReply, WireSession } from './wire-state.ts'
import type { MemoryHistoryEntry } from './memory-target.ts'
import type { Meta } from './meta.ts'
import type { ModelCatalog } from './models.ts'
import type { BrowserCommand } from './commands.ts'
import type { OwnImportStatus } from './own-import.ts'
import type { LibrariesReply } from './library.ts'
import type { RefusalRule } from './refusals.ts'
import { reply, type Replies } from './replies.ts'
import type { SyncReply } from './sync.ts'
import {
  EXPORT_FILE_BYTES,
  EXPORT_TYPES,
  LearnControlBody,
  LearnPastBody,
  LearnPickBody,
  type LearnExportReply,
  type LearnPastReply,
  type LearnPlanReply,
  type LearnRunReply,
} from './learn.ts'
import {
  AvatarQuery,
  CommandQuery,
  EmptyBody,
  ExportQuery,
  LibraryAddBody,
  LibraryRemoveBody,
  MemoryHistoryQuery,
  MemorySearchQuery,
  PreviewBody,
  ProfileFileQuery,
  ProfileQuery,
  RestoreBody,
  SyncSettingsBody,
  TurnsQuery,
} from './wire-inputs.ts'

/** The error codes a refusal carries, each always answered with one status ({@link REFUSAL_STATUS}). */
export type RefusalCode = 'invalid' | 'not-found' | 'conflict' | 'locked' | 'io' | 'read-only' | 'unwritable'

/**
 * The status each code is answered with. `unwritable`: the data directory cannot be written (its permissions, a
 * read-only disk), so the service cannot save, whoever asks; `io` is a disk that failed.
 */
export const REFUSAL_STATUS = {
  invalid: 400,
  'not-found': 404,
  conflict: 409,
  locked: 409,
  io: 500,
  'read-only': 409,
  unwritable: 503,
} as const satisfies Record<RefusalCode, number>

/** What a route may refuse with besides the fence: an error code, or a keyed rule the page words. */
type Refused = RefusalCode | RefusalRule

/** The refusals a change of the data may answer: a bad field, a missing target, a clash, and the disk's failures. */
const WRITES = ['invalid', 'not-found', 'conflict', 'locked', 'io', 'read-only', 'unwritable'] as const

/** The refusal of a read of rows kept on disk (a memory list, a history) that met a damaged page of the data file. */
const DAMAGED = ['io', 'data.damaged'] as const

/**
 * A body taken as raw bytes, not JSON (a data export's zip): at most `bytes` of it (a declared larger one is refused
 * before a byte is read), sent as one of `types` (anything else is refused 415). None of them is a type a cross-site
 * form or a no-cors fetch may send, so a foreign page's upload needs a preflight these routes never answer.
 */
export interface RawBody {
  readonly bytes: number
  readonly types: readonly string[]
}

/** One route: how it is called and what it answers. */
export interface RouteEntry {
  readonly method: 'GET' | 'POST'
  /** The whole path; with `param`, the prefix the one encoded path segment follows. */
  readonly path: string
  /** The name of the path segment after `path` (`/__ap/profile/<id>`), when the route takes one. */
  readonly param?: string
  /** The query's schema; {@link NONE} for a route that reads no query. */
  readonly query: z.ZodType
  /** The body's schema; {@link NONE} for a GET, {@link BYTES} for a raw body. */
  readonly body: z.ZodType
  /** How a raw body is read (its bytes, unparsed, are then the body). */
  readonly raw?: RawBody
  readonly reply: Replies<unknown>
  readonly refuses: readonly Refused[]
}

/**
 * A command's body as the table types it: the host parses it at the door by its op's own schema (COMMAND_SCHEMAS in
 * schema-commands.ts, lib/validate/command.ts), which words each refusal with the command's field and limit.
 */
const CommandBody = z.custom<BrowserCommand>(() => true)

/** The body of a background import, parsed at the door as a `profiles.importFiles` command (as {@link CommandBody}). */
const OwnImportBody = z.custom<Extract<BrowserCommand, { op: 'profiles.importFiles' }>>(() => true)

/**
 * What a route that takes no query, or no body, reads of it: nothing, whatever was sent (as a route has always
 * ignored a query it does not name). Every entry names both schemas, so a route's parsed input is typed by indexing
 * the table alone, and the router parses a request for any key without a cast.
 */
const NONE = z.unknown().transform((): undefined => undefined)

/**
 * A raw body as the fence read it: its bytes. Known by the array's own tag, not `instanceof`: the bytes may come from
 * another realm's Uint8Array (Node's, read by a server the page's test environment runs), which `instanceof` refuses.
 */
const BYTES = z.custom<Uint8Array>((v) => Object.prototype.toString.call(v) === '[object Uint8Array]')

/** Every route of the wire by key. */
export const WIRE = {
  /** The state (each profile as its head) and its meta. */
  state: {
    method: 'GET',
    path: `${API_BASE}/state`,
    query: NONE,
    body: NONE,
    reply: reply<StateReply>(),
    refuses: ['io'],
  },
  /** Every change: one command the browser may send (commands.ts), answered with the state after it. */
  command: {
    method: 'POST',
    path: `${API_BASE}/command`,
    query: CommandQuery,
    body: CommandBody,
    reply: reply<CommandReply>(),
    refuses: [
      ...WRITES,
      'data.damaged',
      'name.invisible',
      'name.surrogate',
      'name.bidi',
      'name.reserved',
      'name.taken',
      'memory.same',
      'profile.last',
      'session.incognito',
      'model.effort',
      'model.refused',
      'model.unchecked',
      'profile.library',
    ],
  },
  /** A draft rendered as the model would see it, refused as a save would refuse it. */
  preview: {
    method: 'POST',
    path: `${API_BASE}/preview`,
    query: NONE,
    body: PreviewBody,
    reply: reply<PreviewReply>(),
    refuses: ['invalid'],
  },
  /** The meta alone. */
  meta: {
    method: 'GET',
    path: `${API_BASE}/meta`,
    query: NONE,
    body: NONE,
    reply: reply<{ meta: Meta }>(),
    refuses: [],
  },
  /** The export envelope as a dated download. */
  export: {
    method: 'GET',
    path: `${API_BASE}/export`,
    body: NONE,
    query: ExportQuery,
    reply: reply<unknown>(),
    refuses: ['not-found', ...DAMAGED],
  },
  /** One profile as a file (Card PNG, Card JSON, CHARX, Markdown). */
  'export.profile': {
    method: 'GET',
    path: `${API_BASE}/export/`,
    param: 'id',
    body: NONE,
    query: ProfileFileQuery,
    reply: reply<unknown>(),
    refuses: ['invalid', 'not-found', ...DAMAGED],
  },
  /** A profile whole with its head and revision, its head alone (`head`), or how a deleted one looked. */
  profile: {
    method: 'GET',
    path: `${API_BASE}/profile/`,
    param: 'id',
    body: NONE,
    query: ProfileQuery,
    reply: reply<ProfileReply>(),
    refuses: ['not-found', ...DAMAGED],
  },
  /** A profile's avatar bytes. */
  avatar: {
    method: 'GET',
    path: `${API_BASE}/avatar/`,
    param: 'id',
    body: NONE,
    query: AvatarQuery,
    reply: reply<unknown>(),
    refuses: ['not-found'],
  },
  /** The user layer's items and budget share. */
  user: { method: 'GET', path: `${API_BASE}/user`, query: NONE, body: NONE, reply: reply<UserReply>(), refuses: [] },
  /** One conversation's settings and the profile it uses. */
  session: {
    method: 'GET',
    path: `${API_BASE}/session/`,
    param: 'sessionId',
    query: NONE,
    body: NONE,
    reply: reply<WireSession>(),
    refuses: ['invalid'],
  },
  /** A conversation's turn ledger; with `turn`, one turn's memory items ({@link TurnMemoriesReply}). */
  turns: {
    method: 'GET',
    path: `${API_BASE}/turns/`,
    param: 'sessionId',
    body: NONE,
    query: TurnsQuery,
    reply: reply<TurnsReply | TurnMemoriesReply>(),
    refuses: ['invalid'],
  },
  /** The host's providers and models. */
  models: {
    method: 'GET',
    path: `${API_BASE}/models`,
    query: NONE,
    body: NONE,
    reply: reply<ModelCatalog>(),
    refuses: [],
  },
  /** One memory list, filtered and paged. */
  'memory.search': {
    method: 'GET',
    path: `${API_BASE}/memory/search`,
    body: NONE,
    query: MemorySearchQuery,
    reply: reply<MemorySearchReply>(),
    refuses: ['invalid', 'not-found', 'search.words', ...DAMAGED],
  },
  /** One memory list's recorded writes, or a conversation's, newest first (at most 200); a read, never queued. */
  'memory.history': {
    method: 'GET',
    path: `${API_BASE}/memory/history`,
    body: NONE,
    query: MemoryHistoryQuery,
    reply: reply<{ entries: MemoryHistoryEntry[] }>(),
    refuses: ['invalid', 'not-found', ...DAMAGED],
  },
  /** The backups with what each holds. */
  backups: {
    method: 'GET',
    path: `${API_BASE}/backups`,
    query: NONE,
    body: NONE,
    reply: reply<BackupsReply>(),
    refuses: ['io'],
  },
  /** Restore a backup; answers the state it restored, with the user layer it restored. */
  'backups.restore': {
    method: 'POST',
    path: `${API_BASE}/backups/restore`,
    query: NONE,
    body: RestoreBody,
    reply: reply<StateReply & { user: UserReply }>(),
    refuses: [...WRITES, 'backup.damaged', 'backup.newer', 'backup.empty'],
  },
  /** The sync settings and status. */
  sync: {
    method: 'GET',
    path: `${API_BASE}/sync`,
    query: NONE,
    body: NONE,
    reply: reply<SyncReply>(),
    refuses: ['not-found'],
  },
  /** Set the sync remote and branch (an empty remote turns sync off). */
  'sync.settings': {
    method: 'POST',
    path: `${API_BASE}/sync/settings`,
    query: NONE,
    body: SyncSettingsBody,
    reply: reply<SyncReply>(),
    refuses: ['invalid', 'not-found', 'sync.remote.form', 'sync.branch.form'],
  },
  /** Sync now; the status after the run. */
  'sync.now': {
    method: 'POST',
    path: `${API_BASE}/sync/now`,
    query: NONE,
    body: EmptyBody,
    reply: reply<SyncReply>(),
    refuses: ['not-found'],
  },
  /** The team libraries and their status. */
  libraries: {
    method: 'GET',
    path: `${API_BASE}/sync/libraries`,
    query: NONE,
    body: NONE,
    reply: reply<LibrariesReply>(),
    refuses: ['not-found'],
  },
  /** Add a team library and pull it once. */
  'libraries.add': {
    method: 'POST',
    path: `${API_BASE}/sync/libraries/add`,
    query: NONE,
    body: LibraryAddBody,
    reply: reply<LibrariesReply>(),
    refuses: ['invalid', 'not-found', 'conflict', 'library.added'],
  },
  /** Remove a team library (its profiles leave the list; the user's memory of them is kept). */
  'libraries.remove': {
    method: 'POST',
    path: `${API_BASE}/sync/libraries/remove`,
    query: NONE,
    body: LibraryRemoveBody,
    reply: reply<LibrariesReply>(),
    refuses: ['invalid', 'not-found'],
  },
  /** Start the background import of one large file of the user's own (202). */
  'import-own.start': {
    method: 'POST',
    path: `${API_BASE}/import-own`,
    query: NONE,
    body: OwnImportBody,
    reply: reply<{ status: OwnImportStatus }>(),
    refuses: ['invalid', 'conflict', 'import.running'],
  },
  /** How the background import is going (or the last one went). */
  'import-own': {
    method: 'GET',
    path: `${API_BASE}/import-own`,
    query: NONE,
    body: NONE,
    reply: reply<{ status: OwnImportStatus }>(),
    refuses: [],
  },
  /** The push channel: a WebSocket upgrade (lib/http/upgrade.ts); a plain GET is answered 426. */
  events: {
    method: 'GET',
    path: `${API_BASE}/events`,
    query: NONE,
    body: NONE,
    reply: reply<never>(),
    refuses: ['invalid'],
  },
  /** What the data export last sent to learn from holds (`{}` before any). */
  'learn.export': {
    method: 'GET',
    path: `${API_BASE}/learn/export`,
    query: NONE,
    body: NONE,
    reply: reply<LearnExportReply>(),
    refuses: [],
  },
  /** Another assistant's data export, its bytes read in the import worker: what it holds, or why it cannot be read. */
  'learn.export.send': {
    method: 'POST',
    path: `${API_BASE}/learn/export`,
    query: NONE,
    body: BYTES,
    raw: { bytes: EXPORT_FILE_BYTES, types: EXPORT_TYPES },
    reply: reply<LearnExportReply>(),
    refuses: [],
  },
  /** What learning a pick of that export costs (model calls, tokens), before anything is spent. */
  'learn.plan': {
    method: 'POST',
    path: `${API_BASE}/learn/plan`,
    query: NONE,
    body: LearnPickBody,
    reply: reply<LearnPlanReply>(),
    refuses: ['invalid', 'not-found', 'conflict', 'learn.memory-off'],
  },
  /** The learning run of this data (the last one when none runs): its progress and state. */
  'learn.run': {
    method: 'GET',
    path: `${API_BASE}/learn/run`,
    query: NONE,
    body: NONE,
    reply: reply<LearnRunReply>(),
    refuses: [],
  },
  /** Start learning a pick of the export last read, in the background (202). */
  'learn.start': {
    method: 'POST',
    path: `${API_BASE}/learn/start`,
    query: NONE,
    body: LearnPickBody,
    reply: reply<LearnRunReply>(),
    refuses: ['invalid', 'not-found', 'conflict', 'io', 'learn.memory-off', 'learn.running', 'learn.no-model'],
  },
  /** Pause, resume or cancel the learning run. */
  'learn.control': {
    method: 'POST',
    path: `${API_BASE}/learn/control`,
    query: NONE,
    body: LearnControlBody,
    reply: reply<LearnRunReply>(),
    refuses: ['invalid', 'not-found', 'conflict', 'learn.elsewhere'],
  },
  /**
   * The user's own past dsh conversations (of one workspace, or all), read to learn from in place of an export: what
   * they hold and the workspaces to pick from. Those that write no memory and those learned already are left out.
   */
  'learn.past': {
    method: 'POST',
    path: `${API_BASE}/learn/past`,
    query: NONE,
    body: LearnPastBody,
    reply: reply<LearnPastReply>(),
    refuses: ['invalid', 'not-found'],
  },
} as const satisfies Record<string, RouteEntry>

/** A route's key. */
export type RouteKey = keyof typeof WIRE

/** What route `K` answers. */
export type RouteReply<K extends RouteKey> = NonNullable<(typeof WIRE)[K]['reply']['of']>

/** What a caller gives route `K`: its path segment, its query and its body, each only when the route takes one. */
export type RouteInput<K extends RouteKey> = (typeof WIRE)[K] extends infer E extends RouteEntry
  ? (E extends { param: string } ? { param: string } : unknown) &
      (E['query'] extends typeof NONE ? unknown : { query?: z.input<E['query']> }) &
      (E extends { raw: RawBody }
        ? { raw: { bytes: Blob | ArrayBuffer; type: string } }
        : E['body'] extends typeof NONE
          ? unknown
          : { body: z.input<E['body']> })
  : never

/**
 * What route `K` hands its handler after the door parsed the request: the output of the entry's own schemas, read off
 * the table by indexing alone (no condition on the key), so the router can hand it on for a key it holds generically.
 */
export type RouteParsed<K extends RouteKey> = {
  param: string
  query: z.output<(typeof WIRE)[K]['query']>
  body: z.output<(typeof WIRE)[K]['body']>
}
