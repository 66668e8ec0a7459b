// The routes of a profile's model (lib/http/routes.ts): a save carrying a model is checked with the host's model part
// before the store sees it (refused naming the field, nothing changed), a host without that part refuses rather than
// saves unchecked, `GET /__ap/models` answers the host's lists, and the turn ledger reply carries each turn's model.
import { afterEach, describe, expect, it } from 'vitest'
import type { ModelChoiceApi } from '../../lib/prompt/model-choice.ts'
import type { TurnModel } from '../../lib/shared/models.ts'
import { invalid } from '../../lib/validate/core.ts'
import { serveWithModels } from '../support/model-routes.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

/** The host's model part as the routes see it: offers deepseek-official/flash only, and says which model answered. */
const part: ModelChoiceApi = {
  catalog: async () => ({
    providers: [
      { id: 'deepseek-official', name: 'DeepSeek', models: [{ id: 'deepseek-v4-flash', name: 'Flash', efforts: [] }] },
    ],
    failures: [],
  }),
  async check(choice, field) {
    if (choice.model !== 'deepseek-v4-flash')
      throw invalid(field, `names a model the host does not offer: ${choice.model}`)
  },
  turns: (sessionId): Record<number, TurnModel> =>
    sessionId === 's1' ? { 1: { provider: 'deepseek-official', model: 'deepseek-v4-flash', source: 'profile' } } : {},
  status: () => ({
    available: true,
    conversations: 0,
    totals: { profile: 0, user: 0, fallback: 0, synced: 0 },
    degraded: [],
  }),
}

const serve = (models: ModelChoiceApi | undefined) => serveWithModels(models, cleanups)

describe("the routes of a profile's model", () => {
  it('saves a model the host offers, and refuses one it does not, naming the field and changing nothing', async () => {
    const { api, store } = await serve(part)
    const id = store.state.activeId
    const ok = await api.command({
      op: 'profile.update',
      id,
      patch: { model: { provider: 'deepseek-official', model: 'deepseek-v4-flash' } },
    })
    expect(ok.status).toBe(200)
    expect(ok.json.state.profiles.find((p: { id: string }) => p.id === id).model).toBe('deepseek-v4-flash')
    const before = store.state
    const refused = await api.command({
      op: 'profile.update',
      id,
      patch: { model: { provider: 'deepseek-official', model: 'deepseek-v9' } },
    })
    expect(refused.status).toBe(400)
    expect(refused.json.error).toMatchObject({ code: 'invalid', field: 'patch.model' })
    expect(store.state).toBe(before)
    const created = await api.command({
      op: 'profile.create',
      profile: { name: '新', model: { provider: 'x', model: 'y' } },
    })
    expect(created.json.error).toMatchObject({ field: 'profile.model' })
    // Going back to the conversation's model needs no check.
    expect((await api.command({ op: 'profile.update', id, patch: { model: null } })).status).toBe(200)
    expect(store.state.profiles.find((p) => p.id === id)!.model).toBeUndefined()
  })

  it('refuses a model it cannot check on a host without the model part, rather than saving it unchecked', async () => {
    const { api, store } = await serve(undefined)
    const r = await api.command({
      op: 'profile.update',
      id: store.state.activeId,
      patch: { model: { provider: 'p', model: 'm' } },
    })
    expect(r.status).toBe(400)
    expect(r.json.error).toMatchObject({ code: 'invalid', field: 'patch.model', rule: 'model.unchecked' })
    expect(r.json.error.message).toContain('cannot be checked')
    expect((await api.get('/__ap/models')).json).toEqual({ providers: [], failures: [{ missing: 'llm' }] })
  })

  it("answers the host's model lists and each turn's model in the ledger", async () => {
    const { api } = await serve(part)
    expect((await api.get('/__ap/models')).json.providers[0].models[0].id).toBe('deepseek-v4-flash')
    expect((await api.get('/__ap/turns/s1')).json.models).toEqual({
      1: { provider: 'deepseek-official', model: 'deepseek-v4-flash', source: 'profile' },
    })
  })
})
