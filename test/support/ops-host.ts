/**
 * The one fake of the host half for the browser half's jsdom specs (the settings page and the conversation's), at the
 * `fetch` boundary of lib/client/data/api.ts: answers commands with the store's real operations (commands/dispatch.ts)
 * over an in-memory state, with the same semantics, notices and refusals (field and limit) the real routes give, and
 * the route's own additions (a created profile as its head, a saved one whole, the user layer when a command changed
 * it, avatars as URLs), without disk or HTTP.
 * Answers whole profiles from its state, the turn ledger (and each turn's memory items) from maps the spec fills, the
 * memory list's search route with the host's own list function, the memory history's route with the host's own query,
 * and a draft's preview with its role and rules. A spec can make the next matching request fail (`failNext`).
 */
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { historyQuery } from '../../lib/commands/history.ts'
import { historyCommandOf } from '../../lib/http/routes-memory.ts'
import type { CommandOf } from '../../lib/shared/schema-commands.ts'
import { parseCommand } from '../../lib/validate/command.ts'
import { hasHistory, USER_HISTORY, type Profile, type UsedMemory } from '../../lib/state/model.ts'
import { profileHead } from '../../lib/http/profile-head.ts'
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
  /** Make the next matching request fail with this answer instead. */
  failNext(match: (call: Call) => boolean, answer: Answer): void
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

/** A profile as the routes serve it: an avatar the store holds as data goes out as its URL (lib/http/wire.ts). */
function served(p: Profile): Profile {
  if (!p.avatar.startsWith('data:')) return p
  return { ...p, avatar: `/__ap/avatar/${encodeURIComponent(p.id)}?v=${p.updatedAt}` }
}

/** The state as the routes serve it. */
function servedState(state: TestState): TestState {
  return { ...state, profiles: state.profiles.map(served) }
}

/** A profile in a command's extra fields goes out as its head, as the route sends it. */
function wireExtra(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...extra }
  const p = out.profile as Profile | undefined
  if (p !== undefined && typeof p === 'object' && typeof p.id === 'string')
    out.profile = profileHead(served(p), served(p).avatar)
  return out
}

/** A saved profile whole, as the route answers a `profile.update` with it. */
function savedAnswer(state: TestState, id: string): unknown {
  const path = `/__ap/profile/${encodeURIComponent(id)}`
  return profileAnswer(servedState(state).profiles, { method: 'GET', path, body: undefined }, 1, state.history)!.body
}

/** `POST /__ap/preview`: the draft's role and rules, with a size, so a spec sees what the preview pane shows. */
function previewAnswer(call: Call): Answer {
  const p = call.body!.profile as Partial<Profile>
  const text = [p.role, p.rules].filter((x) => typeof x === 'string' && x !== '').join('\n')
  return { body: { text, chars: text.length, tokens: Math.ceil(text.length / 2) } }
}

/** `GET /__ap/user`: About you's items, with its share of the budget. */
function userAnswer(state: TestState): Answer {
  return {
    body: {
      items: state.user?.items ?? [],
      share: 1000,
      budget: 3000,
      ...(hasHistory(state, { user: true }) ? { history: true } : {}),
    },
  }
}

/** `GET /__ap/turns/<sessionId>` (or one turn's memory items, `?turn=N`) from the maps the spec fills. */
function turnsAnswer(host: Pick<OpsHost, 'turns' | 'turnMemories'>, call: Call): Answer | undefined {
  if (call.method !== 'GET' || !call.path.startsWith('/__ap/turns/')) return undefined
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

/** The fields of a command body this fake reads besides its op's own. */
type CommandBody = { op?: unknown; id?: unknown; sessionId?: unknown; target?: { sessionId?: unknown } }

/** The conversation a command changes the settings of, if any (its reply then carries that conversation). */
function conversationOf(body: CommandBody): string | undefined {
  if (typeof body.sessionId === 'string') return body.sessionId
  return typeof body.target?.sessionId === 'string' ? body.target.sessionId : undefined
}

/** A refused command as the routes answer it: 400 with the error's code, message, field and limit. */
function refusal(error: unknown): Answer {
  const e = error as { code?: string; message: string; field?: string; limit?: number }
  return {
    status: 400,
    body: { error: { code: e.code ?? 'invalid', message: e.message, field: e.field, limit: e.limit } },
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
    failNext: (match, answer) => {
      failures.push({ match, answer })
    },
  }
  const failures: { match: (call: Call) => boolean; answer: Answer }[] = []
  const apply = (cmd: unknown) => {
    const real = { ...host.state, sessions: sessionsOf(Object.entries(host.state.sessions)) }
    const result = applyCommand(real, cmd, { now: 1_700_000_100_000 + seq, newId: (prefix) => `${prefix}${++seq}` })
    host.state = { ...result.state, sessions: result.state.sessions.toJSON() }
    return result
  }
  // The wire form, as lib/http/wire.ts sends it: when each undoable compression ran, not the memory it would restore.
  const wire = () => wireOf(servedState(host.state), undoTimes({ ...host.state, sessions: sessionsOf() }))
  const reply = (extra: Record<string, unknown> = {}): Answer => ({ body: { state: wire(), meta: meta(), ...extra } })
  host.calls = stubFetch((call) => {
    const failing = failures.findIndex((f) => f.match(call))
    if (failing >= 0) return failures.splice(failing, 1)[0]!.answer
    if (call.method === 'GET' && call.path === '/__ap/state') return reply()
    if (call.method === 'GET' && call.path === '/__ap/user') return userAnswer(host.state)
    const whole = profileAnswer(servedState(host.state).profiles, call, 1, host.state.history)
    if (whole !== undefined) return whole
    const found = memorySearchAnswer(host.state, call)
    if (found !== undefined) return found
    const asked = sessionAsked(call)
    if (asked !== undefined) return { body: wireSessionOf(host.state, asked) }
    const history = historyAnswer(host.state, call)
    if (history !== undefined) return history
    const turns = turnsAnswer(host, call)
    if (turns !== undefined) return turns
    if (call.method === 'POST' && call.path === '/__ap/preview') return previewAnswer(call)
    if (call.method === 'POST' && call.path === '/__ap/command') {
      try {
        const before = host.state
        const result = apply(call.body)
        const body = call.body as CommandBody
        const conversation = conversationOf(body)
        const userChanged =
          host.state.user !== before.user || host.state.history?.[USER_HISTORY] !== before.history?.[USER_HISTORY]
        return reply({
          notice: result.notice,
          ...wireExtra(result.extra),
          ...(conversation === undefined ? {} : { session: wireSessionOf(host.state, conversation) }),
          ...(body.op === 'profile.update' ? { saved: savedAnswer(host.state, String(body.id)) } : {}),
          ...(userChanged ? { user: userAnswer(host.state).body } : {}),
        })
      } catch (error) {
        return refusal(error)
      }
    }
    return { status: 404, body: { error: { code: 'not-found', message: `no route ${call.path}` } } }
  })
  return host
}
