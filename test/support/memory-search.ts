/**
 * The search route (`GET /__ap/memory/search`) for the browser specs' fake hosts: the host's own list function
 * (lib/memory/list.ts) over a spec's in-memory state, without the index (it reads the items with the index's meaning),
 * so the filters, the order and the paging are the real ones. Undefined for any other request.
 */
import { listMemory } from '../../lib/memory/list.ts'
import { MemorySearchQuery, queryOf } from '../../lib/shared/wire-inputs.ts'
import { parse } from '../../lib/validate/core.ts'
import { WIRE } from '../../lib/shared/wire-table.ts'
import { sessionsOf } from '../../lib/state/sessions.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { SessionSetting, State } from '../../lib/state/model.ts'
import { StoreError } from '../../lib/shared/errors.ts'

/** The slice of a spec's host-fake request and answer (ops-host.ts) this reads and makes (dom.tsx's, which the host typecheck omits). */
interface Call {
  method: string
  path: string
}
interface Answer {
  status?: number
  body: unknown
}
/** A spec's data, conversation settings as a plain record (dom.tsx's TestState). */
type TestState = Omit<State, 'sessions'> & { sessions: Record<string, SessionSetting> }

/** True when `call` asks the search route. */
export function isMemorySearch(call: Call): boolean {
  return call.method === 'GET' && call.path.startsWith(`${WIRE['memory.search'].path}?`)
}

/** The answer of the search route over `state`, or undefined when `call` asks another route. */
export function memorySearchAnswer(state: TestState, call: Call): Answer | undefined {
  if (!isMemorySearch(call)) return undefined
  const p = new URL(call.path, 'http://host').searchParams
  const store = {
    state: { ...state, sessions: sessionsOf(Object.entries(state.sessions)) },
    revision: 1,
    searchIndex: () => undefined,
  } as unknown as ProfileStore
  try {
    return {
      body: listMemory(store, parse(MemorySearchQuery, queryOf(p), '', '')),
    }
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    return {
      status: error.code === 'not-found' ? 404 : 400,
      body: { error: { code: error.code, message: error.message } },
    }
  }
}
