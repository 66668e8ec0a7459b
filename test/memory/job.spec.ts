/**
 * Background extraction's discipline (lib/memory/job.ts) on the real dsh spine: when it asks (every N completed turns,
 * after a quiet moment, never twice at once for one conversation), what it sends, unloading mid-run, memory off, data
 * of a newer version, and subagents.
 */
import { describe, expect, it } from 'vitest'
import { DatabaseSync } from 'node:sqlite'
import { SCHEMA_VERSION } from '../../lib/store/db/schema.ts'
import { h, job, probeJob, start, active, turns, split, runs, closeJobEachTest } from '../support/memory-job.ts'

closeJobEachTest()

describe('background extraction', () => {
  it("asks once after every 5 completed turns, on the conversation's own model, within the size bounds", async () => {
    await start()
    const agent = await h.conversation('s-five')
    await turns(agent, 4, (i) => `第 ${i} 轮` + '很长的叙述'.repeat(400))
    await h.turn(agent, '第 5 轮：我在写一个记账应用')
    // The first request is the fifth turn's: a run started by any of the four before it would have come first.
    const [request] = await h.model.until('extract')
    await runs(1)
    expect(request!.options).toMatchObject({ provider: 'mock', model: 'm', maxTokens: 800 })
    expect(request!.options.tools ?? []).toHaveLength(0)
    const { excerpt, rest } = split(request!)
    expect(excerpt.length).toBeLessThanOrEqual(6000)
    expect(excerpt.length).toBeGreaterThan(5000)
    expect(excerpt).toContain('第 5 轮：我在写一个记账应用')
    expect(rest).toBeLessThanOrEqual(1500)
    await turns(agent, 4)
    await h.turn(agent, '第 10 轮：用户换了工作')
    // Likewise the second is the tenth turn's, and nothing ran for the four between.
    const second = (await h.model.until('extract', 2))[1]!
    expect(split(second).excerpt).toContain('第 10 轮：用户换了工作')
    await runs(2)
    expect(h.model.of('extract')).toHaveLength(2)
  })

  it('waits for a quiet moment: nothing is sent to the model until the conversation has been idle for idleMs', async () => {
    await start({ memory: { everyTurns: 1, idleMs: 400 } })
    const agent = await h.conversation('s-quiet')
    h.model.script('extract', { text: '- 用户住在杭州' })
    const before = Date.now()
    await h.turn(agent, '我住在杭州')
    await h.model.until('extract', 1)
    // A lower bound only (a loaded machine makes the gap longer, never shorter): the turn ended after `before`, and
    // the request waited the whole quiet moment after it.
    expect(Date.now() - before).toBeGreaterThanOrEqual(400)
    await runs(1)
    expect(active().memory.items.map((it) => it.text)).toContain('用户住在杭州')
  })

  it('never runs twice at once for one conversation: overlapping triggers fold into one follow-up run', async () => {
    // No quiet time, so the second and third triggers arrive while the first run is still waiting on the model.
    await start({ memory: { everyTurns: 1, idleMs: 0 } })
    const agent = await h.conversation('s-overlap')
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    h.model.script('extract', { gate, text: '- 用户在写一个记账应用' }, { text: '- 用户偏好深色主题' })
    await h.turn(agent, '一')
    await h.model.until('extract', 1)
    await h.turn(agent, '二')
    await h.turn(agent, '三')
    // The triggers of both turns were handled (folded into the follow-up) while the first run still waits.
    await expect.poll(() => job.status().totals.coalesced).toBe(1)
    expect(h.model.of('extract')).toHaveLength(1)
    expect(job.status().running).toEqual(['s-overlap'])
    release()
    await runs(2)
    expect(h.model.peak.extract).toBe(1)
    // One more turn starts the third run: its request is the third, so the fold left no extra run behind.
    h.model.script('extract', { text: '- 用户住在杭州' })
    await h.turn(agent, '四：我住在杭州')
    const third = (await h.model.until('extract', 3))[2]!
    expect(split(third).excerpt).toContain('四：我住在杭州')
    await runs(3)
    expect(h.model.of('extract')).toHaveLength(3)
    expect(active().memory.items.map((it) => it.text)).toEqual(
      expect.arrayContaining(['用户在写一个记账应用', '用户偏好深色主题']),
    )
  })

  it('unloading mid-run cancels the model call and leaves no trace: no record, no fact, no log line, no later run', async () => {
    const fiber = await start({ memory: { everyTurns: 1, idleMs: 0 } })
    const agent = await h.conversation('s-unload')
    let release!: () => void
    h.model.script(
      'extract',
      {
        gate: new Promise<void>((r) => {
          release = r
        }),
        text: '- 用户住在杭州',
      },
      { text: '- 用户喜欢爬山' },
    )
    await h.turn(agent, '我住在杭州')
    await h.model.until('extract', 1)
    await h.turn(agent, '我喜欢爬山')
    await fiber.dispose()
    release()
    // A second job installed now sees the next turn; once its run is recorded, that turn's triggers have all fired,
    // and the unloaded job's cancelled call has long been answered.
    const probe = await probeJob()
    await h.turn(agent, '还在吗')
    await expect.poll(() => probe.status().totals.runs).toBe(1)
    expect(h.model.of('extract')).toHaveLength(2)
    expect(job.status().totals.runs).toBe(0)
    // Only the probe's fact: the unloaded job stored nothing of its answered call.
    expect(active().memory.items.map((it) => it.text)).toEqual(['用户喜欢爬山'])
    expect([...h.logged.warn, ...h.logged.error].filter((l) => l.includes('memory extraction'))).toEqual([])
  })

  it('does not mine a conversation whose profile has memory off, nor anything when turned off globally', async () => {
    await start({ memory: { everyTurns: 1 } })
    await h.store.command({ op: 'profile.update', id: active().id, patch: { memoryEnabled: false } })
    await h.turn(await h.conversation('s-off'), '你好')
    const status = await runs(1)
    expect(status.runs[0]).toMatchObject({ outcome: 'skipped', skip: 'memory-off' })
    expect(h.model.of('extract')).toHaveLength(0)
    await h.close()

    await start({ memory: { everyTurns: 1, autoExtract: false } })
    // A job that is on, beside it, runs for the turn: once its run is recorded, the turn's triggers have all fired.
    const probe = await probeJob()
    await h.turn(await h.conversation('s-global-off'), '你好')
    await expect.poll(() => probe.status().totals.runs).toBe(1)
    expect(h.model.of('extract')).toHaveLength(1)
    expect(job.status().totals.runs).toBe(0)
    expect(job.status()).toMatchObject({ enabled: false, available: false })
  })

  it('data a newer version of the plugin made: the model is not asked and nothing is written', async () => {
    await start({ memory: { everyTurns: 1 } })
    await h.store.command({ op: 'profile.update', id: active().id, patch: { rules: '旧版本写的' } })
    const before = h.store.revision
    // A newer version moves the database on: this store may read it, never write it.
    const db = new DatabaseSync(h.store.file)
    db.exec(`UPDATE meta SET value = ${SCHEMA_VERSION + 1} WHERE key = 'schema'`)
    db.close()
    expect(h.store.readOnly?.kind).toBe('newer')
    h.model.script('extract', { text: '- 用户在写一个记账应用' })
    await h.turn(await h.conversation('s-newer'), '我在写一个记账应用')
    const status = await runs(1)
    expect(status.runs[0]).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/newer version of this plugin/),
    })
    expect(h.model.of('extract')).toHaveLength(0)
    expect(h.store.revision).toBe(before)
    expect(active().memory.items).toEqual([])
  })

  it('counts only completed turns, and ignores subagents', async () => {
    await start({ memory: { everyTurns: 2 } })
    const agent = await h.conversation('s-count')
    h.model.script('turn', { fail: { code: 'HTTP_500', message: 'boom', status: 500 } })
    await h.turn(agent, '失败的一轮')
    await h.turn(agent, '成功的一轮')
    const child = await h.conversation('s-sub', { subagentOf: 's-count' })
    await turns(child, 2, (i) => `子任务第 ${i} 轮`)
    await h.turn(agent, '第二个成功的一轮')
    // The first request is the second completed turn's: a run counting the failed turn, or the subagent's, would have
    // come first.
    const [request] = await h.model.until('extract')
    expect(split(request!).excerpt).toContain('第二个成功的一轮')
    expect(request!.prompt).not.toContain('子任务')
    await runs(1)
    expect(h.model.of('extract')).toHaveLength(1)
  })
})
