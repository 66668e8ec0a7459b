/**
 * The routes that read memory lists: one list filtered and paged (`memory.search`), and the recorded writes of one
 * list or of one conversation (`memory.history`). Both read the current state and answer; neither goes through the
 * store's write queue, so a page reading history never waits behind a save. Owns these handlers only.
 */
import { COMMAND_SCHEMAS } from '../shared/schema-commands.ts'
import { historyQuery } from '../commands/history.ts'
import { listMemory } from '../memory/list.ts'
import { parse } from '../validate/core.ts'
import { invalid } from '../validate/state.ts'
import type { Reply } from './reply.ts'
import { jsonOf, type Call, type Handler, type RouteDeps } from './route-kit.ts'

/** One window of one memory list, filtered (see lib/memory/list.ts): the settings page's list of up to 10,000 items. */
function getMemorySearch(deps: RouteDeps, call: Call<'memory.search'>): Reply {
  return jsonOf(listMemory(deps.store, call.query))
}

/** The history query a URL asks, in the form of the `memory.history` command (whose schema checks its ids). */
export function historyCommandOf(query: Call<'memory.history'>['query']): unknown {
  if (query.by !== undefined) return { op: 'memory.history', sessionId: query.by }
  const { layer, owner } = query
  if (layer === 'user') return { op: 'memory.history', target: { user: true } }
  if (layer === 'profile') return { op: 'memory.history', target: { profileId: owner } }
  if (layer === 'conversation') return { op: 'memory.history', target: { sessionId: owner } }
  throw invalid('layer', 'must be "profile", "user" or "conversation" (or give `by`, a conversation)')
}

/** The writes of one memory list, or the writes one conversation caused; newest first, at most 200. */
function getMemoryHistory(deps: RouteDeps, call: Call<'memory.history'>): Reply {
  const cmd = parse(COMMAND_SCHEMAS['memory.history'], historyCommandOf(call.query), '', 'query')
  const { extra } = historyQuery(deps.store.state, cmd)
  return jsonOf({ entries: extra?.entries ?? [] })
}

/** The handlers of the memory lists' routes. */
export const MEMORY_ROUTES = {
  'memory.search': { run: getMemorySearch },
  'memory.history': { run: getMemoryHistory },
} satisfies { [K in 'memory.search' | 'memory.history']: Handler<K> }
