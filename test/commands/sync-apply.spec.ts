/**
 * `sync.apply`, the command a sync's pull runs: it applies only what changed, keeps items saved meanwhile, and
 * refuses (changing nothing) a profile that changed since the sync read it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

describe('sync.apply', () => {
  it('puts, removes and orders items of one profile and keeps the rest of the store as it was', async () => {
    ctx = await freshStore()
    const { store } = ctx
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'a' }, { text: 'b' }] })
    const coder = store.state.profiles.find((p) => p.id === 'coder')!
    const [a, b] = coder.memory.items
    const others = store.state.profiles.filter((p) => p.id !== 'coder')
    await store.command({
      op: 'sync.apply',
      profiles: [
        {
          id: 'coder',
          seenAt: coder.updatedAt,
          memory: { put: [{ id: 'mX', text: 'from the other machine', source: 'tool', at: 5 }], remove: [a!.id] },
        },
      ],
    })
    const after = store.state.profiles.find((p) => p.id === 'coder')!
    expect(after.memory.items.map((it) => it.text)).toEqual(['b', 'from the other machine'])
    expect(after.memory.items[0]).toEqual(b)
    expect(store.state.profiles.filter((p) => p.id !== 'coder')).toEqual(others)
  })

  it('refuses a profile that changed since the sync read it, and changes nothing', async () => {
    ctx = await freshStore()
    const { store } = ctx
    const seenAt = store.state.profiles.find((p) => p.id === 'coder')!.updatedAt
    await new Promise((r) => setTimeout(r, 5))
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: 'saved meanwhile' }] })
    await expectRefused(
      store,
      { op: 'sync.apply', profiles: [{ id: 'coder', seenAt, delete: true }] },
      { code: 'conflict' },
    )
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((it) => it.text)).toEqual([
      'saved meanwhile',
    ])
  })
})
