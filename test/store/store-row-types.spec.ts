/**
 * A row is read by the column kinds its reader relies on (lib/store/db/row-read.ts): SQLite keeps whatever another
 * program wrote into a column, so a revision that is text is refused, naming the table, the row and the column,
 * instead of flowing on as the number or text it was cast to; the row is set aside alone and every other row opens.
 */
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { perTest } from '../support/store-helpers.ts'

const { start, dir } = perTest()

/** A database with one memory item in `coder` and an undo copy; closed. */
async function seeded(): Promise<string> {
  const store = await openStore({ file: join(await dir('ap-row-types'), 'profiles.sqlite') })
  await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户写 Rust' }] })
  await store.close()
  return store.file
}

function sql(file: string, statement: string): void {
  const db = new DatabaseSync(file)
  db.exec(statement)
  db.close()
}

function value(file: string, query: string): unknown {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return Object.values(db.prepare(query).get() ?? {})[0]
  } finally {
    db.close()
  }
}

describe('a column holding a value of another kind sets its row aside alone, by name', () => {
  it('good rows read as before', async () => {
    const file = await seeded()
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
  })

  it('a profile whose revision is text is set aside alone, named by profiles.<id>.rev, and the others open', async () => {
    const file = await seeded()
    sql(file, "UPDATE profiles SET rev = 'abc' WHERE id = 'writer'")
    const store = await start(file)
    expect(store.lastError).toBeNull()
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder'])
    expect(store.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
    // Diagnostics lists the row with the column that holds the wrong kind.
    expect(store.health.setAside).toContainEqual({
      table: 'profiles',
      key: 'writer',
      why: { key: 'refused', refusal: { code: 'invalid', field: 'profiles.writer.rev' } },
      reason: "the database's profiles.writer.rev holds string where an integer belongs",
    })
    // A write beside it keeps the row as it is.
    await store.command({ op: 'profile.update', id: 'coder', patch: { rules: '照常保存' } })
    await store.close()
    expect(value(file, "SELECT rev FROM profiles WHERE id = 'writer'")).toBe('abc')
  })

  it('a profile row another process gives a text revision is set aside the same way, without a restart', async () => {
    const store = await start(await seeded())
    sql(
      store.file,
      "UPDATE profiles SET rev = 'abc' WHERE id = 'writer'; UPDATE meta SET value = value + 1 WHERE key = 'revision'",
    )
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder'])
    expect(store.health.setAside).toContainEqual(
      expect.objectContaining({
        table: 'profiles',
        key: 'writer',
        reason: expect.stringMatching(/profiles\.writer\.rev/),
      }),
    )
  })

  it('a memory item whose data is a blob is set aside alone; its profile and other items load', async () => {
    const file = await seeded()
    const store = await start(file)
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户用 Vim' }] })
    const [, bad] = store.state.profiles.find((p) => p.id === 'coder')!.memory.items
    await store.close()
    sql(file, `UPDATE memory_items SET data = X'7B7D' WHERE id = '${bad!.id}'`)
    const again = await start(file)
    expect(again.state.profiles.find((p) => p.id === 'coder')!.memory.items.map((i) => i.text)).toEqual(['用户写 Rust'])
    expect(again.health.setAside).toContainEqual(
      expect.objectContaining({ table: 'memory_items', key: `coder/${bad!.id}` }),
    )
  })
})

describe('a search index row of another kind is refused, and the index is made again from the items', () => {
  /** A store whose `coder` holds 用户住在杭州, its index rows changed behind its back by `change` (given the item's id). */
  async function indexChanged(change: (id: string) => string) {
    const store = await start(await seeded())
    await store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '用户住在杭州' }] })
    const id = store.state.profiles.find((p) => p.id === 'coder')!.memory.items[1]!.id
    sql(store.file, change(id))
    return { store, id }
  }

  it('a hit whose item is a blob: the text search still names the item by its id', async () => {
    const { store, id } = await indexChanged((id) => `UPDATE memory_docs SET item = X'00' WHERE item = '${id}'`)
    expect(store.searchIndex((i) => i.containing('coder', '住在杭州'))).toEqual([id])
  })

  it('a hit whose owner is a blob: the ranked look still finds the item for its owner', async () => {
    const { store, id } = await indexChanged(() => "UPDATE memory_fts SET owner = X'00' WHERE text = '用户住在杭州'")
    const hits = store.searchIndex((i) => i.ranked(['coder'], ['杭州'], 10)) ?? []
    expect(hits.map((h) => [h.owner, h.item])).toEqual([['coder', id]])
    expect(hits[0]!.score).toBeGreaterThan(0)
  })
})
