/**
 * Pins the record of a turn (lib/turn/record.ts): the prompt part and recall write their shares into one record per
 * turn, on the real dsh spine with a real store, and a new turn starts an empty record, so nothing of one turn carries
 * into the next; the ledger keeps what the record holds.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import { installPrompt } from '../../lib/prompt/install.ts'
import { installRecall } from '../../lib/memory/recall-install.ts'
import { TurnRecords } from '../../lib/turn/record.ts'
import { TurnLedger } from '../../lib/turn/ledger.ts'
import { boot, type Harness } from '../support/memory-harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

describe('the record of a turn', () => {
  it('starts empty for each new turn and keeps what the turn it belongs to was given', () => {
    const records = new TurnRecords()
    const first = records.at('s', 1)
    first.speakerId = 'a'
    first.recalled = [{ id: 'm', text: '豆豆', layer: 'profile', recalled: true, at: 1 }]
    first.model = { provider: 'p', model: 'big', temperature: 0.2 }
    expect(records.at('s', 1)).toBe(first)
    const second = records.at('s', 2)
    expect(second).toEqual({ sessionId: 's', turn: 2, core: [], recalled: [] })
    expect(records.find('s', 1)).toBeUndefined()
    expect(records.find('s', 2)).toBe(second)
  })

  it('holds who answered, the memory half and what recall sent; the next turn holds only its own', async () => {
    h = await boot()
    const harness = h
    const records = new TurnRecords(new TurnLedger(harness.store, harness.log))
    await harness.ctx.plugin({
      name: 'agent-profiles-record-spec',
      apply: (c: Context) => {
        const p = installPrompt(c, harness.store, harness.config, harness.log, { records })
        installRecall(c, harness.store, harness.config, harness.log, (agent) => p.core(agent), records)
      },
    })
    const owner = harness.store.state.activeId
    const items = [
      {
        id: 'pin',
        text: '用户希望回答先给结论',
        source: 'user' as const,
        at: Date.UTC(2024, 0, 1),
        pinned: true as const,
      },
      { id: 'dog', text: '用户养了一只叫豆豆的柯基犬', source: 'user' as const, at: Date.UTC(2024, 5, 1) },
      ...Array.from({ length: 300 }, (_, i) => ({
        id: `f${i}`,
        text: `第${i}条记录：项目${i % 37}的会议纪要，讨论了进度与预算`,
        source: 'auto' as const,
        at: Date.UTC(2025, 0, 1) + i * 3_600_000,
      })),
    ]
    await harness.store.command({ op: 'profile.update', id: owner, patch: { memory: { summary: '', items } } })
    const agent = await harness.conversation('sess-record')
    await harness.turn(agent, '我的柯基犬叫什么名字？')
    const first = records.find(agent.id, 1)!
    expect(first.speakerId).toBe(owner)
    expect(first.core.map((u) => u.id)).toContain('pin')
    expect(first.recalled.map((u) => u.text)).toEqual(['用户养了一只叫豆豆的柯基犬'])
    await harness.turn(agent, '谢谢')
    const second = records.find(agent.id, 2)!
    expect(second.recalled).toEqual([])
    expect(second.core.map((u) => u.id)).toContain('pin')
    const ledger = (turn: number) => (harness.store.turnMemories('sess-record', turn) ?? []).filter((u) => u.recalled)
    // The ledger is written as the requests go out, not awaited by the turn: read until turn 2's row is there.
    await expect.poll(() => harness.store.turnMemories('sess-record', 2)).toBeDefined()
    expect(ledger(1).map((u) => u.text)).toEqual(['用户养了一只叫豆豆的柯基犬'])
    expect(ledger(2)).toEqual([])
  })
})
