/**
 * A stand-in for the host half at the `fetch` boundary, for the browser half's jsdom specs: answers `/__ap/*` the
 * way lib/http/routes.ts does (state + meta on every reply, profiles whole from `/__ap/profile/<id>`, the error shape
 * on refusals) over an in-memory state.
 * Only the ops the settings page sends are implemented; anything else answers 400 so a spec notices.
 */
import type { Profile } from '../../lib/state/model.ts'
import type { Notice } from '../../lib/shared/notices.ts'
import { profileHead } from '../../lib/shared/profile-head.ts'
import { pastedFacts } from '../../lib/learn/paste.ts'
import {
  meta,
  profile,
  profileAnswer,
  sessionAsked,
  stubFetch,
  wireOf,
  wireSessionOf,
  type Answer,
  type Call,
  type TestState,
} from './dom.tsx'

/** The fake's live state and the requests it saw. */
export interface FakeHost {
  state: TestState
  calls: Call[]
  /** Make the next matching request fail with this answer instead. */
  failNext(match: (call: Call) => boolean, answer: Answer): void
}

const refuse = (message: string, field?: string, limit?: number): Answer => ({
  status: 400,
  body: {
    error: {
      code: 'invalid',
      message,
      ...(field === undefined ? {} : { field }),
      ...(limit === undefined ? {} : { limit }),
    },
  },
})

/** Install the fake as `fetch`, starting from `initial`. */
export function fakeHost(initial: TestState): FakeHost {
  let seq = 0
  const failures: { match: (call: Call) => boolean; answer: Answer }[] = []
  const host: FakeHost = {
    state: initial,
    calls: [],
    failNext(match, answer) {
      failures.push({ match, answer })
    },
  }
  const reply = (notice: Notice | undefined, extra: Record<string, unknown> = {}): Answer => ({
    body: {
      state: wireOf(host.state),
      meta: meta({
        counts: {
          profiles: host.state.profiles.length,
          sessions: Object.keys(host.state.sessions).length,
          memories: 0,
        },
      }),
      ...(notice === undefined ? {} : { notice }),
      ...extra,
    },
  })
  const set = (next: Partial<TestState>): void => {
    host.state = { ...host.state, ...next }
  }

  const command = (body: Record<string, unknown>): Answer => {
    const s = host.state
    const byId = (id: unknown): Profile | undefined => s.profiles.find((p) => p.id === id)
    switch (body.op) {
      case 'profile.create': {
        const created = profile({
          id: `new${++seq}`,
          name: '新配置',
          role: '',
          personality: '',
          speakingStyle: '',
          rules: '',
        })
        set({ profiles: [...s.profiles, created], activeId: created.id })
        return reply(
          { key: 'profile.created', params: { name: created.name } },
          { profile: profileHead(created, created.avatar) },
        )
      }
      case 'profile.update': {
        const target = byId(body.id)
        if (target === undefined)
          return { status: 404, body: { error: { code: 'not-found', message: 'no such profile' } } }
        const patch = body.patch as Partial<Profile>
        if (typeof patch.name === 'string' && patch.name.length > 40)
          return refuse('patch.name: over the limit of 40', 'patch.name', 40)
        // Like the routes: a data URL is stored and served back as an avatar URL.
        const avatar =
          patch.avatar === undefined ? target.avatar : patch.avatar === '' ? '' : `/__ap/avatar/${target.id}?v=${++seq}`
        set({
          profiles: s.profiles.map((p) =>
            p.id === target.id ? { ...p, ...patch, avatar, updatedAt: p.updatedAt + 1 } : p,
          ),
        })
        // Like the routes: the saved profile comes back whole, as `GET /__ap/profile/<id>` answers it.
        const saved = { method: 'GET', path: `/__ap/profile/${encodeURIComponent(target.id)}`, body: undefined }
        return reply(
          { key: 'profile.updated', params: { name: host.state.profiles.find((p) => p.id === body.id)!.name } },
          { saved: profileAnswer(host.state.profiles, saved, 1, host.state.history)!.body },
        )
      }
      case 'profile.duplicate': {
        const source = byId(body.id)!
        const copy = { ...source, id: `copy${++seq}`, name: `${source.name} 副本` }
        set({ profiles: [...s.profiles, copy] })
        return reply(
          { key: 'profile.duplicated', params: { name: copy.name } },
          { profile: profileHead(copy, copy.avatar) },
        )
      }
      case 'profile.delete': {
        const unbound = Object.values(s.sessions).filter((x) => x.profileId === body.id).length
        const profiles = s.profiles.filter((p) => p.id !== body.id)
        const sessions = Object.fromEntries(
          Object.entries(s.sessions).map(([k, v]) => [k, v.profileId === body.id ? { ...v, profileId: null } : v]),
        )
        const wasActive = s.activeId === body.id
        set({ profiles, sessions, activeId: wasActive ? profiles[0]!.id : s.activeId })
        return reply({
          key: 'profile.deleted',
          params: { name: byId(body.id)!.name, unbound, uncast: 0, active: wasActive ? profiles[0]!.name : '' },
        })
      }
      case 'profile.activate':
        set({ activeId: String(body.id) })
        return reply({ key: 'profile.activated', params: { name: byId(body.id)!.name } })
      case 'state.import': {
        const payload = body.payload as { profiles?: Profile[] }
        if (!Array.isArray(payload.profiles)) return refuse('payload.profiles: is missing', 'payload.profiles')
        const bad = payload.profiles.findIndex((p) => typeof p.name !== 'string' || p.name.length > 40)
        if (bad >= 0)
          return refuse(`payload.profiles[${bad}].name: over the limit of 40`, `payload.profiles[${bad}].name`, 40)
        const incoming = payload.profiles.map((p) => ({ ...p, id: `imp${++seq}` }))
        set(
          body.mode === 'replace'
            ? { profiles: incoming, activeId: incoming[0]!.id, sessions: {} }
            : { profiles: [...s.profiles, ...incoming] },
        )
        return reply(
          body.mode === 'replace'
            ? { key: 'state.replaced', params: { count: incoming.length, unbound: 0 } }
            : {
                key: 'state.imported',
                params: { count: incoming.length, renamed: 0, replaced: 0, unchanged: 0, conflicts: 0 },
              },
          { imported: incoming.length },
        )
      }
      case 'state.restoreDefaults': {
        const d = profile({ id: 'default', name: '通用助手' })
        set({ profiles: [d], activeId: d.id, sessions: {} })
        return reply({ key: 'state.restored' })
      }
      case 'memory.paste': {
        // The lines the store would take (lib/learn/paste.ts), all new: the fake keeps no memory lists.
        const added = pastedFacts(String(body.text)).map((text, i) => ({ id: `m${i}`, text, source: 'import' }))
        return reply({ key: 'memory.added', params: { count: added.length } }, { added, duplicates: [] })
      }
      case 'sessions.clearAll':
        set({ sessions: {} })
        return reply({ key: 'sessions.clearedAll', params: { count: Object.keys(s.sessions).length } })
      default:
        return refuse(`unknown op ${String(body.op)}`, 'op')
    }
  }

  host.calls = stubFetch((call) => {
    const i = failures.findIndex((f) => f.match(call))
    if (i >= 0) return failures.splice(i, 1)[0]!.answer
    if (call.method === 'GET' && call.path === '/__ap/state') return reply(undefined)
    const whole = profileAnswer(host.state.profiles, call, 1, host.state.history)
    if (whole !== undefined) return whole
    const asked = sessionAsked(call)
    if (asked !== undefined) return { body: wireSessionOf(host.state, asked) }
    if (call.method === 'POST' && call.path === '/__ap/preview') {
      const p = call.body!.profile as Partial<Profile>
      const text = [p.role, p.rules].filter((x) => typeof x === 'string' && x !== '').join('\n')
      return { body: { text, chars: text.length, tokens: Math.ceil(text.length / 2) } }
    }
    if (call.method === 'POST' && call.path === '/__ap/command') return command(call.body!)
    return { status: 404, body: { error: { code: 'not-found', message: `no route ${call.path}` } } }
  })
  return host
}
