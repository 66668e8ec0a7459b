// A profile's model in the store: saved, kept across a restart, removed with `model: null`, absent on profiles of a
// database written before the field existed, and refused with the field and limit when malformed.
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseSync } from 'node:sqlite'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function open(): Promise<Awaited<ReturnType<typeof freshStore>>> {
  const s = await freshStore()
  cleanups.push(s.dispose)
  return s
}

const PRO = { provider: 'deepseek-official', model: 'deepseek-v4-pro', reasoningEffort: 'high', temperature: 0.3 }

describe("a profile's model in the store", () => {
  it("is kept across a restart, and `model: null` gives the profile back to the conversation's model", async () => {
    const s = await open()
    const { profile } = (await s.store.command({
      op: 'profile.create',
      profile: { name: '审阅', model: PRO },
    })) as unknown as { profile: { id: string } }
    await s.store.close()
    const again = await s.open()
    expect(again.state.profiles.find((p) => p.id === profile.id)?.model).toEqual(PRO)
    await again.command({ op: 'profile.update', id: profile.id, patch: { model: null } })
    await again.close()
    const third = await s.open()
    const saved = third.state.profiles.find((p) => p.id === profile.id)!
    expect('model' in saved).toBe(false)
  })

  it('opens a database whose profiles were written without the field: they have no model', async () => {
    const s = await open()
    const { profile } = (await s.store.command({
      op: 'profile.create',
      profile: { name: '旧档案', model: PRO },
    })) as unknown as { profile: { id: string } }
    await s.store.close()
    // As an older plugin wrote the row: the same JSON without the key.
    const db = new DatabaseSync(s.store.file)
    const row = db.prepare('SELECT data FROM profiles WHERE id = ?').get(profile.id) as { data: string }
    const { model: _model, ...older } = JSON.parse(row.data) as Record<string, unknown>
    db.prepare('UPDATE profiles SET data = ? WHERE id = ?').run(JSON.stringify(older), profile.id)
    db.close()
    const again = await s.open()
    const read = again.state.profiles.find((p) => p.id === profile.id)!
    expect(read.name).toBe('旧档案')
    expect(read.model).toBeUndefined()
  })

  it('refuses a malformed model with the field and the limit, changing nothing', async () => {
    const { store } = await open()
    const id = store.state.profiles[0]!.id
    await expectRefused(
      store,
      { op: 'profile.update', id, patch: { model: { ...PRO, temperature: 3 } } },
      { code: 'invalid', field: 'patch.model.temperature', limit: 2 },
    )
    await expectRefused(
      store,
      { op: 'profile.update', id, patch: { model: { provider: 'p' } } },
      { code: 'invalid', field: 'patch.model.model' },
    )
    await expectRefused(
      store,
      { op: 'profile.update', id, patch: { model: { provider: 'p', model: 'x'.repeat(129) } } },
      { code: 'invalid', field: 'patch.model.model', limit: 128 },
    )
    await expectRefused(
      store,
      { op: 'profile.update', id, patch: { model: { provider: 'p', model: 'm', top: 1 } } },
      { code: 'invalid' },
    )
  })
})
