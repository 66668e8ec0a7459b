/**
 * The host half at the `fetch` boundary of lib/client/data/api.ts for the conversation specs, answering commands with the
 * store's real operations (commands/dispatch.ts) over an in-memory state: the same semantics, notices and refusals (field and
 * limit) the real routes give, without disk or HTTP. Answers whole profiles from its state, and the turn ledger (and
 * each turn's memory items) from maps the spec fills, the memory list's search route with the host's own list
 * function, and the memory history's route with the host's own query.
 */
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { historyQuery } from '../../lib/commands/history.ts'
import { historyCommandOf } from '../../lib/http/routes-memory.ts'
import type { CommandOf } from '../../lib/shared/schema-commands.ts'
import { parseCommand } from '../../lib/validate/command.ts'
import { hasHistory, type UsedMemory } from '../../lib/state/model.ts'
import type { Command } from '../../lib/shared/command-inputs.ts'
import { sessionsOf } from '../../lib/state/sessions.ts'
import { undoTimes } from '../../lib/http/wire.ts'
import { memorySearchAnswer } from './memory-search.ts'
import {
  meta,
  profileAnswer,
  sessionAsked,
  stubFetch,
  wireOf,
  wireSessionOf,
  type Answer,
  type Call,
  type TestState,
} from './dom.tsx'

/** The fake host's live data and the requests it saw. */
export interface OpsHost {
  state: TestState
  /** Session id → turn → profile id. */
  turns: Record<string, Record<number, string>>
  /** Session id → turn → the memory items that turn carried. */
  turnMemories: Record<string, Record<number, UsedMemory[]>>
  calls: Call[]
  /** The commands it received, in order. */
  commands(): Record<string, unknown>[]
  /** The memory histories it was asked for (`GET /__ap/memory/history?…`), as paths, in order. */
  histories(): string[]
  /** Apply a command the host half sends itself (a background job's), as the store would; no page hears of it. */
  hostCommand(cmd: Command): void
}

/** `GET /__ap/memory/history?…` as the route answers it, with the host's own query; undefined for another call. */
function historyAnswer(state: TestState, call: Call): Answer | undefined {
  if (call.method !== 'GET' || !call.path.startsWith('/__ap/memory/history?')) return undefined
  const query = Object.fromEntries(new URL(call.path, 'http://host').searchParams)
  try {
    const cmd = parseCommand(historyCommandOf(query)) as CommandOf<'memory.history'>
    const real = { ...state, sessions: sessionsOf(Object.entries(state.sessions)) }
    return { body: { entries: historyQuery(real, cmd).extra?.entries ?? [] } }
  } catch (error) {
    const e = error as { code?: string; message: string; field?: string }
    return { status: 400, body: { error: { code: e.code ?? 'invalid', message: e.message, field: e.field } } }
  }
}

/** Install the fake as `fetch`, starting from `initial`. */
export function opsHost(initial: TestState): OpsHost {
  let seq = 0
  const host: OpsHost = {
    state: initial,
    turns: {},
    turnMemories: {},
    calls: [],
    commands: () => host.calls.filter((c) => c.path === '/__ap/command').map((c) => c.body!),
    histories: () => host.calls.filter((c) => c.path.startsWith('/__ap/memory/history?')).map((c) => c.path),
    hostCommand: (cmd) => {
      apply(cmd)
    },
  }
  const apply = (cmd: unknown) => {
    const real = { ...host.state, sessions: sessionsOf(Object.entries(host.state.sessions)) }
    const result = applyCommand(real, cmd, { now: 1_700_000_100_000 + seq, newId: (prefix) => `${prefix}${++seq}` })
    host.state = { ...result.state, sessions: result.state.sessions.toJSON() }
    return result
  }
  // The wire form, as lib/http/wire.ts sends it: when each undoable compression ran, not the memory it would restore.
  const wire = () => wireOf(host.state, undoTimes({ ...host.state, sessions: sessionsOf() }))
  const reply = (extra: Record<string, unknown> = {}): Answer => ({ body: { state: wire(), meta: meta(), ...extra } })
  host.calls = stubFetch((call) => {
    if (call.method === 'GET' && call.path === '/__ap/state') return reply()
    if (call.method === 'GET' && call.path === '/__ap/user')
      return {
        body: {
          items: host.state.user?.items ?? [],
          share: 1000,
          budget: 3000,
          ...(hasHistory(host.state, { user: true }) ? { history: true } : {}),
        },
      }
    const whole = profileAnswer(host.state.profiles, call, 1, host.state.history)
    if (whole !== undefined) return whole
    const found = memorySearchAnswer(host.state, call)
    if (found !== undefined) return found
    const asked = sessionAsked(call)
    if (asked !== undefined) return { body: wireSessionOf(host.state, asked) }
    const history = historyAnswer(host.state, call)
    if (history !== undefined) return history
    if (call.method === 'GET' && call.path.startsWith('/__ap/turns/')) {
      const url = new URL(call.path, 'http://host')
      const sid = decodeURIComponent(url.pathname.slice('/__ap/turns/'.length))
      const used = host.turnMemories[sid] ?? {}
      const turn = url.searchParams.get('turn')
      if (turn !== null) return { body: { turn: Number(turn), memories: used[Number(turn)] ?? null } }
      return {
        body: {
          turns: host.turns[sid] ?? {},
          memories: Object.fromEntries(Object.entries(used).map(([n, list]) => [n, list.length])),
        },
      }
    }
    if (call.method === 'POST' && call.path === '/__ap/command') {
      try {
        const result = apply(call.body)
        const body = call.body as { sessionId?: unknown; target?: { sessionId?: unknown } }
        const conversation =
          typeof body.sessionId === 'string'
            ? body.sessionId
            : typeof body.target?.sessionId === 'string'
              ? body.target.sessionId
              : undefined
        return reply({
          notice: result.notice,
          ...result.extra,
          ...(conversation === undefined ? {} : { session: wireSessionOf(host.state, conversation) }),
        })
      } catch (error) {
        const e = error as { code?: string; message: string; field?: string; limit?: number }
        return {
          status: 400,
          body: { error: { code: e.code ?? 'invalid', message: e.message, field: e.field, limit: e.limit } },
        }
      }
    }
    return { status: 404, body: { error: { code: 'not-found', message: `no route ${call.path}` } } }
  })
  return host
}
