/**
 * The turn ledger's memory and model columns: the memory items each turn's requests carried are kept with the turn,
 * read back per turn and counted per conversation, across a restart and in another process; the model and parameters
 * of its latest request are kept with it, a later step's replacing an earlier one's; bad input is refused naming the
 * field; a database whose ledger predates a column gains it when opened, keeping every turn it had.
 */
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import type { UsedMemory } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => ctx?.dispose())

const used: UsedMemory[] = [
  { id: 'm-1', text: '用户叫小林', layer: 'profile' },
  { id: 'm-2', text: '本对话在准备面试', layer: 'conversation' },
]

describe('the memory items of each turn', () => {
  it('are kept with the turn, counted per conversation, and read the same after a restart and in another process', async () => {
    const { store } = (ctx = await freshStore())
    const other = await ctx.open()
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
    await store.command({
      op: 'turn.record',
      sessionId: 's-1',
      turn: 1,
      profileId: 'general',
      memories: [...used, { id: 'm-3', text: '新的', layer: 'profile' }],
    })
    expect(other.turnMemoryCounts('s-1')[1]).toBe(3)
    await store.close()
    const again = await ctx.open()
    expect(again.turnMemories('s-1', 1)?.map((m) => m.id)).toEqual(['m-1', 'm-2', 'm-3'])
    expect(again.turnMemoryCounts('s-2')).toEqual({})
  })

  it('refuses malformed items naming the field, and records nothing', async () => {
    const { store } = (ctx = await freshStore())
    await expectRefused(
      store,
      { op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general', memories: 'x' } as never,
      { code: 'invalid', field: 'memories' },
    )
    await expectRefused(
      store,
      {
        op: 'turn.record',
        sessionId: 's-1',
        turn: 1,
        profileId: 'general',
        memories: [{ id: 'm-1', text: 'x', layer: 'everyone' }],
      } as never,
      { code: 'invalid', field: 'memories[0].layer' },
    )
    await expectRefused(
      store,
      {
        op: 'turn.record',
        sessionId: 's-1',
        turn: 1,
        profileId: 'general',
        memories: [{ id: 'm-1', text: 'x'.repeat(1001), layer: 'profile' }],
      } as never,
      { code: 'invalid', field: 'memories[0].text' },
    )
    expect(store.turnsOf('s-1')).toEqual({})
  })

  it('a database whose ledger predates the column gains it when opened, keeping every turn', async () => {
    const { store: first, file } = (ctx = await freshStore())
    await first.command({ op: 'turn.record', sessionId: 's-old', turn: 1, profileId: 'writer' })
    await first.close()
    const db = new DatabaseSync(first.file)
    db.exec('ALTER TABLE turns DROP COLUMN memories')
    db.exec('ALTER TABLE turns DROP COLUMN model')
    // A database of schema 1, as the code before numbered migrations made it: migration 2 brings it up.
    db.exec("DELETE FROM meta WHERE key = 'schema'")
    expect((db.prepare('PRAGMA table_info(turns)').all() as { name: string }[]).map((c) => c.name)).toEqual([
      'session_id',
      'turn',
      'profile_id',
    ])
    db.close()
    const store = await ctx.open(file)
    expect(store.lastError).toBeNull()
    expect(store.turnsOf('s-old')).toEqual({ 1: 'writer' })
    expect(store.turnMemoryCounts('s-old')).toEqual({})
    await store.command({ op: 'turn.record', sessionId: 's-old', turn: 2, profileId: 'writer', memories: used })
    expect(store.turnMemories('s-old', 2)).toEqual(used)
    expect(store.turnsOf('s-old')).toEqual({ 1: 'writer', 2: 'writer' })
  })
})

describe('the model of each turn', () => {
  /** The model column of a conversation's turns, by turn, read without writing. */
  function models(file: string, sessionId: string): Record<number, unknown> {
    const db = new DatabaseSync(file, { readOnly: true })
    try {
      const rows = db.prepare('SELECT turn, model FROM turns WHERE session_id = ?').all(sessionId) as {
        turn: number
        model: string | null
      }[]
      return Object.fromEntries(rows.map((r) => [r.turn, r.model === null ? null : JSON.parse(r.model)]))
    } finally {
      db.close()
    }
  }

  it('is kept with the turn, a later step of it replacing the earlier, and a turn recorded without one keeps none', async () => {
    const { store } = (ctx = await freshStore())
    const file = store.file
    const pro = { provider: 'deepseek-official', model: 'deepseek-v4-pro', reasoningEffort: 'low', temperature: 0.3 }
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'coder', memories: used })
    await store.command({
      op: 'turn.record',
      sessionId: 's-1',
      turn: 1,
      profileId: 'coder',
      memories: used,
      model: pro,
    })
    const flash = { provider: 'deepseek-official', model: 'deepseek-v4-flash', maxTokens: 4096 }
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 2, profileId: 'general', model: flash })
    await store.command({ op: 'turn.record', sessionId: 's-1', turn: 3, profileId: 'general' })
    await store.close()
    expect(models(file, 's-1')).toEqual({ 1: pro, 2: flash, 3: null })
    expect((await ctx.open()).turnMemories('s-1', 1)).toEqual(used)
  })

  it('refuses a malformed model naming the field, and records nothing', async () => {
    const { store } = (ctx = await freshStore())
    const turn = { op: 'turn.record', sessionId: 's-1', turn: 1, profileId: 'general' } as const
    const model = { provider: 'deepseek-official', model: 'deepseek-v4-pro' }
    await expectRefused(store, { ...turn, model: { ...model, model: '' } } as never, {
      code: 'invalid',
      field: 'model.model',
    })
    await expectRefused(store, { ...turn, model: { ...model, maxTokens: 1.5 } } as never, {
      code: 'invalid',
      field: 'model.maxTokens',
    })
    await expectRefused(store, { ...turn, model: { ...model, temperature: Infinity } } as never, {
      code: 'invalid',
      field: 'model.temperature',
    })
    expect(store.turnsOf('s-1')).toEqual({})
  })

  it('a database of schema 2, whose ledger has no model column, gains it when opened, keeping every turn', async () => {
    const { store: first } = (ctx = await freshStore())
    const file = first.file
    await first.command({ op: 'turn.record', sessionId: 's-old', turn: 1, profileId: 'writer', memories: used })
    await first.close()
    const db = new DatabaseSync(file)
    db.exec("ALTER TABLE turns DROP COLUMN model; UPDATE meta SET value = 2 WHERE key = 'schema'")
    db.close()
    const store = await ctx.open(ctx.file)
    expect(store.lastError).toBeNull()
    expect(store.turnMemories('s-old', 1)).toEqual(used)
    const model = { provider: 'deepseek-official', model: 'deepseek-v4-pro' }
    await store.command({ op: 'turn.record', sessionId: 's-old', turn: 2, profileId: 'writer', model })
    await store.close()
    expect(models(file, 's-old')).toEqual({ 1: null, 2: model })
  })
})
