/**
 * Two real dsh processes on one data directory, end to end: a headless run beside a running `dsh web`. What the
 * headless run's model saves with `memory_save` is in `dsh web`'s state and in the system prompt of its next new
 * conversation, though `dsh web` saved nothing meanwhile (a conversation already running keeps its memory, cache-stable,
 * until it is refreshed); and `dsh web` saving while the headless run saves is never refused.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeHome, runHeadless, type Home } from '../support/dsh.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, savesMemory, startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let home: Home
let host: Host

beforeAll(async () => {
  model = await startModelServer()
  home = makeHome(['headless', 'web'])
  host = await bootHost(model, { home })
})
afterAll(async () => {
  await host?.stop()
  await model?.close()
  home?.cleanup()
})

/** The memory items of the global default, as saved now. */
const memoriesOf = async () =>
  (await host.profile((await host.read()).state.activeId)).memory.items.map((it) => it.text)

it("a headless run's memory_save is in dsh web's state and its next conversation's prompt, with no save by dsh web", async () => {
  const sessionId = await host.conversation()
  const [first] = await host.say(sessionId, '第一句：你好')
  expect(first!.system).not.toContain('用户住在杭州')

  model.respond(savesMemory(['用户住在杭州']))
  const run = await runHeadless(home, model, '请记住我住在杭州')
  model.respond(undefined)
  expect(run.code, run.stderr).toBe(0)

  // dsh web has not saved anything since: its next read already has the headless run's memory.
  expect(await memoriesOf()).toContain('用户住在杭州')
  const [fresh] = await host.say(await host.conversation(), '新对话：我住在哪里？')
  expect(fresh!.system).toContain('用户住在杭州')
  // The conversation that was running keeps the prompt it had, until the user refreshes its memory.
  const [next] = await host.say(sessionId, '第二句：我住在哪里？')
  expect(next!.system).toBe(first!.system)
  await host.command({ op: 'session.refreshMemory', sessionId })
  const [refreshed] = await host.say(sessionId, '第三句：我住在哪里？')
  expect(refreshed!.system).toContain('用户住在杭州')
  expect(host.web.output()).not.toMatch(/agent-profiles.*(failed|refused|locked)/i)
}, 240_000)

it('dsh web saving while a headless run saves: neither is refused and both saves are kept', async () => {
  model.respond(savesMemory(['用户养了一只猫']))
  const running = runHeadless(home, model, '请记住我养了一只猫')
  // The saves start once the headless run asks the model (it has booted and opened the store), so that they land
  // while it saves, not before it started: its boot alone may take longer than all 20 saves on a loaded machine.
  await model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes('养了一只猫'), 1, 120_000)
  const saves: Promise<unknown>[] = []
  for (let i = 0; i < 20; i++) {
    saves.push(host.command({ op: 'session.set', sessionId: `web-${i}`, patch: { note: `网页保存 ${i}` } }))
    // Pacing, not a wait for anything: it spreads the saves over the run's memory_save write and its exit.
    await new Promise((r) => setTimeout(r, 100))
  }
  await Promise.all(saves)
  const run = await running
  model.respond(undefined)
  expect(run.code, run.stderr).toBe(0)
  expect(await memoriesOf()).toEqual(expect.arrayContaining(['用户住在杭州', '用户养了一只猫']))
  // The 20 notes, and the first conversation, whose refresh stamp is a setting of its own.
  expect((await host.read()).state.conversations).toBe(21)
}, 240_000)
