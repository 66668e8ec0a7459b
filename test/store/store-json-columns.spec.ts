/**
 * A JSON column is read by the schema that describes it (lib/store/db/row-read.ts `jsonColumn`), or, for the search
 * index, by the fields the index reads: SQLite keeps whatever another program wrote, so a turn's memories or a
 * deleted profile's look of another shape is refused naming the table, the row and the column (and read as absent,
 * as any failed read of them is), instead of reaching the page as the type it was cast to; an item whose keys are not
 * text is left out of a rebuilt index instead of stopping it.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import { freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => {
  await ctx?.dispose()
  ctx = undefined
})

/** Run `statement` on the database at `file` as another program would. */
function sql(file: string, statement: string): void {
  const db = new DatabaseSync(file)
  db.exec(statement)
  db.close()
}

describe('a JSON column of another shape is refused by name', () => {
  it("a turn's memories of another shape read as none recorded, and the log names the column", async () => {
    ctx = await freshStore()
    const { store, log } = ctx
    const used = [{ id: 'm-1', text: '用户叫小林', layer: 'profile' as const }]
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: used })
    expect(store.turnMemories('s-1', 1)).toEqual(used)
    sql(store.file, `UPDATE turns SET memories = '[{"id":5,"text":["x"],"layer":"profile"}]' WHERE turn = 1`)
    expect(store.turnMemories('s-1', 1)).toBeUndefined()
    expect(log.lines.join('\n')).toContain('turns.s-1/1.memories')
    sql(store.file, `UPDATE turns SET memories = 'not json' WHERE turn = 1`)
    expect(store.turnMemories('s-1', 1)).toBeUndefined()
    expect(log.lines.join('\n')).toContain("the database's turns.s-1/1.memories is not JSON")
  })

  it("a deleted profile's look of another shape reads as unknown, and the log names the column", async () => {
    ctx = await freshStore()
    const { store, log } = ctx
    const { id } = (await store.command({ op: 'profile.create', profile: { name: 'Old friend', emoji: '🦉' } })).profile
    await store.command({ op: 'profile.delete', id })
    expect(store.retired(id)).toEqual({ id, name: 'Old friend', emoji: '🦉', avatar: '', at: expect.any(Number) })
    sql(store.file, `UPDATE retired_profiles SET data = '{"name":5,"emoji":"🦉","avatar":""}' WHERE id = '${id}'`)
    expect(store.retired(id)).toBeUndefined()
    expect(log.lines.join('\n')).toContain(`retired_profiles.${id}.data`)
  })
})

describe('the search index rebuilt from the rows', () => {
  it('leaves out an item whose keys are not text, and indexes the others', async () => {
    ctx = await freshStore()
    const { store } = ctx
    const owner = store.state.activeId
    await store.command({ op: 'memory.add', target: { profileId: owner }, items: [{ text: '用户住在杭州' }] })
    await store.close()
    // Another program writes an item whose keys are a number, and the index is gone (rebuilt from the rows at open).
    sql(
      store.file,
      `INSERT INTO memory_items (profile_id, id, pos, data) VALUES ('${owner}', 'odd', 999, '{"id":"odd","text":"杭州的钥匙","keys":5,"source":"user","at":1}');
       UPDATE meta SET value = value + 1 WHERE key = 'revision';
       DROP TABLE memory_fts; DROP TABLE memory_docs`,
    )
    const again = await openStore({ file: store.file })
    try {
      expect(again.lastError).toBeNull()
      const ids = again.searchIndex((index) => index.containing(owner, '杭州'))
      expect(ids).toHaveLength(1)
      expect(ids).not.toContain('odd')
    } finally {
      await again.close()
    }
  })
})
