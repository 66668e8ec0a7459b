/**
 * The host half at the `fetch` boundary of lib/client/api.ts for the conversation specs, answering commands with the
 * store's real operations (commands/dispatch.ts) over an in-memory state: the same semantics, notices and refusals (field and
 * limit) the real routes give, without disk or HTTP. Answers the turn ledger from a map the spec fills.
 */
import { applyCommand } from '../../lib/commands/dispatch.ts'
import type { State } from '../../lib/shared/model.ts'
import { undoTimes } from '../../lib/http/wire.ts'
import { meta, stubFetch, type Answer, type Call } from './dom.tsx'
import type { WireState } from '../../lib/shared/contract.ts'

/** The fake host's live data and the requests it saw. */
export interface OpsHost {
  state: State
  /** Session id → turn → profile id. */
  turns: Record<string, Record<number, string>>
  calls: Call[]
  /** The commands it received, in order. */
  commands(): Record<string, unknown>[]
}

/** Install the fake as `fetch`, starting from `initial`. */
export function opsHost(initial: State): OpsHost {
  let seq = 0
  const host: OpsHost = {
    state: initial,
    turns: {},
    calls: [],
    commands: () => host.calls.filter((c) => c.path === '/__ap/command').map((c) => c.body!),
  }
  // The wire form, as lib/http/wire.ts sends it: when each undoable compression ran, not the memory it would restore,
  // and no history (`memory.history` reads it).
  const wire = (): WireState => {
    const { memoryUndo: _undo, history: _history, ...rest } = host.state
    return { ...rest, undo: undoTimes(host.state) }
  }
  const reply = (extra: Record<string, unknown> = {}): Answer => ({ body: { state: wire(), meta: meta(), ...extra } })
  host.calls = stubFetch((call) => {
    if (call.method === 'GET' && call.path === '/__ap/state') return reply()
    if (call.method === 'GET' && call.path.startsWith('/__ap/turns/')) {
      return { body: { turns: host.turns[decodeURIComponent(call.path.slice('/__ap/turns/'.length))] ?? {} } }
    }
    if (call.method === 'POST' && call.path === '/__ap/command') {
      try {
        const result = applyCommand(host.state, call.body, { now: 1_700_000_100_000 + seq, newId: (prefix) => `${prefix}${++seq}` })
        host.state = result.state
        return reply({ notice: result.notice, ...result.extra })
      } catch (error) {
        const e = error as { code?: string; message: string; field?: string; limit?: number }
        return { status: 400, body: { error: { code: e.code ?? 'invalid', message: e.message, field: e.field, limit: e.limit } } }
      }
    }
    return { status: 404, body: { error: { code: 'not-found', message: `no route ${call.path}` } } }
  })
  return host
}
