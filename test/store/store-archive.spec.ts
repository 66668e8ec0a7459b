/**
 * The core in memory, the archive on disk: a store opens without reading any memory item or history entry into its
 * state, answers what heads and counts need from the rows, reads one profile's items when a reader looks at them, and
 * gives every command and read the same result as a state holding every item (the state before this change).
 */
import { DatabaseSync, StatementSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { countsOf, type MemoryItem, type State } from '../../lib/state/model.ts'
import { isInMemory, lastIdOf } from '../../lib/state/lazy-list.ts'
import { profileHead } from '../../lib/http/profile-head.ts'
import { applyCommand } from '../../lib/commands/dispatch.ts'
import { exportEnvelope } from '../../lib/commands/transfer.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { renderParts } from '../../lib/prompt/render.ts'
import { scopeLists, searchLists } from '../../lib/memory/search.ts'
import { recallQuery } from '../../lib/memory/recall.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { longItem } from '../support/memory-items.ts'
import { fcParams, genRng, type Rng } from '../support/fuzz.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0)) await d()
})

/** Rows of memory items and history entries the statements of this process return while `run` goes on. */
function archiveRowsDuring<T>(run: () => T): { value: T; rows: number; iterated: number } {
  let rows = 0
  let iterated = 0
  // A row read is one whose `data` (the item or entry itself) comes back; a count of rows reads none.
  const reads = (s: StatementSync) => /FROM memory_(items|history)\b/.test(s.sourceSQL)
  const hasData = (row: unknown) => typeof row === 'object' && row !== null && 'data' in row
  type Read = (this: StatementSync, ...args: unknown[]) => unknown
  const proto = StatementSync.prototype as unknown as Record<'all' | 'get' | 'iterate', Read>
  const { all, get, iterate } = proto
  const spy = (name: 'all' | 'get' | 'iterate', fn: Read) => vi.spyOn(proto, name).mockImplementation(fn as never)
  spy('all', function (...a) {
    const out = all.apply(this, a) as unknown[]
    if (reads(this)) rows += out.filter(hasData).length
    return out
  })
  spy('get', function (...a) {
    const out = get.apply(this, a)
    if (reads(this) && hasData(out)) rows++
    return out
  })
  spy('iterate', function (...a) {
    if (reads(this)) iterated++
    return iterate.apply(this, a)
  })
  try {
    return { value: run(), rows, iterated }
  } finally {
    vi.restoreAllMocks()
  }
}

const PROFILES = 10
const PER_PROFILE = 10_000

/** The i-th item of profile p (every 500th pinned, a third archived; every 7th a suggestion, see below). */
const itemOf = longItem

describe('a store of 100,000 memory items', () => {
  it('opens with only the core in memory: no item or history row read; heads and counts from the rows; one profile read when looked at', async () => {
    const t = await freshStore()
    disposers.push(t.dispose)
    const ids: string[] = []
    for (let p = 0; p < PROFILES; p++) {
      const had = new Set(t.store.state.profiles.map((x) => x.id))
      await t.store.command({ op: 'profile.create', profile: { name: `档案 ${p}` } })
      ids.push(t.store.state.profiles.find((x) => !had.has(x.id))!.id)
      const items = Array.from({ length: PER_PROFILE }, (_, i) => itemOf(p, i))
      await t.store.command({ op: 'profile.update', id: ids[p]!, patch: { memory: { summary: `摘要 ${p}`, items } } })
    }
    await t.store.close()
    // Suggestions awaiting approval come from background extraction, not from an edit: marked in the rows directly.
    const db = new DatabaseSync(t.file.replace(/\.json$/, '.sqlite'))
    db.exec(
      `UPDATE memory_items SET data = json_set(data, '$.pending', json('true')) WHERE id GLOB 'm*-*' AND CAST(substr(id, instr(id, '-') + 1) AS INTEGER) % 7 = 3 AND instr(data, '"archived":true') = 0`,
    )
    db.close()
    const suggestion = (p: number, i: number): MemoryItem => {
      const it = itemOf(p, i)
      return i % 7 === 3 && it.archived !== true ? { ...it, pending: true } : it
    }

    let store: ProfileStore | undefined
    const opened = archiveRowsDuring(() => openStore({ file: t.file }))
    store = await opened.value
    disposers.push(() => store!.close())
    const state = store.state
    expect(opened.rows).toBe(0)
    expect(opened.iterated).toBe(0)
    const ours = state.profiles.filter((p) => ids.includes(p.id))
    expect(ours.every((p) => !isInMemory(p.memory.items))).toBe(true)
    expect(Object.values(state.history ?? {}).some((list) => isInMemory(list))).toBe(false)
    // What a state reply and Diagnostics carry is answered from the rows, still without reading an item.
    const told = archiveRowsDuring(() => ({
      counts: countsOf(state).memories,
      pending: ours.map((p) => profileHead(p, '').pending ?? 0),
    }))
    expect(told.rows).toBe(0)
    const others = state.profiles.filter((p) => !ids.includes(p.id)).reduce((n, p) => n + p.memory.items.length, 0)
    expect(told.value.counts).toBe(PROFILES * PER_PROFILE + others)
    const pendingEach = Array.from({ length: PER_PROFILE }, (_, i) => suggestion(0, i)).filter(
      (it) => it.pending,
    ).length
    expect(told.value.pending).toEqual(ours.map(() => pendingEach))
    expect(ours.every((p) => !isInMemory(p.memory.items))).toBe(true)
    // A reader of one profile's memory reads that profile's rows, and only once.
    const read = archiveRowsDuring(() => ours[3]!.memory.items.filter((it) => it.pinned === true).map((it) => it.id))
    expect(read.rows).toBe(PER_PROFILE)
    expect(read.value).toEqual(Array.from({ length: PER_PROFILE / 500 }, (_, k) => `m3-${k * 500}`))
    expect(archiveRowsDuring(() => ours[3]!.memory.items.length).rows).toBe(0)
    expect(ours.filter((p) => isInMemory(p.memory.items)).map((p) => p.id)).toEqual([ids[3]])
    expect(ours[3]!.memory.items).toEqual(Array.from({ length: PER_PROFILE }, (_, i) => suggestion(3, i)))
    expect(Object.isFrozen(ours[3]!.memory.items[0])).toBe(true)
  }, 300_000)
})

const WORDS = ['咖啡', '猫', 'Rust', '搬家', '跑步', '项目 A', 'go to', '杭州']

/** A state holding every list in memory as plain arrays: the state as the store held it before lists stayed on disk. */
function eager(state: State): State {
  const history = state.history
  return {
    ...state,
    profiles: state.profiles.map((p) => ({ ...p, memory: { ...p.memory, items: [...p.memory.items] } })),
    ...(history === undefined
      ? {}
      : { history: Object.fromEntries(Object.entries(history).map(([k, v]) => [k, [...v]])) }),
  }
}

/** What a reader can tell of a state, as JSON (the conversation settings are a map of their own, compared apart). */
function seen(state: State): unknown {
  const { sessions, ...rest } = state
  return JSON.parse(JSON.stringify({ ...rest, sessions: [...sessions] }))
}

/** One random command of any kind that reads or writes memory, on one of `owners`. */
function randomCommand(r: Rng, state: State, owners: readonly string[]): Record<string, unknown> {
  if (owners.length === 0) return { op: 'memory.history', target: { user: true } }
  const owner = r.pick(owners)
  const items = state.profiles.find((p) => p.id === owner)!.memory.items
  const any = () => items[r.int(items.length)]!
  const target = r.chance(0.1) ? { user: true } : { profileId: owner }
  const text = () => (r.chance(0.2) && items.length > 0 ? any().text : `${r.pick(WORDS)} ${r.int(50)}`)
  const kind = items.length === 0 ? r.int(2) : r.int(9)
  if (kind === 0)
    return { op: 'memory.add', target, items: [{ text: text(), source: r.pick(['tool', 'auto', 'user']) }] }
  if (kind === 1) return { op: 'memory.history', target }
  if (kind === 2) return { op: 'memory.update', target: { profileId: owner }, itemId: any().id, text: text() }
  if (kind === 3) return { op: 'memory.remove', target: { profileId: owner }, itemId: any().id }
  if (kind === 4) return { op: 'memory.clear', target }
  if (kind === 5) return { op: 'profile.update', id: owner, patch: { name: `名字 ${r.int(9)}` } }
  if (kind === 6) return { op: 'profile.duplicate', id: owner }
  if (kind === 7) return { op: 'memory.approve', target: { profileId: owner }, itemId: any().id }
  return { op: 'profile.delete', id: owner }
}

/** `cmd` applied to `state` with the same ids and clock each time: its state and reply as JSON, or its refusal. */
function outcome(state: State, cmd: unknown): unknown {
  let n = 0
  try {
    const out = applyCommand(state, cmd, { now: 1_800_000_000_000, newId: (p) => `${p}-${++n}` })
    return { state: seen(out.state), reply: JSON.parse(JSON.stringify([out.notice, out.extra ?? {}, out.changed])) }
  } catch (e) {
    return `refused ${(e as Error).message}`
  }
}

describe('memory read from disk when looked at', () => {
  it('gives every command, the export and the state the same result as a state holding every item, over random histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const r = genRng(g)
        const t = await freshStore()
        try {
          const owners = t.store.state.profiles.slice(0, 3).map((p) => p.id)
          for (const [k, owner] of owners.entries()) {
            const items = Array.from({ length: r.int(40) }, (_, i) => ({
              id: `s${k}-${i}`,
              text: `${r.pick(WORDS)} ${k}-${i}`,
              source: 'import' as const,
              at: 1_700_000_000_000 + i,
              ...(r.chance(0.1) ? { pinned: true as const } : {}),
              ...(r.chance(0.1) ? { pending: true as const } : {}),
              ...(r.chance(0.2) ? { archived: true as const } : {}),
            }))
            await t.store.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items } } })
          }
          for (let step = 0; step < 10; step++) {
            const cmd = randomCommand(
              r,
              t.store.state,
              owners.filter((o) => t.store.state.profiles.some((p) => p.id === o)),
            )
            await t.store.command(cmd as never).catch(() => undefined)
          }
          const written = t.store.state
          const lazy = await t.open()
          const state = lazy.state
          // Nothing was read yet, and what it reads is what the writer held.
          expect(state.profiles.some((p) => isInMemory(p.memory.items))).toBe(false)
          const whole = eager(state)
          expect(seen(state)).toEqual(seen(written))
          expect(JSON.stringify(exportEnvelope(state, undefined, 1, { user: true }))).toBe(
            JSON.stringify(exportEnvelope(whole, undefined, 1, { user: true })),
          )
          for (let k = 0; k < 12; k++) {
            const fresh = await openStore({ file: t.file })
            try {
              const cmd = randomCommand(
                r,
                whole,
                owners.filter((o) => whole.profiles.some((p) => p.id === o)),
              )
              expect(outcome(fresh.state, cmd)).toEqual(outcome(whole, cmd))
            } finally {
              await fresh.close()
            }
          }
        } finally {
          await t.dispose()
        }
      }),
      fcParams(12, { timeLimitMs: 60_000 }),
    )
  }, 120_000)
})

/** A store opened again on a profile of `n` items (see itemOf), none read yet: the profile's id and its items. */
/** A store whose first profile holds `n` items of {@link itemOf}, the i-th saved at `at(i)` when given. */
async function oneLongProfile(n: number, summary = '', at?: (i: number) => number) {
  const t = await freshStore()
  disposers.push(t.dispose)
  const id = t.store.state.profiles[0]!.id
  const items = Array.from({ length: n }, (_, i) => ({ ...itemOf(0, i), ...(at === undefined ? {} : { at: at(i) }) }))
  await t.store.command({ op: 'profile.update', id, patch: { memory: { summary, items } } })
  return { t, id, items, reopen: () => t.open() }
}

/**
 * The first render of the reopened profile `id` reads no more rows than its pinned items and the newest a budget of
 * 3,000 can take, leaves the list on disk, and renders what the same profile holding every item renders.
 */
async function expectCoreRender(long: Awaited<ReturnType<typeof oneLongProfile>>): Promise<void> {
  const store = await long.reopen()
  const profile = store.state.profiles.find((p) => p.id === long.id)!
  const options = { memoryBudget: 3000, recall: true }
  const render = archiveRowsDuring(() => renderParts(profile, undefined, options))
  const pinned = long.items.filter((it) => it.pinned === true && it.archived !== true).length
  expect(render.rows).toBeLessThanOrEqual(pinned + Math.floor(3000 / 4) + 1)
  expect(isInMemory(profile.memory.items)).toBe(false)
  const whole = { ...profile, memory: { ...profile.memory, items: long.items } }
  expect(render.value).toEqual(renderParts(whole, undefined, options))
}

describe("a turn's render of memory still on disk", () => {
  it('reads only the core of a profile of 10,000 items (pinned and the newest a budget can take), and renders the same', async () => {
    await expectCoreRender(await oneLongProfile(PER_PROFILE, '摘要'))
  }, 120_000)

  it('reads only the core when an import mixed the order of old items the budget never reaches', async () => {
    // The older half came from an export in reverse order; everything saved since is in order and newer.
    await expectCoreRender(
      await oneLongProfile(PER_PROFILE, '', (i) =>
        i < PER_PROFILE / 2 ? 1_600_000_000_000 - i : 1_700_000_000_000 + i,
      ),
    )
  }, 120_000)

  it('renders what a state holding every item renders, over random lists and budgets', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const r = genRng(g)
        const t = await freshStore()
        try {
          const id = t.store.state.profiles[0]!.id
          const shuffled = r.chance(0.2)
          const items = Array.from({ length: r.int(120) }, (_, i) => ({
            id: `r${i}`,
            text: `${r.pick(WORDS)} ${i}`,
            source: 'import' as const,
            at: 1_700_000_000_000 + (shuffled ? r.int(50) : i),
            ...(r.chance(0.1) ? { pinned: true as const } : {}),
            ...(r.chance(0.1) ? { pending: true as const } : {}),
            ...(r.chance(0.2) ? { archived: true as const } : {}),
          }))
          await t.store.command({ op: 'profile.update', id, patch: { memory: { summary: '', items } } })
          const options = { memoryBudget: 200 + r.int(800), recall: r.chance(0.5) }
          const store = await t.open()
          const lazy = store.state.profiles.find((p) => p.id === id)!
          const whole = eager(store.state).profiles.find((p) => p.id === id)!
          expect(renderParts(lazy, undefined, options)).toEqual(renderParts(whole, undefined, options))
        } finally {
          await t.dispose()
        }
      }),
      fcParams(20, { timeLimitMs: 60_000 }),
    )
  }, 120_000)
})

describe("a turn's look at memory history still on disk", () => {
  it('tells the newest entry of each list without reading an entry (one may hold 10,000 items)', async () => {
    const { t, id } = await oneLongProfile(PER_PROFILE - 1)
    await t.store.command({
      op: 'memory.add',
      target: { profileId: id },
      items: [{ text: '最新的一条', source: 'user' }],
    })
    const store = await t.open()
    const history = store.state.history!
    const told = archiveRowsDuring(() => Object.keys(history).map((key) => [key, lastIdOf(history[key])]))
    expect(told.rows).toBe(0)
    expect(Object.values(history).some((list) => isInMemory(list))).toBe(false)
    expect(told.value).toEqual(Object.entries(history).map(([key, list]) => [key, list.at(-1)!.id]))
    expect(told.value.length).toBeGreaterThan(0)
  }, 120_000)
})

describe("a turn's recall of memory still on disk", () => {
  it('reads the rows of the items the index found, not the profile whole, and finds what a state holding every item finds', async () => {
    const { id, reopen } = await oneLongProfile(PER_PROFILE)
    const store = await reopen()
    const state = store.state
    const profile = state.profiles.find((p) => p.id === id)!
    const query = recallQuery('topic42 和 topic7 的事实', [], 1_800_000_000_000).weights
    const found = archiveRowsDuring(() => searchLists(store, scopeLists(state, profile, 's1', undefined), query, 40, 1))
    expect(found.value.length).toBeGreaterThan(0)
    expect(found.rows).toBeLessThanOrEqual(100)
    expect(isInMemory(profile.memory.items)).toBe(false)
    const whole = eager(state)
    const wholeProfile = whole.profiles.find((p) => p.id === id)!
    const expected = searchLists(store, scopeLists(whole, wholeProfile, 's1', undefined), query, 40, 1)
    expect(found.value).toEqual(expected)
  }, 120_000)

  it('reads the rows of only the items it hands over, of the many the index found, and the same items', async () => {
    const { id, reopen } = await oneLongProfile(PER_PROFILE)
    const store = await reopen()
    const state = store.state
    const profile = state.profiles.find((p) => p.id === id)!
    const questions = ['fact about topic42', 'topic7 和 topic8 的 fact', 'profile facts']
    const queries = questions.map((q) => recallQuery(q, [], 1_800_000_000_000).weights)
    // A turn asks for 40 (recall-install.ts); the index hands over up to 140 candidates, all of them read before.
    const found = queries.map((query) =>
      archiveRowsDuring(() => searchLists(store, scopeLists(state, profile, 's1', undefined), query, 40, 1)),
    )
    expect(isInMemory(profile.memory.items)).toBe(false)
    const whole = eager(state)
    const wholeProfile = whole.profiles.find((p) => p.id === id)!
    found.forEach(({ value, rows }, i) => {
      expect(value.length).toBe(40)
      expect(rows).toBeLessThanOrEqual(40)
      expect(value).toEqual(searchLists(store, scopeLists(whole, wholeProfile, 's1', undefined), queries[i]!, 40, 1))
    })
  }, 120_000)
})
