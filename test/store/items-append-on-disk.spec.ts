/**
 * A save, an edit or a removal of one item in a profile whose memory list is still on disk leaves it there (#44):
 * after a start a profile's items stay in their rows until a reader asks, and the first such command into each profile
 * read every row, checked it and copied the list to change one item (0.15–0.3 s at 10,000 items). It now checks a new
 * text against the rows' texts, counts the limit from the rows, reads the item it edits or removes by id and writes
 * that row alone; the list it leaves reads, renders, counts and undoes as the list read whole would, in this store and
 * after a restart. The property test runs the same random saves, edits and removals on two copies of one store: one
 * whose lists are read before every command (the old path), one left alone.
 */
import { afterEach, expect, it } from 'vitest'
import type { MemoryItem, Profile } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { isInMemory, itemTally } from '../../lib/state/lazy-list.ts'
import { renderParts } from '../../lib/prompt/render.ts'
import { freshStore, until } from '../support/store-helpers.ts'
import { asSchema6, keysOf } from '../support/text-keys.ts'
import { itemRowsWhile } from '../support/statements.ts'

type Fresh = Awaited<ReturnType<typeof freshStore>>
const stores: Fresh[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

const NAME = '磁盘上'

/** A store with one profile of `n` items (a few pinned, a few archived), written and then opened again. */
async function seeded(n: number): Promise<Fresh> {
  const t = await freshStore()
  stores.push(t)
  await t.store.command({ op: 'profile.create', profile: { name: NAME } })
  const items = Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: `事实 ${i}：用户喜欢第 ${i} 种 Rust 写法`,
    source: 'user' as const,
    at: 1_700_000_000_000 + i * 60_000,
    ...(i % 17 === 3 ? { pinned: true as const } : {}),
    ...(i % 11 === 5 ? { archived: true as const } : {}),
  }))
  await t.store.command({ op: 'profile.update', id: profileOf(t.store).id, patch: { memory: { summary: '', items } } })
  return t
}

const profileOf = (s: ProfileStore): Profile => s.state.profiles.find((p) => p.name === NAME)!
const historyOf = (s: ProfileStore) => s.state.history?.[profileOf(s).id] ?? []
const itemsOf = (s: ProfileStore): readonly MemoryItem[] => profileOf(s).memory.items
/** What a list says, without the ids the two stores make apart. */
const said = (items: readonly MemoryItem[]) => items.map(({ id: _id, at: _at, ...rest }) => rest)
/** The memory half of a render with a small budget (its core read from the rows when the list is on disk). */
const memoryPart = (s: ProfileStore) => {
  const { memory, memoryCut, used } = renderParts(profileOf(s), undefined, { memoryBudget: 400 })
  return { memory, memoryCut, used: used.length }
}

it('a save into a list on disk leaves it there; it reads, counts and restarts as the list read whole', async () => {
  const t = await seeded(300)
  const store = await t.open()
  expect(isInMemory(itemsOf(store))).toBe(false)
  const target = { profileId: profileOf(store).id }
  await store.command({ op: 'memory.add', target, items: [{ text: '新的一条' }] })
  await store.command({ op: 'memory.add', target, items: [{ text: '又一条' }, { text: '第三条' }] })
  // No item was read into the state for the saves (main read the 300 at the first one).
  expect(isInMemory(itemsOf(store))).toBe(false)
  expect(itemTally(itemsOf(store))).toEqual({ items: 303, archived: 27, pending: 0 })

  const read = await t.open()
  const texts = itemsOf(store).map((it) => it.text)
  expect(texts).toEqual(itemsOf(read).map((it) => it.text))
  expect(texts.slice(-4)).toEqual(['事实 299：用户喜欢第 299 种 Rust 写法', '新的一条', '又一条', '第三条'])
  const history = historyOf(store)
  expect(history.at(-1)!.added.map((it) => it.text)).toEqual(['又一条', '第三条'])
  expect(history.at(-2)!.added.map((it) => it.text)).toEqual(['新的一条'])

  // An edit and a removal of one item by id leave it on disk too, and read back as the list read whole (#44).
  const later = await t.open()
  await later.command({ op: 'memory.update', target, itemId: 'm10', text: '改过的一条' })
  await later.command({ op: 'memory.remove', target, itemId: 'm20' })
  expect(isInMemory(itemsOf(later))).toBe(false)
  expect(itemTally(itemsOf(later))).toEqual({ items: 302, archived: 27, pending: 0 })
  expect(
    historyOf(later)
      .at(-2)!
      .edited.map((e) => [e.before.text, e.after.text]),
  ).toEqual([['事实 10：用户喜欢第 10 种 Rust 写法', '改过的一条']])
  expect(
    historyOf(later)
      .at(-1)!
      .removed.map((it) => it.id),
  ).toEqual(['m20'])
  const edited = itemsOf(await t.open()).map((it) => it.text)
  expect(edited).toEqual(itemsOf(later).map((it) => it.text))
  expect(edited[10]).toBe('改过的一条')
  expect(edited).not.toContain('事实 20：用户喜欢第 20 种 Rust 写法')

  // A text the rows already say, written another way, is a duplicate, as in a list read whole.
  const again = await t.open()
  const r = await again.command({ op: 'memory.add', target, items: [{ text: '事实 7:用户喜欢第 7 种 rust 写法。' }] })
  expect(r.notice).toMatchObject({ key: 'memory.duplicate' })
  expect(itemsOf(again)).toHaveLength(302)
}, 60_000)

/** A small seeded random number generator, so a failing history can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
}

/**
 * A text of the pool, written one of three ways (the same memory each): one the rows say (a duplicate, which reads
 * the list) about one time in five, else a new one or one saved earlier in the run.
 */
function textOf(next: () => number, n: number): string {
  const k = Math.floor(next() * (n + 200))
  const way = Math.floor(next() * 3)
  if (way === 0) return `事实 ${k}：用户喜欢第 ${k} 种 Rust 写法`
  if (way === 1) return `事实${k}: 用户喜欢第${k}种rust写法!`
  return `事实 ${k}，用户喜欢第 ${k} 种 RUST 写法。`
}

/**
 * Where the fill of `file`'s text keys is (lib/store/db/text-keys.ts): not begun, under way (some rows keyed), or
 * done (the look-up by key in use).
 */
function fillPhase(file: string): 'before' | 'during' | 'after' {
  const keys = keysOf(file)
  return keys.done === 'done' ? 'after' : keys.after === undefined ? 'before' : 'during'
}

it('random saves, edits and removals on a list on disk give what they give on the list read whole', async () => {
  let onDisk = 0
  let changedOnDisk = 0
  const phases = new Set<string>()
  for (let run = 0; run < 3; run++) {
    const next = random(run + 1)
    const n = 40 + run * 30
    const [ta, tb] = [await seeded(n), await seeded(n)]
    // After the first run, `b`'s file is one of schema 6, whose rows' text keys are filled in the background a few
    // rows a step while the commands run: before, during and after the fill, the same replies as the list read whole.
    const file = tb.file.replace(/\.json$/, '.sqlite')
    if (run > 0) {
      await tb.store.close()
      asSchema6(file)
    }
    const openB = () => tb.open(undefined, { textKeysBatch: 7 })
    let [a, b] = [await ta.open(), await openB()]
    for (let step = 0; step < 20; step++) {
      const roll = next()
      if (roll < 0.2) {
        ;[a, b] = [await ta.open(), await openB()]
        continue
      }
      // Past the start of the fill (a step of seven rows a tick: a dozen steps), then past its end in the last run.
      if (run > 0 && step === 5) await until(() => fillPhase(file) !== 'before', 'the first step of the fill')
      if (run === 2 && step === 15) await until(() => fillPhase(file) === 'after', 'the end of the fill')
      if (run > 0) phases.add(fillPhase(file))
      if (roll < 0.45) {
        // An edit or a removal of a seeded item by id (one gone already is refused alike in both); a read store `a`.
        const itemId = `m${Math.floor(next() * n)}`
        const cmd =
          roll < 0.3
            ? ({ op: 'memory.remove', itemId } as const)
            : ({ op: 'memory.update', itemId, text: textOf(next, n) } as const)
        void itemsOf(a).length
        const outcome = async (s: ProfileStore) => {
          try {
            return (await s.command({ ...cmd, target: { profileId: profileOf(s).id } })).notice
          } catch (e) {
            return String(e)
          }
        }
        expect(await outcome(b), `run ${run} step ${step}`).toEqual(await outcome(a))
        if (!isInMemory(itemsOf(b))) changedOnDisk++
        expect(itemTally(itemsOf(b))).toEqual(itemTally(itemsOf(a)))
        expect(memoryPart(b)).toEqual(memoryPart(a))
        continue
      }
      const items = Array.from({ length: 1 + Math.floor(next() * 2) }, () => ({ text: textOf(next, n) }))
      void itemsOf(a).length
      const ra = await a.command({ op: 'memory.add', target: { profileId: profileOf(a).id }, items })
      const rb = await b.command({ op: 'memory.add', target: { profileId: profileOf(b).id }, items })
      const outcome = (r: typeof ra) => [r.notice, said(r.added), r.duplicates]
      expect(outcome(rb), `run ${run} step ${step}`).toEqual(outcome(ra))
      if (!isInMemory(itemsOf(b))) onDisk++
      expect(itemTally(itemsOf(b))).toEqual(itemTally(itemsOf(a)))
      expect(memoryPart(b)).toEqual(memoryPart(a))
    }
    expect(said(itemsOf(b))).toEqual(said(itemsOf(a)))
    const history = (s: ProfileStore) =>
      historyOf(s).map((e) => [said(e.added), said(e.removed), e.edited.map((x) => [x.before.text, x.after.text])])
    expect(history(b)).toEqual(history(a))
    const [ra, rb] = [await ta.open(), await tb.open()]
    expect(said(itemsOf(rb))).toEqual(said(itemsOf(ra)))
    expect(said(itemsOf(rb))).toEqual(said(itemsOf(b)))
  }
  // Saves on `b` kept its list on disk (until a duplicate or a removal read it), so the two paths were compared.
  expect(onDisk).toBeGreaterThan(5)
  // Edits and removals on `b` kept it on disk too (until a duplicate read it).
  expect(changedOnDisk).toBeGreaterThan(5)
  // Commands ran before the fill of the keys began, while it ran, and after it ended.
  expect([...phases].sort()).toEqual(['after', 'before', 'during'])
}, 120_000)

it('edits and removals of items saved on disk, and of its last row, read back as the list read whole', async () => {
  const t = await seeded(50)
  const store = await t.open()
  const target = { profileId: profileOf(store).id }
  const saved = async (text: string) =>
    ((await store.command({ op: 'memory.add', target, items: [{ text }] })).added as MemoryItem[])[0]!.id
  const first = await saved('甲')
  const second = await saved('乙')
  await store.command({ op: 'memory.update', target, itemId: first, text: '甲改' })
  await store.command({ op: 'memory.remove', target, itemId: second })
  // The last row goes, then a save: the new row lands after what is left.
  await store.command({ op: 'memory.remove', target, itemId: 'm49' })
  await store.command({ op: 'memory.update', target, itemId: 'm48', text: '四十八改' })
  await saved('丙')
  expect(isInMemory(itemsOf(store))).toBe(false)
  const tally = itemTally(itemsOf(store))
  const render = memoryPart(store)
  const changes = historyOf(store)
    .slice(-7)
    .map((e) => [e.added, e.removed, e.edited.map((x) => x.after)].map((part) => part.map((it) => it.text)))
  expect(changes).toEqual([
    [['甲'], [], []],
    [['乙'], [], []],
    [[], [], ['甲改']],
    [[], ['乙'], []],
    [[], ['事实 49：用户喜欢第 49 种 Rust 写法'], []],
    [[], [], ['四十八改']],
    [['丙'], [], []],
  ])
  const read = await t.open()
  const texts = itemsOf(read).map((it) => it.text)
  expect(itemsOf(store).map((it) => it.text)).toEqual(texts)
  expect(texts.slice(-4)).toEqual(['事实 47：用户喜欢第 47 种 Rust 写法', '四十八改', '甲改', '丙'])
  expect(itemTally(itemsOf(read))).toEqual(tally)
  expect(memoryPart(read)).toEqual(render)
}, 60_000)

it('approving a suggestion in a list on disk reads it and the fact it replaces alone, as the list read whole', async () => {
  /** A store whose profile asks first, holding three suggestions (the second replacing m5): their ids. */
  const withSuggestions = async () => {
    const t = await seeded(200)
    const id = profileOf(t.store).id
    await t.store.command({ op: 'profile.update', id, patch: { memoryMode: 'ask' } })
    const r = await t.store.command({
      op: 'memory.add',
      target: { profileId: id },
      items: [
        { text: '建议一', source: 'tool' },
        { text: '建议二：换掉第 5 条', source: 'tool', replaces: 'm5' },
        { text: '建议三', source: 'tool' },
      ],
    })
    return { t, ids: (r.added as MemoryItem[]).map((it) => it.id) }
  }
  const [ta, tb] = [await withSuggestions(), await withSuggestions()]
  const [a, b] = [await ta.t.open(), await tb.t.open()]
  void itemsOf(a).length
  const approve = async (s: ProfileStore, itemId: string, text?: string) => {
    try {
      const cmd = { op: 'memory.approve', target: { profileId: profileOf(s).id }, itemId } as const
      const r = await s.command(text === undefined ? cmd : { ...cmd, text })
      return [r.notice, said((r.replaced as MemoryItem[] | undefined) ?? [])]
    } catch (e) {
      return String(e)
    }
  }
  const both = async (k: number | string, text?: string) => {
    const [ia, ib] = typeof k === 'number' ? [ta.ids[k]!, tb.ids[k]!] : [k, k]
    const rows = await itemRowsWhile(() => approve(b, ib, text))
    expect(rows.value).toEqual(await approve(a, ia, text))
    expect(itemTally(itemsOf(b))).toEqual(itemTally(itemsOf(a)))
    expect(memoryPart(b)).toEqual(memoryPart(a))
    return rows.rows
  }
  // Refused alike: no such item, an item that is no suggestion.
  await both('m404')
  await both('m3')
  // Approved as it is, and with the user's edit replacing m5: the suggestion's row (and m5's) read, nothing else.
  expect(await both(0)).toBeLessThanOrEqual(2)
  expect(await both(1, '改过的建议二')).toBeLessThanOrEqual(4)
  expect(isInMemory(itemsOf(b))).toBe(false)
  // A text another item says: the list tells, and refuses it alike.
  await both(2, '事实 7：用户喜欢第 7 种 Rust 写法')
  expect(said(itemsOf(b))).toEqual(said(itemsOf(a)))
  const history = (s: ProfileStore) =>
    historyOf(s).map((e) => [said(e.added), said(e.removed), e.edited.map((x) => [x.before.text, x.after.text])])
  expect(history(b)).toEqual(history(a))
  const [ra, rb] = [await ta.t.open(), await tb.t.open()]
  expect(said(itemsOf(rb))).toEqual(said(itemsOf(ra)))
  expect(history(rb)).toEqual(history(ra))
}, 60_000)
