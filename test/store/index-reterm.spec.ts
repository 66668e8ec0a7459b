/**
 * One-letter Latin words are search terms (#42: "C", "R" were dropped), and an index made before is re-termed in
 * the background (#44): once, a bounded batch at a time with the store usable meanwhile, said in Diagnostics, and
 * after SIGKILL the next start resumes after the last batch committed, redoing none and losing nothing.
 *
 * An index "made before" is made here as the earlier version left it: every item's terms column written without its
 * one-letter words, and no terms bookkeeping table.
 */
import { spawn } from 'node:child_process'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { indexFigures } from '../../lib/memory/index-size.ts'
import { recallQuery } from '../../lib/memory/recall.ts'
import { scopeLists, searchLists } from '../../lib/memory/search.ts'
import { termsColumn } from '../../lib/shared/search-terms.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { recordStatements } from '../support/statements.ts'
import { childArgs } from '../support/children.ts'

/** Every background job a store started (background-steps.ts), and whether its last step ran: a spec waits on it. */
const jobs = vi.hoisted(() => [] as { ended: boolean }[])
vi.mock(
  '../../lib/store/background-steps.ts',
  async (real: () => Promise<typeof import('../../lib/store/background-steps.ts')>) => {
    const steps = await real()
    return {
      ...steps,
      everyStep: (step: () => boolean) => {
        const job = { ended: false }
        jobs.push(job)
        return steps.everyStep(() => {
          const more = step()
          job.ended = !more
          return more
        })
      },
    }
  },
)

type Fresh = Awaited<ReturnType<typeof freshStore>>
const stores: Fresh[] = []
const others: ProfileStore[] = []
afterEach(async () => {
  for (const s of others.splice(0)) await s.close()
  for (const s of stores.splice(0)) await s.dispose()
})

const ITEMS = 120
const text = (i: number) => (i % 2 === 0 ? `第${i}条：用户平时写 C 语言的程序` : `第${i}条：用户用 R 做统计，编号 ${i}`)

/**
 * A store holding ITEMS items whose index is as the earlier terms left it; closed, its file returned. `bookkept`: the
 * terms bookkeeping stays, as when an older plugin rebuilt the index of a database this version had re-termed.
 */
async function earlierIndex(bookkept = false): Promise<{ t: Fresh; file: string }> {
  const t = await freshStore()
  stores.push(t)
  const profileId = t.store.state.activeId
  await t.store.command({
    op: 'memory.add',
    target: { profileId },
    items: Array.from({ length: ITEMS }, (_, i) => ({ text: text(i) })),
  })
  const file = t.store.file
  await t.store.close()
  const db = new DatabaseSync(file)
  const rows = db
    .prepare(
      'SELECT d.doc AS doc, i.data AS data FROM memory_docs d JOIN memory_items i ON i.profile_id = d.owner AND i.id = d.item',
    )
    .all() as { doc: number; data: string }[]
  expect(rows.length).toBe(ITEMS)
  const update = db.prepare('UPDATE memory_fts SET terms = ? WHERE rowid = ?')
  for (const r of rows) {
    update.run(earlierTerms(JSON.parse(r.data) as MemoryItem), r.doc)
  }
  // Nor did it know the map's terms-version column, nor the index of the items left to re-term.
  db.exec('DROP INDEX memory_docs_reterm_2; ALTER TABLE memory_docs DROP COLUMN termed')
  if (!bookkept) db.exec('DROP TABLE memory_index_terms')
  db.close()
  return { t, file }
}

/** The earlier tokeniser's terms column: every one-letter word that is not a digit dropped. */
const earlierTerms = (it: MemoryItem) => termsColumn(it.text.replace(/\b[a-z]\b/gi, ' '), it.keys, it.at)

/**
 * An older plugin (terms version 1, which knows the index but not the terms bookkeeping) saves `text` into the active
 * profile: as its write leaves the rows, the item's row and the revision as any version writes them, its index rows
 * as that version's upkeep inserts them (its terms, the map's columns it names). The item row is this version's own
 * save, its index rows then replaced, so that the spec does not depend on the item table's layout.
 */
async function olderPluginSaves(t: Fresh, file: string, texts: readonly string[]): Promise<void> {
  const store = await t.open(file)
  const profileId = store.state.activeId
  await store.command({ op: 'memory.add', target: { profileId }, items: texts.map((text) => ({ text })) })
  const items = store.state.profiles
    .find((p) => p.id === profileId)!
    .memory.items.filter((it) => texts.includes(it.text))
  await store.close()
  const db = new DatabaseSync(file)
  db.exec('BEGIN IMMEDIATE')
  for (const item of items) {
    const { doc } = db.prepare('SELECT doc FROM memory_docs WHERE owner = ? AND item = ?').get(profileId, item.id) as {
      doc: number
    }
    db.prepare('DELETE FROM memory_fts WHERE rowid = ?').run(doc)
    db.prepare('DELETE FROM memory_docs WHERE owner = ? AND item = ?').run(profileId, item.id)
    const { lastInsertRowid } = db
      .prepare('INSERT INTO memory_fts (text, terms, owner, item) VALUES (?, ?, ?, ?)')
      .run(item.text, earlierTerms(item), profileId, item.id)
    db.prepare('INSERT INTO memory_docs (owner, item, doc) VALUES (?, ?, ?)').run(profileId, item.id, lastInsertRowid)
  }
  db.exec('COMMIT')
  db.close()
}

/** The counts a ranking of `message` reads from `store`'s index (the words' item counts, the items, their mean size). */
function counts(store: ProfileStore, message: string) {
  const terms = [...recallQuery(message, [], Date.now()).weights.keys()]
  const stats = store.searchIndex((index) => index.termStats(terms))!
  return {
    docs: stats.docs,
    meanTerms: stats.meanTerms,
    df: Object.fromEntries(terms.map((w) => [w, stats.df.get(w)])),
  }
}

/** What recall finds for `message` in the active profile's memory (the real search over the index). */
function recalled(store: ProfileStore, message: string): string[] {
  const profile = store.state.profiles.find((p) => p.id === store.state.activeId)!
  const lists = scopeLists(store.state, profile, 'spec-session', undefined)
  return searchLists(store, lists, recallQuery(message, [], Date.now()).weights, ITEMS, 1).map((h) => h.item.text)
}

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !what(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(what()).toBe(true)
}

describe('one-letter words in the search index', () => {
  it('a new item is found by a one-letter word at once', async () => {
    const t = await freshStore()
    stores.push(t)
    const profileId = t.store.state.activeId
    await t.store.command({ op: 'memory.add', target: { profileId }, items: [{ text: '用户平时写 C 语言的程序' }] })
    await t.store.command({ op: 'memory.add', target: { profileId }, items: [{ text: '用户用 R 做统计' }] })
    expect(recalled(t.store, 'C')).toEqual(['用户平时写 C 语言的程序'])
    expect(recalled(t.store, 'r')).toEqual(['用户用 R 做统计'])
    expect(indexFigures(t.store).reterm).toBeUndefined()
  })

  it('an index made before is re-termed in the background, usable meanwhile, said in Diagnostics, once', async () => {
    const { t, file } = await earlierIndex()
    const store = await t.open(file, { retermBatch: 10 })
    others.push(store)
    // Before the job: the store answers, and Diagnostics says the re-terming is under way.
    expect(indexFigures(store).reterm).toEqual({ done: 0, total: ITEMS })
    expect(recalled(store, 'C')).toEqual([])
    // Meanwhile a save goes through and is found at once by its own one-letter word.
    const profileId = store.state.activeId
    await store.command({ op: 'memory.add', target: { profileId }, items: [{ text: '用户的车牌尾号是 X' }] })
    expect(recalled(store, 'X')).toEqual(['用户的车牌尾号是 X'])
    await until(() => (indexFigures(store).reterm?.done ?? 0) > 0)
    await until(() => indexFigures(store).reterm === undefined)
    expect(recalled(store, 'C')).toHaveLength(ITEMS / 2)
    expect(recalled(store, 'R').every((s) => s.includes('R'))).toBe(true)
    expect(recalled(store, 'R')).toHaveLength(ITEMS / 2)
    // Once: a second start finds nothing to do.
    const again = await t.open(file, { retermBatch: 10 })
    others.push(again)
    expect(indexFigures(again).reterm).toBeUndefined()
  })

  it('items an older plugin wrote after the re-terming are re-termed alone at the next start', async () => {
    const { t, file } = await earlierIndex()
    const first = await t.open(file, { retermBatch: 50 })
    await until(() => indexFigures(first).reterm === undefined)
    await first.close()
    // A downgrade: the older plugin saves an item after the whole index was re-termed; then this version again.
    await olderPluginSaves(t, file, ['用户的车牌尾号是 X'])
    const ran = recordStatements()
    const store = await t.open(file, { retermBatch: 50 })
    others.push(store)
    expect(indexFigures(store).reterm).toEqual({ done: 0, total: 1 })
    await until(() => indexFigures(store).reterm === undefined)
    expect(recalled(store, 'X')).toEqual(['用户的车牌尾号是 X'])
    // Only that item was re-termed, not the index again.
    expect(ran.filter((sql) => sql.startsWith('UPDATE memory_fts SET terms')).length).toBe(1)
    expect(recalled(store, 'C')).toHaveLength(ITEMS / 2)
  })

  it('an index an older plugin rebuilt after the re-terming is re-termed again', async () => {
    const { t, file } = await earlierIndex(true)
    const store = await t.open(file, { retermBatch: 50 })
    others.push(store)
    expect(indexFigures(store).reterm).toEqual({ done: 0, total: ITEMS })
    await until(() => indexFigures(store).reterm === undefined)
    expect(recalled(store, 'C')).toHaveLength(ITEMS / 2)
  })

  it("another store's word counts follow a re-terming it does not run, and equal a fresh count after", async () => {
    const t = await freshStore()
    stores.push(t)
    const profileId = t.store.state.activeId
    await t.store.command({ op: 'memory.add', target: { profileId }, items: [{ text: '用户平时写 C 语言的程序' }] })
    const file = t.store.file
    await t.store.close()
    // B (another dsh) is open on an index with nothing to re-term, and keeps the counts it read.
    const started = jobs.length
    const writer = await t.open(file)
    others.push(writer)
    // Its job looks once, a step's pause after the start, finds nothing and ends: the re-terming below is A's alone.
    const own = jobs.slice(started)
    expect(own).toHaveLength(1)
    await until(() => own[0]!.ended)
    expect(counts(writer, 'C R').df).toEqual({ c: 1, r: 0 })
    // An older plugin saves 40 items; then A starts and re-terms them, a few per step, while B saves and recalls.
    await olderPluginSaves(
      t,
      file,
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `旧版记下：C 代码第${i}段` : `旧版记下：R 脚本第${i}段`)),
    )
    const reterming = await t.open(file, { retermBatch: 3 })
    others.push(reterming)
    let saved = 0
    while (indexFigures(reterming).reterm !== undefined) {
      await writer.command({ op: 'memory.add', target: { profileId }, items: [{ text: `新记下：C 第${saved++}次` }] })
      counts(writer, 'C R')
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(saved).toBeGreaterThan(1)
    // After both: B's counts are what a fresh count of the index says, before and after its next save.
    const fresh = async () => {
      const reader = await t.open(file)
      const figures = counts(reader, 'C R')
      await reader.close()
      return figures
    }
    const after = await fresh()
    expect(after.df).toEqual({ c: 1 + 20 + saved, r: 20 })
    expect(counts(writer, 'C R')).toEqual(after)
    await writer.command({ op: 'memory.add', target: { profileId }, items: [{ text: '最后记下：R 和 C' }] })
    expect(counts(writer, 'C R')).toEqual(await fresh())
  })

  it('after SIGKILL mid-way, the next start resumes after the last batch committed and loses nothing', async () => {
    const { t, file } = await earlierIndex()
    let killedAt = 0
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, childArgs('reterm-child', file, '7'), {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const done = [...out.matchAll(/progress (\d+)/g)].map((m) => Number(m[1]))
        if (killedAt === 0 && done.some((d) => d >= 21)) {
          killedAt = Math.max(...done)
          child.kill('SIGKILL')
        }
        // Finished without ever saying how far it got: nothing to kill mid-way (the spec then fails below).
        if (killedAt === 0 && done.includes(-1)) child.kill('SIGKILL')
      })
      child.on('error', reject)
      child.on('exit', () => resolve())
    })
    expect(killedAt).toBeGreaterThan(0)
    // What the file holds after the kill: the batches committed, and the place the next start goes on from.
    const db = new DatabaseSync(file, { readOnly: true })
    const mark = db.prepare('SELECT version, done FROM memory_index_terms').get() as { version: number; done: number }
    db.close()
    expect(mark.version).toBe(1)
    expect(mark.done).toBeGreaterThanOrEqual(killedAt)
    expect(mark.done).toBeLessThan(ITEMS)
    // The next start: count every item it re-terms.
    const ran = recordStatements()
    const store = await t.open(file, { retermBatch: 7 })
    others.push(store)
    expect(indexFigures(store).reterm?.done).toBe(mark.done)
    await until(() => indexFigures(store).reterm === undefined)
    // Only the items the killed process had not done were re-termed: no finished batch was done again.
    expect(ran.filter((sql) => sql.startsWith('UPDATE memory_fts SET terms')).length).toBe(ITEMS - mark.done)
    const items = store.state.profiles.find((p) => p.id === store.state.activeId)!.memory.items
    expect(items.filter((it) => /第\d+条/.test(it.text))).toHaveLength(ITEMS)
    expect(recalled(store, 'C')).toHaveLength(ITEMS / 2)
    expect(recalled(store, 'R')).toHaveLength(ITEMS / 2)
  }, 60_000)
})
