/**
 * The wire table on the real handler and store (lib/shared/wire-table.ts, lib/http/routes.ts): every entry answers at
 * its path and method and no other; a command's body is parsed by its op's schema at the door, before the route
 * resolves an avatar or asks the host's model part about it; a memory history is a `GET`, answered from the state
 * (not through the write queue) and refused naming the field; the page's client calls each by key.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createApiClient } from '../../lib/client/data/api.ts'
import type { ModelChoiceApi } from '../../lib/prompt/model-choice.ts'
import { WIRE, type RouteKey } from '../../lib/shared/wire-table.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import type { HttpClient } from '../support/http.ts'
import { serveWithModels } from '../support/model-routes.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

/** The model checks the host's model part was asked for. */
const checked: string[] = []
const models: ModelChoiceApi = {
  catalog: async () => ({ providers: [], failures: [] }),
  async check(choice) {
    checked.push(choice.model)
  },
  turns: () => ({}),
  status: () => ({
    available: true,
    conversations: 0,
    totals: { profile: 0, user: 0, fallback: 0, synced: 0 },
    degraded: [],
  }),
}

async function serve(): Promise<{ api: HttpClient; store: ProfileStore; base: string }> {
  const { api, store } = await serveWithModels(models, cleanups)
  return { api, store, base: `http://${api.authority}/__ap` }
}

describe('the wire table', () => {
  it('answers each entry at its own method only: the other is refused 405 naming what is allowed', async () => {
    const { api } = await serve()
    for (const key of Object.keys(WIRE) as RouteKey[]) {
      const entry = WIRE[key]
      const path = 'param' in entry ? `${entry.path}x` : entry.path
      // A path that takes GET and POST (import-own) answers both.
      const both = Object.values(WIRE).filter((e) => e.path === entry.path).length > 1
      if (both) continue
      const wrong = entry.method === 'GET' ? await api.post(path, {}) : await api.get(path)
      expect(wrong.status, key).toBe(405)
      expect(wrong.json.error.code, key).toBe('method-not-allowed')
    }
  })

  it('parses a command by its schema at the door: a bad field is refused before the host is asked about its model', async () => {
    const { api, store } = await serve()
    checked.length = 0
    const id = store.state.activeId
    const before = store.state
    const refused = await api.command({
      op: 'profile.update',
      id,
      patch: { model: { provider: 'p', model: 'm' }, role: 7 },
    })
    expect(refused.status).toBe(400)
    expect(refused.json.error).toMatchObject({ code: 'invalid', field: 'patch.role' })
    expect(checked).toEqual([])
    const unknown = await api.command({ op: 'profile.update', id, patch: { avatar: '/__ap/avatar/gone?v=1' }, x: 1 })
    expect(unknown.json.error).toMatchObject({ code: 'invalid', field: 'command.x' })
    expect(store.state).toBe(before)
  })

  it('reads a memory history with a GET, from the state, and refuses a bad query naming the field', async () => {
    const { api, store, base } = await serve()
    const id = store.state.activeId
    await store.command({ op: 'memory.add', target: { profileId: id }, items: [{ text: '用户住在杭州' }] })
    const client = createApiClient(base)
    const entries = await client.history({ layer: 'profile', owner: id })
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ target: { profileId: id } })
    expect(await client.history({ layer: 'user' })).toEqual([])
    const bad = await api.get('/__ap/memory/history?layer=elsewhere')
    expect(bad.status).toBe(400)
    expect(bad.json.error).toMatchObject({ code: 'invalid', field: 'layer' })
    const missing = await api.get('/__ap/memory/history?layer=profile&owner=nobody')
    expect(missing.status).toBe(404)
  })
})
