/**
 * The browser half's only door to the host half: every request to /__ap goes through here (same origin, JSON),
 * and the last `{state, meta}` the host answered lives in one shared store so every component sees the same data.
 * It never renders and never keeps a second copy of the profiles' heads: components read the snapshot, send
 * commands, and the answer replaces the snapshot. A profile whole (its texts and memory) is not in the state; the
 * components that show one read it through profiles.ts.
 */
import type { SyncReply, SyncSettings } from '../../shared/sync.ts'
import type { LibrariesReply } from '../../shared/library.ts'
import type { OwnImportStatus } from '../../shared/own-import.ts'
import { createContext, useContext, useEffect, useSyncExternalStore } from 'react'
import { API_BASE } from '../../shared/wire-inputs.ts'
import type {
  BackupInfo,
  MemorySearchReply,
  PreviewReply,
  ProfileReply,
  TurnMemoriesReply,
  TurnsReply,
} from '../../shared/wire-replies.ts'
import type { Meta } from '../../shared/meta.ts'
import type { ModelCatalog } from '../../shared/models.ts'
import type { WireSession } from '../../shared/wire-state.ts'
import type { ArgsOf, BrowserOp, ReplyOf } from '../../shared/commands.ts'
import type { MemoryLayer, MemorySource, Profile, SessionSetting, UsedMemory } from '../../state/model.ts'
import type { MemoryHistoryEntry } from '../../shared/memory-target.ts'
import type { RouteInput, RouteKey } from '../../shared/wire-table.ts'
import { ApiError, callerOf, urlOf, type Caller } from './call.ts'
import { SharedSnapshot, type Snapshot, type StatePatch } from './shared-snapshot.ts'

/** A client over one origin: requests, plus the shared snapshot for `useSyncExternalStore`. */
export interface ApiClient {
  subscribe(fn: () => void): () => void
  getSnapshot(): Snapshot
  /** Load `GET /state`; never throws (the failure lands in the snapshot). */
  refresh(): Promise<Snapshot>
  /**
   * Send one command the browser may send, with the fields op `op` takes (none needed when all are optional); the
   * answer replaces the shared state. Throws ApiError when refused.
   */
  command<O extends BrowserOp>(op: O, ...args: ArgsParam<O>): Promise<ReplyOf<O>>
  /** Render a draft exactly as the model would see it, without saving. */
  preview(profile: Partial<Profile>, setting?: Partial<SessionSetting>): Promise<PreviewReply>
  /** Which profile answered each turn of one conversation, how many memory items each turn carried, on which model. */
  turns(sessionId: string): Promise<TurnsReply>
  /** The host's providers and models, for the editor's model picker. */
  models(): Promise<ModelCatalog>
  /** The memory items one turn's requests carried, null when none were recorded for it. */
  turnMemories(sessionId: string, turn: number): Promise<UsedMemory[] | null>
  /** Load one conversation's settings into the snapshot; requests for the same conversation at once share one. */
  loadConversation(sessionId: string): Promise<void>
  /** Load the user layer into the snapshot; loads asked for at once share one request. */
  loadUser(): Promise<void>
  /** The backups of the data, newest first, with what each holds. */
  backups(): Promise<BackupInfo[]>
  /** Restore backup `name` (the current data becomes a backup first); the answer replaces the shared state. */
  restoreBackup(name: string): Promise<void>
  /** The sync repository's settings and status. */
  sync(): Promise<SyncReply>
  /** Set the sync remote and branch (an empty remote turns sync off). */
  configureSync(settings: SyncSettings): Promise<SyncReply>
  /** Sync now; answers the status after the run. */
  syncNow(): Promise<SyncReply>
  /** The team libraries and their status. */
  libraries(): Promise<LibrariesReply>
  /** Add a team library and pull it once. */
  addLibrary(library: { remote: string; branch: string; name: string }): Promise<LibrariesReply>
  /** Remove a team library (its profiles leave the list). */
  removeLibrary(id: string): Promise<LibrariesReply>
  /** Start importing one large file of the user's own in the background (`args` as `profiles.importFiles`'). */
  importOwn(args: ArgsOf<'profiles.importFiles'>): Promise<OwnImportStatus>
  /** How the background import of a large own file is going (or the last one went). */
  ownImport(): Promise<OwnImportStatus>
  /**
   * Call any route of the wire table by its key, its input and reply typed by the table's entry; the methods above
   * are the calls that also keep the shared snapshot.
   */
  call: Caller
  /** The URL of route `key` (a download's `href`: the export, a profile's file). */
  urlOf<K extends RouteKey>(key: K, ...input: {} extends RouteInput<K> ? [RouteInput<K>?] : [RouteInput<K>]): string
  /** One memory list's recorded writes, or those one conversation caused (`GET /__ap/memory/history`). */
  history(query: RouteInput<'memory.history'>['query']): Promise<MemoryHistoryEntry[]>
  /**
   * One profile as saved now (whole with its head, or with `part` 'head' its head alone), or how a deleted one
   * looked; undefined when the host knows no such profile.
   */
  fetchProfile(id: string, part?: 'whole' | 'head'): Promise<ProfileReply | undefined>
  /** The `meta` alone. */
  fetchMeta(): Promise<Meta>
  /** One window of one memory list, filtered (`GET /__ap/memory/search`). Throws ApiError when refused. */
  searchMemory(query: MemoryQuery, offset: number, limit: number): Promise<MemorySearchReply>
  /** Apply what the push channel said changed (and what was fetched for it) to the shared snapshot. */
  patch(update: StatePatch): void
}

/**
 * What a command's reply carries besides what its op always answers: `window`, for a `profile.update` of a profile
 * whose memory has an archive, the first that many items of its memory list (`saved.window`).
 */
interface CommandAsk {
  window?: number
}

/** The fields of op `O` as `command` takes them (optional when every field is), and what more the reply carries. */
type ArgsParam<O extends BrowserOp> =
  Partial<ArgsOf<O>> extends ArgsOf<O> ? [args?: ArgsOf<O>, ask?: CommandAsk] : [args: ArgsOf<O>, ask?: CommandAsk]

/** Which memory list the search route reads, and its filters (absent: every item). */
export interface MemoryQuery {
  layer: MemoryLayer
  /** The profile id (`profile`) or session id (`conversation`); absent for the user layer. */
  owner?: string
  /** Text every match holds ('' for all). */
  q: string
  source?: MemorySource
  /** true: only archived items; false: only the core. */
  archived?: boolean
}

/** The search route's query for `query` and the window `[offset, offset + limit)`. */
function memorySearchQuery(query: MemoryQuery, offset: number, limit: number): RouteInput<'memory.search'>['query'] {
  return {
    layer: query.layer,
    ...(query.owner === undefined ? {} : { owner: query.owner }),
    ...(query.q === '' ? {} : { q: query.q }),
    ...(query.source === undefined ? {} : { source: query.source }),
    ...(query.archived === undefined ? {} : { archived: query.archived ? '1' : '0' }),
    offset: String(offset),
    limit: String(limit),
  }
}

/** Make a client talking to `base` through `fetchImpl` (the page's `fetch` unless given). */
export function createApiClient(base: string = API_BASE, fetchImpl?: typeof fetch): ApiClient {
  const call: Caller = callerOf(base, fetchImpl)
  const shared = new SharedSnapshot(call)
  return {
    subscribe: shared.subscribe,
    getSnapshot: shared.getSnapshot,
    refresh: shared.refresh,
    loadUser: shared.loadUser,
    loadConversation: shared.loadConversation,
    patch: shared.patch,
    async command(op, ...[args, ask]) {
      // One request: the reply carries the state, and the user layer when the command changed it.
      const window = ask?.window === undefined ? {} : { query: { window: String(ask.window) } }
      const reply = await call('command', { body: { ...args, op }, ...window })
      shared.take(reply)
      return reply
    },
    async restoreBackup(name) {
      shared.take(await call('backups.restore', { body: { name } }))
    },
    ...reads(call),
    urlOf: (key, ...input) => urlOf(base, key, ...input),
  }
}

/** The client's calls that only read or keep no snapshot: each one request, its answer handed back. */
function reads(call: Caller): Omit<ApiClient, keyof SharedSnapshot | 'command' | 'restoreBackup' | 'urlOf'> {
  return {
    preview: (profile, setting) =>
      call('preview', { body: setting === undefined ? { profile } : { profile, setting } }),
    async turns(sessionId) {
      const reply = (await call('turns', { param: sessionId })) as Partial<TurnsReply>
      return { turns: reply.turns ?? {}, memories: reply.memories ?? {}, models: reply.models ?? {} }
    },
    models: () => call('models'),
    async turnMemories(sessionId, turn) {
      const reply = await call('turns', { param: sessionId, query: { turn: String(turn) } })
      return (reply as TurnMemoriesReply).memories
    },
    async backups() {
      return (await call('backups')).backups
    },
    sync: () => call('sync'),
    configureSync: (settings) => call('sync.settings', { body: settings }),
    syncNow: () => call('sync.now', { body: {} }),
    libraries: () => call('libraries'),
    addLibrary: (library) => call('libraries.add', { body: library }),
    removeLibrary: (id) => call('libraries.remove', { body: { id } }),
    importOwn: async (args) =>
      (await call('import-own.start', { body: { op: 'profiles.importFiles', ...args } })).status,
    ownImport: async () => (await call('import-own')).status,
    call,
    async fetchProfile(id, part = 'whole') {
      try {
        return await call('profile', { param: id, ...(part === 'head' ? { query: { head: '' } } : {}) })
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return undefined
        throw error
      }
    },
    searchMemory: (query, offset, limit) => call('memory.search', { query: memorySearchQuery(query, offset, limit) }),
    history: async (query) => (await call('memory.history', { query })).entries,
    async fetchMeta() {
      return (await call('meta')).meta
    },
  }
}

/** The page-wide client every entry shares. */
export const api: ApiClient = createApiClient()

/** Lets tests (and nothing else today) hand components a client of their own. */
export const ApiContext = createContext<ApiClient>(api)

/** React hook: the client in scope. */
export function useApi(): ApiClient {
  return useContext(ApiContext)
}

/** React hook: the shared snapshot; starts the first load when nothing has been loaded yet. */
export function useApState(): Snapshot {
  const client = useApi()
  const snap = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot)
  useEffect(() => {
    if (client.getSnapshot().status === 'idle') void client.refresh()
  }, [client])
  return snap
}

/**
 * React hook: one conversation's settings as the host last answered them (undefined until the first answer). Asked
 * again whenever the shared state changes, since a change elsewhere (a deleted profile, another tab, another dsh
 * process) can change this conversation too.
 */
export function useConversation(sessionId: string): WireSession | undefined {
  const client = useApi()
  const snap = useApState()
  useEffect(() => {
    if (snap.state !== null) void client.loadConversation(sessionId)
  }, [client, sessionId, snap.state])
  return snap.conversations.get(sessionId)
}
