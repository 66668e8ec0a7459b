/**
 * The schemas (zod 4) of what the wire's routes read besides a command: each route's query and each small body, worded
 * as the routes have always refused them (the field, the limit, the rule the page words). Both halves import them
 * through the table (wire-table.ts): the page builds its requests from their input types, the host parses each request by
 * them at the door. A command's body is the commands' own (schema-commands.ts). It never answers a request.
 */
import * as z from 'zod'
import { strict } from './schema-kit.ts'

/** A string field whose refusal names a rule the page words (lib/shared/refusals.ts), whatever the value was. */
const ruled = (message: string, rule: string) =>
  z.custom<string>((v) => typeof v === 'string', { error: message, params: { rule } })

/** A plain string field, refused with `message` when it is anything else. */
const plain = (message: string) => z.custom<string>((v) => typeof v === 'string', { error: message })

/** One query value as the URL carries it: once (a string) or repeated (a list). */
const queryValue = z.union([z.string(), z.array(z.string())])

/** Query parameters a route does not name are ignored, as a URL's always were. */
const query = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape)

/** `GET /__ap/export?id=…&user=1`: the profiles to export (all when none) and whether the user layer goes along. */
export const ExportQuery = query({ id: queryValue.optional(), user: z.string().optional() })

/** `GET /__ap/export/<id>?format=…&lang=…`: the file format and the language of its words (the route checks both). */
export const ProfileFileQuery = query({ format: z.string().optional(), lang: z.string().optional() })

/** `GET /__ap/avatar/<id>?v=<hash>`: the hash the URL was minted with (the cache's key). */
export const AvatarQuery = query({ v: z.string().optional() })

/** `GET /__ap/profile/<id>?head`: the head alone when `head` is present. */
export const ProfileQuery = query({ head: z.string().optional() })

/** `GET /__ap/turns/<sessionId>?turn=N`: one turn's memory items, N a non-negative integer. */
export const TurnsQuery = query({
  turn: z
    .string({ error: 'must be a non-negative integer' })
    .regex(/^\d{1,15}$/, { error: 'must be a non-negative integer' })
    .optional(),
})

/**
 * `GET /__ap/memory/search?layer=&owner=&q=&source=&archived=&pending=&offset=&limit=`: which list, its filters and
 * the window; each value's rules (a layer, counts within their range, at most 8 words) are the memory list's own
 * (lib/memory/list.ts), which words them with its limits.
 */
export const MemorySearchQuery = query({
  layer: z.string().optional(),
  owner: z.string().optional(),
  q: z.string().optional(),
  source: queryValue.optional(),
  archived: z.string().optional(),
  pending: z.string().optional(),
  offset: z.string().optional(),
  limit: z.string().optional(),
})

/**
 * `GET /__ap/memory/history?layer=profile|user|conversation&owner=<id>`: one memory list's recorded writes; or
 * `?by=<sessionId>`: every write that conversation caused, in any list. The list must exist (the route checks it).
 */
export const MemoryHistoryQuery = query({
  layer: z.string().optional(),
  owner: z.string().optional(),
  by: z.string().optional(),
})

/** `POST /__ap/preview`: the draft's rendered fields and the conversation's note and memories (checked as a save). */
export const PreviewBody = z.object({ profile: z.unknown().optional(), setting: z.unknown().optional() })

/** `POST /__ap/backups/restore`: the backup to restore, by name. */
export const RestoreBody = z.object({ name: plain('must be the name of a backup') })

/** `POST /__ap/sync/settings`: the remote (empty: sync off) and the branch; their forms are the sync part's rules. */
export const SyncSettingsBody = z.object({
  remote: ruled('must be a string (empty: sync off)', 'sync.remote.form'),
  branch: ruled('must be a string', 'sync.branch.form').optional(),
})

/** `POST /__ap/sync/now`: nothing to say. */
export const EmptyBody = z.object({})

/** `POST /__ap/sync/libraries/add`: a team library's remote, and optionally its branch and display name. */
export const LibraryAddBody = strict({
  remote: plain('must be a string'),
  branch: plain('must be a string').optional(),
  name: plain('must be a string').optional(),
})

/** `POST /__ap/sync/libraries/remove`: the library to remove. */
export const LibraryRemoveBody = z.object({ id: plain('must be a string') })

/** Base path of the host half's routes. */
export const API_BASE = '/__ap'
