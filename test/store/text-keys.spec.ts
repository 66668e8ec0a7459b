/**
 * A save's duplicate check in a list still on disk looks up the rows by its text's key (#44): the first save into a
 * profile after a start read every row's text and made its compared form (~35 ms of ~88 ms at 10,000 items); the rows
 * now carry their texts' keys (lib/store/db/text-keys.ts), so the check reads the rows whose key is the new text's,
 * none for a new fact. A row whose key is not known (written by other code) sends the check back to every row's text,
 * so a refusal never depends on the keys. A database of schema 6 gets its keys in the background after the start, in
 * steps that a kill interrupts without losing anything; the next start resumes after the last step.
 */
import { spawn } from 'node:child_process'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { isInMemory } from '../../lib/state/lazy-list.ts'
import { freshStore, until } from '../support/store-helpers.ts'
import { itemRowsWhile } from '../support/statements.ts'
import { childArgs } from '../support/children.ts'
import { asSchema6, keysOf } from '../support/text-keys.ts'

type Fresh = Awaited<ReturnType<typeof freshStore>>
const stores: Fresh[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})

const factOf = (p: number, i: number) => `事实 ${p}-${i}：用户喜欢第 ${i} 种 Rust 写法`

/**
 * A store of `profiles` profiles of `per` items each, saved through the store (each row with its key) and closed;
 * `db`, its database file.
 */
async function seeded(profiles: number, per: number): Promise<Fresh & { db: string }> {
  const t = await freshStore()
  stores.push(t)
  // The factory profiles first (three), then as many more as asked.
  for (let p = 3; p < profiles; p++) await t.store.command({ op: 'profile.create', profile: { name: `档案 ${p}` } })
  for (const [p, profile] of t.store.state.profiles.slice(0, profiles).entries()) {
    const items = Array.from({ length: per }, (_, i) => ({
      id: `m${p}-${i}`,
      text: factOf(p, i),
      source: 'user' as const,
      at: 1_700_000_000_000 + i * 60_000,
    }))
    await t.store.command({ op: 'profile.update', id: profile.id, patch: { memory: { summary: '', items } } })
  }
  await t.store.close()
  return { ...t, db: t.file.replace(/\.json$/, '.sqlite') }
}

const first = (s: ProfileStore): Profile => s.state.profiles[0]!
const add = (s: ProfileStore, text: string) =>
  s.command({ op: 'memory.add', target: { profileId: first(s).id }, items: [{ text }] })

it("a save into a list on disk reads no row's text for a new fact, and still refuses one the rows say", async () => {
  const t = await seeded(1, 2_000)
  const store = await t.open()
  expect(keysOf(t.db)).toMatchObject({ count: 2_000, keyed: 2_000, wrong: 0, done: 'done', indexed: true })
  const fresh = await itemRowsWhile(() => add(store, '一条新的事实'))
  expect(fresh.value.notice).toMatchObject({ key: 'memory.added' })
  // Main read the text of each of the 2,000 rows here.
  expect(fresh.rows).toBe(0)
  // An edit to a new text reads the one row it edits.
  const edit = await itemRowsWhile(() =>
    store.command({ op: 'memory.update', target: { profileId: first(store).id }, itemId: 'm0-5', text: '改过的事实' }),
  )
  expect(edit.value.notice).toMatchObject({ key: 'memory.updated' })
  expect(edit.rows).toBe(1)
  expect(isInMemory(first(store).memory.items)).toBe(false)
  // A fact the rows say, written another way: found by its key, and refused as a list read whole refuses it.
  const again = await add(store, '事实0-7: 用户喜欢第7种rust写法!')
  expect(again.notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await add(await t.open(), '改过的事实。')).notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await add(await t.open(), '一条新的事实')).notice).toMatchObject({ key: 'memory.duplicate' })
}, 60_000)

it('a row written without its key, or whose text changed without it, is checked by its text until it gets one', async () => {
  const t = await seeded(1, 300)
  const profile = first(await t.open()).id
  const db = new DatabaseSync(t.db)
  // As a process of the version before writes: a row with no key, and a text changed beside its key.
  const item = (id: string, text: string) => JSON.stringify({ id, text, source: 'user', at: 1_700_000_000_000 })
  db.prepare('INSERT INTO memory_items (profile_id, id, pos, data) VALUES (?, ?, ?, ?)').run(
    profile,
    'old-1',
    1e9,
    item('old-1', '旧版本写的事实'),
  )
  db.prepare('UPDATE memory_items SET data = ? WHERE profile_id = ? AND id = ?').run(
    item('m0-3', '旧版本改过的事实'),
    profile,
    'm0-3',
  )
  db.close()
  // The changed text lost its key to the trigger; the new row has none.
  expect(keysOf(t.db)).toMatchObject({ count: 301, keyed: 299, wrong: 0 })
  expect((await add(await t.open(), '旧版本写的事实!')).notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await add(await t.open(), '旧版本改过的事实')).notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await add(await t.open(), factOf(0, 3))).notice).toMatchObject({ key: 'memory.added' })
  // A start gives the rows their keys in the background; a new fact then reads no row's text again.
  const later = await t.open()
  await until(() => keysOf(t.db).keyed === keysOf(t.db).count && later.health.upgrade === undefined, 'the keys')
  expect(keysOf(t.db)).toMatchObject({ count: 302, wrong: 0 })
  expect((await itemRowsWhile(() => add(later, '又一条新事实'))).rows).toBe(0)
  expect((await add(later, '旧版本写的事实。')).notice).toMatchObject({ key: 'memory.duplicate' })
}, 60_000)

it('a database of schema 6 gets its keys after the start; a kill loses nothing and the next start resumes', async () => {
  const t = await seeded(3, 1_000)
  asSchema6(t.db)
  const before = keysOf(t.db)
  expect(before).toMatchObject({ count: 3_000, keyed: 0, indexed: false })
  const child = spawn(process.execPath, childArgs('kinds-child', t.db, '200'), { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((r) => child.on('exit', r))
  await until(() => keysOf(t.db).keyed >= 600, 'some steps of the fill')
  child.kill('SIGKILL')
  await exited
  const killed = keysOf(t.db)
  expect(killed).toMatchObject({ rows: before.rows, wrong: 0, indexed: false })
  expect(killed.done).toBeUndefined()
  expect(killed.keyed).toBeLessThan(before.count)
  // A row the killed process filled gets a wrong key: a fill that started again from the first row would mend it.
  const [owner, id] = JSON.parse(String(killed.after)) as [string, string]
  const mark = new DatabaseSync(t.db)
  mark.prepare('UPDATE memory_items SET text_key = 12345 WHERE profile_id = ? AND id = ?').run(owner, id)
  mark.close()
  // Meanwhile (keys not done) a duplicate is refused and a new fact saved, as always.
  const store = await t.open(undefined, { textKeysBatch: 200 })
  expect(store.health.upgrade).toBe('running')
  expect((await add(store, factOf(0, 999).replace('：', ': '))).notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await add(store, '重启后的新事实')).notice).toMatchObject({ key: 'memory.added' })
  await until(() => keysOf(t.db).done === 'done' && store.health.upgrade === undefined, 'the fill after the restart')
  const done = keysOf(t.db)
  expect(done).toMatchObject({ count: before.count + 1, keyed: before.count + 1, wrong: 1, indexed: true })
  expect(done.after).toBeUndefined()
  const after = await t.open()
  expect((await add(after, '重启后的新事实!')).notice).toMatchObject({ key: 'memory.duplicate' })
  expect((await itemRowsWhile(() => add(after, '又一条新事实'))).rows).toBe(0)
  expect((await add(after, factOf(0, 10))).notice).toMatchObject({ key: 'memory.duplicate' })
}, 120_000)
