/**
 * One-letter Latin words are search terms (#42: "C", "R" were dropped), and an index made before is re-termed in
 * the background (#44): once, a bounded batch at a time with the store usable meanwhile, said in Diagnostics, and
 * after SIGKILL the next start resumes after the last batch committed, redoing none and losing nothing.
 *
 * An index "made before" is made here as the earlier version left it: every item's terms column written without its
 * one-letter words, and no terms bookkeeping table.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { indexFigures } from '../../lib/memory/index-size.ts'
import { recallQuery } from '../../lib/memory/recall.ts'
import { scopeLists, searchLists } from '../../lib/memory/search.ts'
import { termsColumn } from '../../lib/shared/search-terms.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { recordStatements } from '../support/statements.ts'

const CHILD = fileURLToPath(new URL('../support/reterm-child.ts', import.meta.url))
type Fresh = Awaited<ReturnType<typeof freshStore>>
const stores: Fresh[] = []
const others: ProfileStore[] = []
afterEach(async () => {
  for (const s of others.splice(0)) await s.close()
  for (const s of stores.splice(0)) await s.dispose()
})

const ITEMS = 120
const text = (i: number) => (i % 2 === 0 ? `第${i}条：用户平时写 C 语言的程序` : `第${i}条：用户用 R 做统计，编号 ${i}`)

/** A store holding ITEMS items whose index is as the earlier terms left it; closed, its file returned. */
async function earlierIndex(): Promise<{ t: Fresh; file: string }> {
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
    const it = JSON.parse(r.data) as MemoryItem
    // The earlier tokeniser dropped every one-letter word that is not a digit.
    update.run(termsColumn(it.text.replace(/\b[a-z]\b/gi, ' '), it.keys, it.at), r.doc)
  }
  db.exec('DROP TABLE memory_index_terms')
  db.close()
  return { t, file }
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

  it('after SIGKILL mid-way, the next start resumes after the last batch committed and loses nothing', async () => {
    const { t, file } = await earlierIndex()
    let killedAt = 0
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', CHILD, file, '7'], {
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
