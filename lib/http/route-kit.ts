/**
 * What every route handler is given and how it answers with the state: the routes' dependencies, the parsed call a
 * handler receives for its key of the wire table (lib/shared/wire-table.ts), the handler's own type, and the state
 * reply that changes answer with. It never matches a request (routes.ts does) and never decides a route's answer.
 */
import type { IncomingMessage } from 'node:http'
import type { RawBody, RouteKey, RouteParsed, WIRE } from '../shared/wire-table.ts'
import type { Meta } from '../shared/meta.ts'
import type { Log } from '../shared/log.ts'
import type { RenderableProfile, RenderableSetting } from '../prompt/render.ts'
import type { ModelChoiceApi } from '../prompt/model-choice.ts'
import type { OwnImports } from '../store/import-batches.ts'
import type { LearnExports } from '../learn/run/exports.ts'
import type { LearnRunner } from '../learn/run/runner.ts'
import type { PastSessionReader } from '../learn/past-sessions.ts'
import type { ProfileStore } from '../store/store.ts'
import type { SyncPart } from '../sync/install.ts'
import type { BodyCaps } from './caps.ts'
import type { EventHub, HubOptions } from './events.ts'
import type { ImportPool } from './import-pool.ts'
import { describe, json, type Reply } from './reply.ts'
import { hideDataDir } from './hide-data-dir.ts'
import { wireStateBytes } from './wire.ts'
import { StoreError } from '../shared/errors.ts'

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
  /** The learning run, while the host's model service is up. */
  learn?: () => LearnRunner | undefined
  /** The host's session query, to read the user's past conversations from, while it is up. */
  past?: () => PastSessionReader | undefined
  /** The sync part (its settings, status and "sync now"), when installed. */
  sync?: () => SyncPart | undefined
}

/** What a handler of route `K` is handed: the request parsed by the route's schemas, and the routes' shared parts. */
export type Call<K extends RouteKey> = RouteParsed<K> & {
  url: URL
  req: IncomingMessage
  imports: ImportPool
  /** The background import of a large own file (one at a time). */
  own: OwnImports
  /** The data export last read to learn from. */
  learn: LearnExports
}

/** The handler of route `K`; a route with a JSON body names the caps it is read within (a raw one's are the table's). */
export type Handler<K extends RouteKey> = {
  run: (deps: RouteDeps, call: Call<K>) => Reply | Promise<Reply>
  /** The caps a JSON body is read within; required of a POST route that takes one (below), absent elsewhere. */
  caps?: BodyCaps
  /**
   * Parse the body in place of the table's schema: a command is parsed by its op's own schema, which the table's
   * type cannot hold. Runs at the door, before `run`.
   */
  door?: (body: unknown, deps: RouteDeps) => RouteParsed<K>['body']
} & ((typeof WIRE)[K] extends { raw: RawBody }
  ? unknown
  : (typeof WIRE)[K]['method'] extends 'POST'
    ? { caps: BodyCaps }
    : unknown)

/** A handler for every route of the table: the typecheck refuses a key without one. */
export type Handlers = { [K in RouteKey]: Handler<K> }

/**
 * The `meta` of a reply as JSON, the data directory's path left out. A failing diagnostics provider must not turn a
 * saved change into an error reply.
 */
export function metaJson(deps: RouteDeps): string {
  try {
    return hideDataDir(JSON.stringify(deps.meta()) ?? '{}', deps.store.file)
  } catch (error) {
    deps.log.warn(`agent-profiles: routes: meta() failed: ${describe(error)}`)
    return '{}'
  }
}

const STATE_KEY = Buffer.from('{"state":')

/**
 * `{state, meta, ...fields}` for the store's current snapshot; `fields` is a JSON object's text. The meta (and with it
 * the revision) is read first: reading the revision is what brings in another process's commits, so the state is at
 * least as new as the revision the reply names, and a page that skips the push events up to that revision misses
 * nothing. The state's bytes come from wire.ts, encoded once per snapshot and shared by every reply (not copied into
 * each); only meta and the fields are encoded per reply.
 */
export function stateReply(deps: RouteDeps, fields = '{}'): Reply {
  const meta = metaJson(deps)
  const tail = fields === '{}' ? '}' : `,${fields.slice(1)}`
  return json([STATE_KEY, wireStateBytes(deps.store), Buffer.from(`,"meta":${meta}${tail}`)])
}

/** A reply of `value` as JSON. */
export function jsonOf(value: unknown): Reply {
  return json(JSON.stringify(value))
}

/** The sync part, or a refusal saying it is not there. */
export function syncPart(deps: RouteDeps): SyncPart {
  const part = deps.sync?.()
  if (part === undefined) throw new StoreError('not-found', 'sync: this host runs no sync part')
  return part
}
