/**
 * The schemas (zod 4) of what the wire's routes read besides a command: each route's query and each small body, worded
 * as the routes have always refused them (the field, the limit, the rule the page words). Both halves import them
 * through the table (wire-table.ts): the page builds its requests from their input types, the host parses each request by
 * them at the door. A command's body is the commands' own (schema-commands.ts). It never answers a request.
 */
import * as z from 'zod'
import { MEMORY_LAYERS, MEMORY_SOURCES, type MemoryLayer, type MemorySource } from '../state/model.ts'
import { strict } from '../state/schema-kit.ts'
import { SEARCH_PAGE, SEARCH_QUERY_CHARS } from './wire-replies.ts'

/** A string field whose refusal names a rule the page words (lib/shared/refusals.ts), whatever the value was. */
const ruled = (message: string, rule: string) =>
  z.custom<string>((v) => typeof v === 'string', { error: message, params: { rule } })

/** A plain string field, refused with `message` when it is anything else. */
const plain = (message: string) => z.custom<string>((v) => typeof v === 'string', { error: message })

/** One query value as the URL carries it: once (a string) or repeated (a list). */
const queryValue = z.union([z.string(), z.array(z.string())])

/** A URL's query as its schema reads it: a key given once is a string, a key given more than once a list. */
export function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key)
    out[key] = all.length === 1 ? all[0]! : all
  }
  return out
}

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

/** A count of the search window: digits within `[min, max]`; absent or empty, `fallback`. */
const count = (min: number, max: number, fallback: number) =>
  z
    .custom<string>((v) => typeof v === 'string' && (v === '' || (/^\d{1,9}$/.test(v) && +v >= min && +v <= max)), {
      error: `must be an integer from ${min} to ${max}`,
      params: { limit: max },
    })
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : Number(v)))

/** A filter given as 1 (only those), 0 (only the others) or not at all. */
const flag = z
  .custom<string>((v) => v === '' || v === '0' || v === '1', { error: 'must be 0 or 1' })
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === '1'))

/** Whether `v` is one of `values`, once or as a list of them. */
const eachOf = (v: unknown, values: readonly string[]) => (Array.isArray(v) ? v : [v]).every((s) => values.includes(s))

/**
 * `GET /__ap/memory/search?layer=&owner=&q=&source=&archived=&pending=&offset=&limit=`: which list, its filters and
 * the window, checked in this order: a layer, a query of at most SEARCH_QUERY_CHARS (trimmed), sources, the two
 * flags, the window's counts. What needs the list is the list's own (lib/memory/list.ts): the owner that must exist,
 * and the query's words (at most SEARCH_QUERY_WORDS different ones, counted the way the search reads them).
 */
export const MemorySearchQuery = query({
  layer: z.custom<MemoryLayer>((v) => eachOf(v, MEMORY_LAYERS) && typeof v === 'string', {
    error: `must be one of ${MEMORY_LAYERS.join(', ')}`,
  }),
  q: z
    .string({ error: 'must be a string' })
    .optional()
    .transform((v) => (v ?? '').trim())
    .pipe(
      z.string().max(SEARCH_QUERY_CHARS, {
        error: (iss) => `is ${(iss.input as string).length} characters, over the limit of ${SEARCH_QUERY_CHARS}`,
      }),
    ),
  source: z
    .custom<MemorySource | MemorySource[]>((v) => eachOf(v, MEMORY_SOURCES), {
      error: `must be one of ${MEMORY_SOURCES.join(', ')}`,
    })
    .optional()
    .transform((v): MemorySource[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
  archived: flag,
  pending: flag,
  offset: count(0, 1_000_000, 0),
  limit: count(1, SEARCH_PAGE.max, SEARCH_PAGE.default),
  owner: z.string({ error: 'must be a string' }).optional(),
})

/** The memory search's query once its schema read it: what lib/memory/list.ts lists. */
export type MemorySearch = z.output<typeof MemorySearchQuery>

/**
 * `POST /__ap/command?window=N`: a saved profile whose memory has an archive answers with the first N items of its
 * memory list too (`saved.window`; N at most SEARCH_PAGE.max, absent or 0 for none). The page asks it for a profile
 * it knows has an archive, whose list it cannot cut from the core the reply carries.
 */
export const CommandQuery = query({ window: count(0, SEARCH_PAGE.max, 0) })

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
