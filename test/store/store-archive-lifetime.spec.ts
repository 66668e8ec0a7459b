/**
 * The lifetime of memory read from disk when looked at: a state's lists are read through the store's live
 * connection, whatever happened since the state was taken (another process committed and this one reloaded, the store
 * closed, the data was opened again), and a list that can no longer be read says which one, not SQLite's words.
 */
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { MemoryItem, State } from '../../lib/state/model.ts'
import { isInMemory } from '../../lib/state/lazy-list.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { databaseFiles, layoutOf } from '../../lib/store/db/layout.ts'
import { freshStore } from '../support/store-helpers.ts'
import { StoreError } from '../../lib/shared/errors.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const d of disposers.splice(0)) await d()
})

/** Items `n` of a profile, distinct by `tag`. */
function itemsOf(tag: string, n: number): MemoryItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${tag}-${i}`,
    text: `${tag} 第${i}条`,
    source: 'import' as const,
    at: 1_700_000_000_000 + i,
  }))
}

/** A data directory whose first profile holds 31 items, its second one, and whose history lists hold their adds. */
async function twoProfiles() {
  const t = await freshStore()
  disposers.push(t.dispose)
  const [a, b] = t.store.state.profiles.map((p) => p.id)
  await t.store.command({ op: 'profile.update', id: a!, patch: { memory: { summary: '', items: itemsOf('a', 30) } } })
  const add = (profileId: string, text: string) =>
    t.store.command({ op: 'memory.add', target: { profileId }, items: [{ text, source: 'user' }] })
  await add(a!, '甲的一条')
  await add(b!, '乙的第一条')
  await t.store.close()
  return { ...t, a: a!, b: b! }
}

const itemsOfProfile = (state: State, id: string) => state.profiles.find((p) => p.id === id)!.memory.items

describe('memory read from disk when looked at, over the life of its store', () => {
  it("is read after another process's commit was reloaded, after the store closed, and after the data was opened again", async () => {
    const t = await twoProfiles()
    const store = await openStore({ file: t.file })
    disposers.push(() => store.close())
    const taken = store.state
    expect(isInMemory(itemsOfProfile(taken, t.a))).toBe(false)

    // Another process adds to b; this one reloads what it wrote before anyone read a's items.
    const other = await openStore({ file: t.file })
    await other.command({
      op: 'memory.add',
      target: { profileId: t.b },
      items: [{ text: '乙的第二条', source: 'user' }],
    })
    await other.close()
    const reloaded = store.state
    expect(reloaded === taken).toBe(false)
    expect(itemsOfProfile(taken, t.a).map((it) => it.id)).toEqual([
      ...itemsOf('a', 30).map((it) => it.id),
      expect.any(String),
    ])
    expect(itemsOfProfile(reloaded, t.b).map((it) => it.text)).toEqual(['乙的第一条', '乙的第二条'])

    // Closed with b's history and a's items in `reloaded` still on disk: a kept state reads them all the same.
    const history = Object.values(reloaded.history ?? {}).filter((list) => !isInMemory(list))
    expect(history.length).toBeGreaterThan(0)
    await store.close()
    const again = await openStore({ file: t.file })
    disposers.push(() => again.close())
    expect(itemsOfProfile(reloaded, t.a).slice(0, 30)).toEqual(itemsOf('a', 30))
    expect(itemsOfProfile(reloaded, t.a)[30]!.text).toBe('甲的一条')
    expect(history.every((list) => list.length > 0)).toBe(true)
    expect(itemsOfProfile(again.state, t.b).map((it) => it.text)).toEqual(['乙的第一条', '乙的第二条'])
  })

  it('a list still on disk when its store closed and the data is gone says which list, as a store error', async () => {
    const t = await twoProfiles()
    const store = await openStore({ file: t.file })
    const kept = store.state
    await store.close()
    for (const f of databaseFiles(layoutOf(t.file))) rmSync(f, { force: true })
    let error: unknown
    try {
      void itemsOfProfile(kept, t.a).length
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(StoreError)
    expect((error as StoreError).message).toMatch(
      new RegExp(`^the memory items of "${t.a}" were not read before the profile store closed`),
    )
  })
})
