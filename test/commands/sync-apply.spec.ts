/**
 * `sync.apply`, the command a sync's pull runs: it applies only what changed, keeps items saved meanwhile, and
 * refuses (changing nothing) a profile that changed since the sync read it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import { sameEnds } from '../../lib/state/list-ends.ts'
import type { MemoryItem, MemoryWrite, State } from '../../lib/state/model.ts'
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

  it("sets a team profile's summary alone, and refuses a summary alone for the user's own profile", async () => {
    ctx = await freshStore()
    const { store } = ctx
    const own = store.state.profiles[0]!
    const team = { ...own, id: 't-0123456789-0123456789ab', name: '团队', memory: { summary: '', items: [] } }
    await store.command({ op: 'library.apply', library: { id: '0123456789', name: '组' }, profiles: [team] })
    const seenAt = store.state.profiles.find((p) => p.id === team.id)!.updatedAt
    await store.command({ op: 'sync.apply', profiles: [{ id: team.id, seenAt, summary: '另一台机器的摘要' }] })
    const after = store.state.profiles.find((p) => p.id === team.id)!
    expect(after.memory.summary).toBe('另一台机器的摘要')
    expect(after.library?.name).toBe('组')
    await expectRefused(
      store,
      { op: 'sync.apply', profiles: [{ id: own.id, seenAt: own.updatedAt, summary: 'x' }] },
      { code: 'invalid', field: 'profiles[0].summary' },
    )
    expect(store.state.profiles.find((p) => p.id === own.id)!.memory.summary).toBe(own.memory.summary)
  })

  it('appends pulled facts without walking the list: one fact into 9,990 reads no other item after the first pull', () => {
    let reads = 0
    const items: MemoryItem[] = Array.from({ length: 9_990 }, (_, i) => {
      const it = { text: `第 ${i} 条`, source: 'user' as const, at: 1_700_000_000_000 + i }
      return Object.defineProperty(it, 'id', { enumerable: true, get: () => (reads++, `m${i}`) }) as MemoryItem
    })
    const factory = factoryState(1)
    const at = factory.profiles.findIndex((p) => p.id === 'coder')
    let state: State = {
      ...factory,
      profiles: factory.profiles.map((p, i) => (i === at ? { ...p, memory: { summary: '', items } } : p)),
    }
    let n = 0
    const pull = (text: string) => {
      const before = state.profiles[at]!
      state = applyCommand(
        state,
        {
          op: 'sync.apply',
          profiles: [
            {
              id: 'coder',
              seenAt: before.updatedAt,
              memory: { put: [{ id: `p${++n}`, text, source: 'tool', at: 5 }] },
            },
          ],
        },
        { now: 100 + n, newId: (x) => `${x}${n}` },
      ).state
      return { before: before.memory.items, after: state.profiles[at]!.memory.items }
    }
    pull('第一次拉取')
    reads = 0
    const { before, after } = pull('第二次拉取')
    expect(after.map((it) => it.text).slice(-2)).toEqual(['第一次拉取', '第二次拉取'])
    expect(after.slice(0, -1)).toEqual(before)
    expect(sameEnds(before, after)).toEqual({ head: 9_991, tail: 0 })
    // Neither the pull nor the store's comparison of the two lists looked at the 9,990 items again.
    expect(reads).toBe(0)
  })

  it("takes a pull's history as the entries it adds after the oldest it drops, keeping the store's own entries", () => {
    const entry = (n: number): MemoryWrite => ({
      id: `h${n}`,
      at: 1_700_000_000_000 + n,
      who: 'tool',
      added: [{ id: `m${n}`, text: `第 ${n} 条`, source: 'tool', at: 1_700_000_000_000 + n }],
      removed: [],
      edited: [],
    })
    const kept = Array.from({ length: 30 }, (_, i) => entry(i))
    const factory = factoryState(1)
    const state: State = { ...factory, history: { coder: kept } }
    const seenAt = state.profiles.find((p) => p.id === 'coder')!.updatedAt
    const pulled = (history: { drop: number; add: unknown[] }) =>
      applyCommand(
        state,
        { op: 'sync.apply', profiles: [{ id: 'coder', seenAt, memory: { history } }] },
        { now: 100, newId: (x) => `${x}1` },
      ).state.history!.coder!
    const after = pulled({ drop: 2, add: [entry(30)] })
    expect(after.map((w) => w.id)).toEqual([...kept.slice(2), entry(30)].map((w) => w.id))
    // The entries the pull did not bring are the store's own objects, not read and checked again.
    expect(after.slice(0, -1).every((w, i) => w === kept[i + 2])).toBe(true)
    expect(after.at(-1)).toEqual(entry(30))
    expect(() => pulled({ drop: 31, add: [] })).toThrow(/drops 31 entries of a history of 30/)
  })
})
