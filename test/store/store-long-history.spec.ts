import { DatabaseSync, StatementSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import type { MemoryItem, State } from '../../lib/state/model.ts'
import { normalizeMemory } from '../../lib/shared/memory-text.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { indexAndRows } from '../support/index-rows.ts'
import { fcParams, genRng, type Rng } from '../support/fuzz.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const d of disposers.splice(0)) await d()
})

const sqliteOf = (file: string) => file.replace(/\.json$/, '.sqlite')

/** A store whose active profile holds `n` items, closed; its data file. */
async function storeOf(n: number): Promise<{ file: string; owner: string }> {
  const t = await freshStore()
  disposers.push(t.dispose)
  const owner = t.store.state.activeId
  const items = Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: `第${i}条长期记忆 about topic${i}`,
    source: 'auto' as const,
    at: 1_700_000_000_000 + i,
  }))
  await t.store.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items } } })
  await t.store.close()
  return { file: t.file, owner }
}

/** Every SQL text this process prepares or runs while `run` goes on. */
async function statementsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const { prepare, exec } = DatabaseSync.prototype
  vi.spyOn(DatabaseSync.prototype, 'prepare').mockImplementation(function (this: DatabaseSync, sql: string) {
    seen.push(sql)
    return prepare.call(this, sql)
  })
  vi.spyOn(DatabaseSync.prototype, 'exec').mockImplementation(function (this: DatabaseSync, sql: string) {
    seen.push(sql)
    return exec.call(this, sql)
  })
  await run()
  vi.restoreAllMocks()
  return seen
}

describe('a long memory history at start', () => {
  it('opening reads no document of the search index (the tables checked in the background, the index trusted by its revision); a damaged index is rebuilt by the first query', async () => {
    const { file, owner } = await storeOf(2_000)
    let store: ProfileStore | undefined
    const sql = await statementsDuring(async () => {
      store = await openStore({ file })
    })
    disposers.push(() => store!.close())
    // FTS5's integrity check reads every document of the index, and so does a whole-file quick_check (which runs it).
    expect(sql.filter((s) => /integrity-check/.test(s))).toEqual([])
    expect(sql.filter((s) => /quick_check\s*$/i.test(s.trim()))).toEqual([])
    // The data's own tables are checked after the start, in the background (store-integrity-background.spec.ts).
    expect(sql.filter((s) => /quick_check/i.test(s))).toEqual([])
    expect(sql.some((s) => /INSERT INTO memory_fts \(text/.test(s))).toBe(false)
    const hits = store!.searchIndex((index) => index.ranked([owner], ['topic1234'], 10)) ?? []
    expect(hits.map((h) => h.item)).toContain('m1234')
    await store!.close()
    // Trusted, not unchecked: an index damaged inside its blocks is rebuilt by the first query that meets it.
    const db = new DatabaseSync(sqliteOf(file))
    db.exec('UPDATE memory_fts_data SET block = zeroblob(length(block)) WHERE id > 10')
    db.close()
    store = await openStore({ file })
    expect(store.lastError).toBeNull()
    expect((store.searchIndex((index) => index.ranked([owner], ['topic77'], 10)) ?? []).map((h) => h.item)).toContain(
      'm77',
    )
    expect(store.searchIndex((index) => index.containing(owner, 'topic1999'))).toEqual(['m1999'])
  })
})

/**
 * How many item rows the statements of this process write or delete while `run` goes on (an edited row's text key,
 * set after its text in a statement of its own, is the same row: lib/store/db/text-keys.ts).
 */
async function itemRowWrites(run: () => Promise<unknown>): Promise<number> {
  let n = 0
  type Run = (this: StatementSync, ...args: unknown[]) => unknown
  const proto = StatementSync.prototype as unknown as Record<'run', Run>
  const { run: original } = proto
  vi.spyOn(proto, 'run').mockImplementation(function (this: StatementSync, ...a: unknown[]) {
    if (/^(INSERT INTO|DELETE FROM|UPDATE) memory_items\b(?! SET text_key = \?)/.test(this.sourceSQL)) n++
    return original.apply(this, a)
  } as never)
  try {
    await run()
  } finally {
    vi.restoreAllMocks()
  }
  return n
}

describe('writes on a long memory', () => {
  it('removing, editing or adding an early item of 10,000 writes the rows of that item alone, and the order holds', async () => {
    const { file, owner } = await storeOf(10_000)
    const store = await openStore({ file })
    disposers.push(() => store.close())
    const target = { profileId: owner }
    const texts = () => store.state.profiles.find((p) => p.id === owner)!.memory.items.map((it) => it.text)
    // What follows the first write is the cost of each write itself (an edit rewrites its row in place).
    await store.command({ op: 'memory.remove', target, itemId: 'm9999' })
    expect(await itemRowWrites(() => store.command({ op: 'memory.remove', target, itemId: 'm5' }))).toBe(1)
    expect(
      await itemRowWrites(() => store.command({ op: 'memory.update', target, itemId: 'm7', text: '改过的第7条' })),
    ).toBe(1)
    expect(
      await itemRowWrites(() =>
        store.command({ op: 'memory.add', target, items: [{ text: '新的一条', source: 'tool' }] }),
      ),
    ).toBe(1)
    expect(await itemRowWrites(() => store.command({ op: 'memory.remove', target, itemId: 'm0' }))).toBe(1)
    const expected = texts()
    expect(expected.slice(0, 6)).toEqual([
      '第1条长期记忆 about topic1',
      '第2条长期记忆 about topic2',
      '第3条长期记忆 about topic3',
      '第4条长期记忆 about topic4',
      '第6条长期记忆 about topic6',
      '改过的第7条',
    ])
    await store.close()
    const reopened = await openStore({ file })
    disposers.push(() => reopened.close())
    expect(reopened.state.profiles.find((p) => p.id === owner)!.memory.items.map((it) => it.text)).toEqual(expected)
  })
})

/** What changed from `before` to `after`, found the whole-list way: every item of both compared by id. */
function wholeListDiff(before: readonly MemoryItem[], after: readonly MemoryItem[]) {
  const old = new Map(before.map((it) => [it.id, it]))
  const now = new Set(after.map((it) => it.id))
  const same = (a: MemoryItem, b: MemoryItem) =>
    a.text === b.text && a.pinned === b.pinned && a.pending === b.pending && a.archived === b.archived
  return {
    added: after.filter((it) => !old.has(it.id)).map((it) => it.id),
    removed: before.filter((it) => !now.has(it.id)).map((it) => it.id),
    edited: after.filter((it) => old.has(it.id) && !same(old.get(it.id)!, it)).map((it) => it.id),
  }
}

const WORDS = ['咖啡', '猫', 'Rust', 'rust。', '搬家', '跑步', 'go to', 'goto', '项目 A', '项目a']

/** One random memory command on `owner`'s list as it stands in `state`; `gone`: texts of items that left it. */
function randomCommand(r: Rng, state: State, owner: string, gone: readonly string[]): Record<string, unknown> {
  const items = state.profiles.find((p) => p.id === owner)!.memory.items
  const any = () => items[r.pick([0, items.length - 1, r.int(Math.max(items.length, 1))])]
  // A text the list holds, one that left it (replaced, edited or removed), or a new one.
  const text = () =>
    r.chance(0.2) && items.length > 0
      ? any()!.text
      : r.chance(0.4) && gone.length > 0
        ? r.pick(gone)
        : `${r.pick(WORDS)}${r.chance(0.5) ? '' : ` ${r.int(40)}`}`
  const target = { profileId: owner }
  const kind = items.length === 0 ? 0 : r.int(10)
  if (kind < 5) {
    const n = 1 + r.int(3)
    return {
      op: 'memory.add',
      target,
      items: Array.from({ length: n }, () => ({
        text: text(),
        source: r.pick(['tool', 'auto', 'user'] as const),
        ...(r.chance(0.4) && items.length > 0 ? { replaces: any()!.id } : {}),
      })),
    }
  }
  if (kind < 7) return { op: 'memory.update', target, itemId: any()!.id, text: text() }
  if (kind < 9) return { op: 'memory.remove', target, itemId: any()!.id }
  return { op: 'memory.clear', target }
}

describe('memory commands over random histories', () => {
  it('give what a whole-list comparison gives: the duplicates, the history entry, the rows and the index', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const r = genRng(g)
        const t = await freshStore()
        try {
          const owner = t.store.state.activeId
          const start = Array.from({ length: r.int(80) }, (_, i) => ({
            id: `s${i}`,
            text: `${r.pick(WORDS)} ${i}`,
            source: 'import' as const,
            at: 1_700_000_000_000 + i,
            ...(r.chance(0.1) ? { pinned: true as const } : {}),
          }))
          await t.store.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items: start } } })
          const gone: string[] = []
          for (let step = 0; step < 16; step++) {
            const before = t.store.state
            const itemsBefore = before.profiles.find((p) => p.id === owner)!.memory.items
            const cmd = randomCommand(r, before, owner, gone)
            let reply: Record<string, unknown>
            try {
              reply = (await t.store.command(cmd as never)) as unknown as Record<string, unknown>
            } catch {
              expect(t.store.state).toBe(before)
              continue
            }
            const after = t.store.state
            const itemsAfter = after.profiles.find((p) => p.id === owner)!.memory.items
            if (cmd.op === 'memory.add') {
              const seen = new Set(itemsBefore.map((it) => normalizeMemory(it.text)))
              const duplicates: string[] = []
              for (const it of cmd.items as { text: string }[]) {
                const key = normalizeMemory(it.text)
                if (seen.has(key)) duplicates.push(it.text)
                seen.add(key)
              }
              expect(reply.duplicates).toEqual(duplicates)
            }
            if (after === before) continue
            const entry = after.history?.[owner]?.at(-1)
            const whole = wholeListDiff(itemsBefore, itemsAfter)
            const byId = new Map(itemsBefore.map((it) => [it.id, it]))
            gone.push(...whole.removed.map((id) => byId.get(id)!.text), ...whole.edited.map((id) => byId.get(id)!.text))
            expect({
              added: entry?.added.map((it) => it.id) ?? [],
              removed: entry?.removed.map((it) => it.id) ?? [],
              edited: entry?.edited.map((e) => e.after.id) ?? [],
            }).toEqual(whole)
          }
          const last = t.store.state.profiles.find((p) => p.id === owner)!.memory.items
          await t.store.close()
          const { index, rows } = indexAndRows(sqliteOf(t.file))
          expect(index).toEqual(rows)
          const reopened = await openStore({ file: t.file })
          try {
            expect(reopened.state.profiles.find((p) => p.id === owner)!.memory.items).toEqual(last)
          } finally {
            await reopened.close()
          }
        } finally {
          await t.dispose()
        }
      }),
      fcParams(25, { timeLimitMs: 30_000 }),
    )
  })
})
