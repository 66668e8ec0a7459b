/**
 * The rest of an own import's profile written from the bytes the import worker sent, on the store's kept thread
 * (lib/store/import-append.ts, lib/store/db/append-rows.ts): while it is written the host's heap does not hold the
 * profile's items, and the rows, the search index and the counts it leaves are those the store's own command writes.
 */
import { DatabaseSync } from 'node:sqlite'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import { readParsedFile } from '../../lib/commands/file-read.ts'
import { OwnImports } from '../../lib/store/import-batches.ts'
import { packRead } from '../../lib/commands/packed-items.ts'
import type { ImportFile } from '../../lib/shared/command-inputs.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { freshStore } from '../support/store-helpers.ts'
import { ownEnvelope, ownFileOf } from '../support/hostile-files.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const stores: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.dispose()
})
async function store(): Promise<ProfileStore> {
  const s = await freshStore()
  stores.push(s)
  return s.store
}

/** An own file of `profiles` profiles (ids `${tag}${p}`) of `items` items each, `text(p, k)` item k's of profile p. */
const ownFile = (profiles: number, items: number, text: (p: number, k: number) => string, tag = 'big'): ImportFile =>
  ownFileOf(ownEnvelope(tag, profiles, items, text))
let ids = 0
const ctx = () => ({ now: 1_700_000_000_000, newId: (prefix: string) => `${prefix}-t${ids++}` })
const choice = { conflicts: 'keep-both' as const, replace: new Set<string>() }

/** What the database of `store` holds of the memory: rows in order, index entries, counts, profiles but their times. */
function rowsOf(s: ProfileStore) {
  const db = new DatabaseSync(s.file, { readOnly: true })
  try {
    const all = (sql: string) =>
      db
        .prepare(sql)
        .all()
        .map((r) => ({ ...r }))
    return {
      items: all('SELECT profile_id, id, data, kind, item_at, text_key FROM memory_items ORDER BY profile_id, pos'),
      index: all('SELECT owner, item, text, terms FROM memory_fts ORDER BY owner, item'),
      docs: all('SELECT owner, item, termed FROM memory_docs ORDER BY owner, item'),
      counts: all('SELECT * FROM memory_counts ORDER BY profile_id'),
      profiles: all("SELECT id, pos, data FROM profiles WHERE id LIKE 'big%' ORDER BY pos").map((r) => {
        const { updatedAt: _u, createdAt: _c, ...data } = JSON.parse(String(r.data)) as Record<string, unknown>
        return { ...r, data }
      }),
    }
  } finally {
    db.close()
  }
}

describe("an own import's items written from their bytes", () => {
  // Decoded on the host, each profile's items stayed in its heap as text and objects while the profile's batches
  // were written (the parsed profile, and the list growing in the state), and what V8 had not collected of them when
  // the import ended was left in the process's memory.
  it("keeps none of a profile's items in the host's heap while the rest of them is written", async () => {
    const s = await store()
    const items = 4_000
    const text = (_p: number, k: number) =>
      `${'用户在这个项目里用过这套工具链并且对它的构建速度印象深刻'.repeat(20)} ${k}`
    const read = packRead(readParsedFile(ownFile(1, items, text), 0, ctx()))
    const texts = Array.from({ length: items }, (_, k) => 2 * text(0, k).length).reduce((a, b) => a + b, 0)
    const heap = () => {
      gc()
      return process.memoryUsage().heapUsed
    }
    // A small import first, so that the code the import runs is compiled before the heap is measured.
    const warm = new OwnImports(s)
    warm.start({
      read: packRead(
        readParsedFile(
          ownFile(1, 600, (_p, k) => `warm ${k}`, 'warm'),
          0,
          ctx(),
        ),
      ),
      choice,
    })
    expect((await warm.settled()).state).toBe('done')
    const before = heap()
    const own = new OwnImports(s)
    own.start({ read, choice })
    let most = -Infinity
    let seen = 0
    // Sampled after each batch while the rest of the profile is written: past its first batches, before its last.
    for (let done = 0, last = 0; own.status().state === 'running'; last = done, done = own.status().done) {
      if (done !== last && done > items / 4 && done < items) {
        most = Math.max(most, heap() - before)
        seen++
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect((await own.settled()).state).toBe('done')
    expect(seen).toBeGreaterThan(0)
    // One copy of the profile's texts is `texts` bytes; the host held less than a quarter of that at any sample.
    expect(most).toBeLessThan(texts / 4)
    const big = s.state.profiles.find((p) => p.id === 'big0')!
    expect(big.memory.items.map((it) => it.text)).toEqual(Array.from({ length: items }, (_, k) => text(0, k)))
  })

  it("leaves the rows, the search index and the counts the store's own command writes", async () => {
    const [off, host] = [await store(), await store()]
    const file = ownFile(3, 1_200, (p, k) => `fact ${p}.${k} about tool ${k % 17}`)
    const read = readParsedFile(file, 0, ctx())
    for (const [s, r] of [
      [off, packRead(read)],
      [host, read],
    ] as const) {
      const own = new OwnImports(s)
      own.start({ read: r, choice })
      expect(await own.settled()).toMatchObject({ state: 'done', result: { imported: 3 } })
    }
    const a = rowsOf(off)
    expect(a.items).toHaveLength(3_600)
    expect(a.index).toHaveLength(3_600)
    expect(a).toEqual(rowsOf(host))
    // The host took each commit in: its search finds an item the thread wrote, as the other store's does.
    const find = (s: ProfileStore) => s.searchIndex((index) => index.containing('big2', 'tool'))?.length
    expect(find(off)).toBe(find(host))
  })
})
