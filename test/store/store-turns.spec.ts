/**
 * The turn ledger's memory column: the memory items each turn's requests carried are kept with the turn, read back
 * per turn and counted per conversation, across a restart and in another process; bad input is refused naming the
 * field; a database whose ledger predates the column gains it when opened, keeping every turn it had.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore, type ProfileStore } from '../../lib/store/store.ts'
import type { UsedMemory } from '../../lib/shared/model.ts'
import { tempDir } from '../support/store-fixtures.ts'
import { expectRefused } from '../support/store-helpers.ts'

const dirs: { dispose(): Promise<void> }[] = []
const stores: ProfileStore[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await d.dispose()
})

async function open(file: string): Promise<ProfileStore> {
  const store = await openStore({ file })
  stores.push(store)
  return store
}

const used: UsedMemory[] = [
  { id: 'm-1', text: '用户叫小林', layer: 'profile' },
  { id: 'm-2', text: '本对话在准备面试', layer: 'conversation' },
]

describe('the memory items of each turn', () => {
  it('are kept with the turn, counted per conversation, and read the same after a restart and in another process', async () => {
    const d = await tempDir('ap-turns')
    dirs.push(d)
    const store = await open(d.file)
    const other = await open(d.file)
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: used })
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 2, profileId: 'general', memories: [] })
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 3, profileId: 'coder' })
    expect(store.turnsOf('s-1')).toEqual({ 1: 'general', 2: 'general', 3: 'coder' })
    expect(store.turnMemoryCounts('s-1')).toEqual({ 1: 2, 2: 0 })
    expect(store.turnMemories('s-1', 1)).toEqual(used)
    expect(store.turnMemories('s-1', 2)).toEqual([])
    expect(store.turnMemories('s-1', 3)).toBeUndefined()
    expect(other.turnMemories('s-1', 1)).toEqual(used)
    // A later step of the same turn records the turn again, with what it added.
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: [...used, { id: 'm-3', text: '新的', layer: 'profile' }] })
    expect(other.turnMemoryCounts('s-1')[1]).toBe(3)
    await store.close()
    stores.splice(stores.indexOf(store), 1)
    const again = await open(d.file)
    expect(again.turnMemories('s-1', 1)?.map((m) => m.id)).toEqual(['m-1', 'm-2', 'm-3'])
    expect(again.turnMemoryCounts('s-2')).toEqual({})
  })

  it('refuses malformed items naming the field, and records nothing', async () => {
    const d = await tempDir('ap-turns')
    dirs.push(d)
    const store = await open(d.file)
    await expectRefused(store, { op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: 'x' } as never, { code: 'invalid', field: 'memories' })
    await expectRefused(store, { op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: [{ id: 'm-1', text: 'x', layer: 'everyone' }] } as never, { code: 'invalid', field: 'memories[0].layer' })
    await expectRefused(store, { op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: [{ id: 'm-1', text: 'x'.repeat(1001), layer: 'profile' }] } as never, { code: 'invalid', field: 'memories[0].text' })
    expect(store.turnsOf('s-1')).toEqual({})
  })

  it('a database whose ledger predates the column gains it when opened, keeping every turn', async () => {
    const d = await tempDir('ap-turns')
    dirs.push(d)
    const first = await open(d.file)
    await first.command({ op: 'turn.record', sessionId: 's-old', turn: 1, profileId: 'writer' })
    await first.close()
    stores.splice(0)
    const db = new DatabaseSync(first.file)
    db.exec('ALTER TABLE turns DROP COLUMN memories')
    expect((db.prepare('PRAGMA table_info(turns)').all() as { name: string }[]).map((c) => c.name)).toEqual(['session_id', 'turn', 'profile_id'])
    db.close()
    const store = await open(d.file)
    expect(store.lastError).toBeNull()
    expect(store.turnsOf('s-old')).toEqual({ 1: 'writer' })
    expect(store.turnMemoryCounts('s-old')).toEqual({})
    await store.command({ op: 'turn.record', sessionId: 's-old', turn: 2, profileId: 'writer', memories: used })
    expect(store.turnMemories('s-old', 2)).toEqual(used)
    expect(store.turnsOf('s-old')).toEqual({ 1: 'writer', 2: 'writer' })
  })
})
