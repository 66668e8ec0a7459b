/**
 * A learning run as it meets the real `dsh web` and the offline model (issue #46), over the page's routes: 50 ChatGPT
 * conversations learned into suggestions with where each came from; dsh killed (SIGKILL) with a call out, restarted on
 * the same home, and the run resumes without sending again any call that was answered (counted at the model server);
 * a canceled run keeps what the user approved meanwhile; one undo takes the whole import away, approved or not; and a
 * profile whose memory is off learns nothing, at no model call.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { LearnPick, LearnPlanReply, LearnRunReply, LearnRunStatus } from '../../lib/shared/learn.ts'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import { makeHome } from '../support/dsh.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import { chatGptExport, exportZip } from '../support/learn-exports.ts'
import { kindOf } from '../support/memory-requests.ts'
import {
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'

const home = makeHome(['web'])
let model: ModelServer | undefined
let host: Host | undefined
afterAll(async () => {
  await host?.stop()
  await model?.close()
  home.cleanup()
})

const INTO: LearnPick = { into: { user: true } }
/** What one call asks about: its last message, the fence's random mark (new on every send) taken out. */
const material = (r: RecordedRequest) =>
  textOf(r.messages.at(-1)!).replace(/<<<(材料(?:结束)?) [0-9a-f]+>>>/g, '<<<$1>>>')
const extracts = () => model!.requests.filter((r) => kindOf(r) === 'extract')
/** The fact the model finds in conversation `c` of export `tag`: in the call holding its first question only. */
const factOf = (tag: string, c: number) => `用户在${tag}里提到收藏了第${c}号邮票`
function finds(tag: string, count: number): (r: RecordedRequest) => Reply {
  return (r) => {
    const c = Array.from({ length: count }, (_, i) => i).find((i) => material(r).includes(`(#${i}.0)`))
    return { text: c === undefined ? '无' : `- [用户] ${factOf(tag, c)}` }
  }
}

const get = async <T>(path: string): Promise<T> => (await (await fetch(`${host!.web.url}${path}`)).json()) as T
const run = async (): Promise<LearnRunStatus | undefined> => (await get<LearnRunReply>('/__ap/learn/run')).run
const userItems = async () => (await get<UserReply>('/__ap/user')).items
async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${host!.web.url}${path}`, postJson(body))
  const text = await res.text()
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** Send `conversations` as the export the service mailed. */
async function sendExport(conversations: unknown[]): Promise<void> {
  const sent = await fetch(`${host!.web.url}/__ap/learn/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/zip' },
    body: new Uint8Array(exportZip(conversations)),
  })
  expect(await sent.json()).toMatchObject({ found: { service: 'chatgpt', conversations: conversations.length } })
}

/** Start learning every conversation of the export sent last into About you. */
const startLearning = async (): Promise<LearnRunStatus> => (await post<LearnRunReply>('/__ap/learn/start', INTO)).run!

/** The run once `done(run)` holds, asked every 100 ms. */
async function runUntil(done: (r: LearnRunStatus | undefined) => boolean): Promise<LearnRunStatus> {
  await expect.poll(async () => done(await run()), { timeout: 120_000, interval: 100 }).toBe(true)
  return (await run())!
}

describe('a learning run on the real host', () => {
  it('learns 50 conversations into suggestions with their origin, and a SIGKILL mid-run repeats no answered call', async () => {
    const made = chatGptExport(50, 21)
    const STALL_AT = 20
    let stalling = true
    model = await startModelServer()
    const answer = finds('A', 50)
    model.respond((r) => {
      if (kindOf(r) !== 'extract') return undefined
      // The 20th call never gets its answer: dsh is killed while it is out.
      return stalling && extracts().length === STALL_AT ? { stall: true } : answer(r)
    })
    host = await bootHost(model, { home })
    await sendExport(made.conversations)
    const plan = await post<LearnPlanReply>('/__ap/learn/plan', INTO)
    expect(plan.conversations).toBe(50)
    const started = await startLearning()
    expect(started.total).toBe(plan.calls)
    await model.waitFor((r) => kindOf(r) === 'extract', STALL_AT, 120_000)
    await runUntil((r) => r?.done === STALL_AT - 1)
    const stalled = material(extracts()[STALL_AT - 1]!)
    process.kill(host.web.pid, 'SIGKILL')
    // The next host boots on the same home only once this one is gone (its process closed), never beside it.
    await host.web.stop()

    stalling = false
    host = await bootHost(model, { home })
    const end = await runUntil((r) => r?.state === 'done')
    expect(end).toMatchObject({ id: started.id, done: plan.calls, total: plan.calls })
    // Every call went out once, but the one that was out when dsh died, which went out again.
    const sent = extracts().map(material)
    expect(sent).toHaveLength(plan.calls + 1)
    const times = new Map<string, number>()
    for (const m of sent) times.set(m, (times.get(m) ?? 0) + 1)
    expect([...times].filter(([, n]) => n > 1).map(([m, n]) => [m === stalled, n])).toEqual([[true, 2]])

    const learned = (await userItems()).filter((it) => it.importId === started.id)
    expect(learned).toHaveLength(50)
    made.conversations.forEach((conv, c) => {
      const { title, create_time } = conv as { title: string; create_time: number }
      const day = new Date(create_time * 1000).toISOString().slice(0, 10)
      const item = learned.find((it) => it.text === factOf('A', c))
      expect(item, `conversation ${c}`).toMatchObject({
        pending: true,
        source: 'import',
        origin: `ChatGPT, ${day}, '${title}'`,
      })
    })
    expect(end.facts).toBe(50)
  }, 400_000)

  it('keeps what the user approved when the run is canceled, and one undo takes the whole import away', async () => {
    // On from the host the first test restarted: its import stays as it is throughout.
    const first = (await userItems()).filter((it) => it.importId !== undefined).map((it) => it.id)
    await host!.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户叫小王' }] })
    const HELD_AT = 4
    const answer = finds('B', 8)
    let held = 0
    model!.respond((r) => {
      if (kindOf(r) !== 'extract') return undefined
      // The 4th call of this run answers late: the user cancels while it is out.
      return ++held === HELD_AT ? { ...answer(r), delayMs: 3000 } : answer(r)
    })
    const before = extracts().length
    await sendExport(chatGptExport(8, 22).conversations)
    const started = await startLearning()
    await model!.waitFor((r) => kindOf(r) === 'extract', before + HELD_AT, 120_000)
    await runUntil((r) => r?.done === HELD_AT - 1)
    const suggested = (await userItems()).filter((it) => it.importId === started.id)
    expect(suggested.map((it) => it.pending)).toEqual([true, true, true])
    const approved = suggested.slice(0, 2).map((it) => it.id)
    await host!.command({ op: 'memory.decide', target: { user: true }, verdict: 'approve', itemIds: approved })
    await post('/__ap/learn/control', { action: 'cancel' })
    const end = await runUntil((r) => r?.state === 'canceled')
    expect(end.id).toBe(started.id)
    // The call that was out is answered and kept (a cancel takes effect after it); no call goes out after it.
    // (At least: a cancel that let the run go on would pass the 4th before this looks.)
    await runUntil((r) => (r?.done ?? 0) >= HELD_AT)
    expect((await run())!).toMatchObject({ state: 'canceled', done: HELD_AT })
    expect(extracts().length).toBe(before + HELD_AT)
    const kept = (await userItems()).filter((it) => approved.includes(it.id))
    expect(kept.map((it) => [it.approved, it.pending])).toEqual([
      [true, undefined],
      [true, undefined],
    ])

    // Undo this import: everything it brought goes, approved or not; the other import and the typed fact stay.
    const undone = await host!.command<{ removed: number }>({
      op: 'memory.unlearn',
      target: { user: true },
      importId: started.id,
    })
    expect(undone.removed).toBeGreaterThanOrEqual(3)
    const after = await userItems()
    expect(after.filter((it) => it.importId === started.id)).toEqual([])
    expect(after.filter((it) => it.importId !== undefined).map((it) => it.id)).toEqual(first)
    expect(after.map((it) => it.text)).toContain('用户叫小王')
    // Still no call after the cancel, once the undo's requests went by.
    expect(extracts().length).toBe(before + HELD_AT)
    expect((await run())!.done).toBe(HELD_AT)
  }, 300_000)

  it('learns nothing into a profile whose memory is off, and sends the model nothing', async () => {
    // On the same host: the canceled run of the test before is the last run, and stays it.
    await host!.command({ op: 'profile.update', id: 'general', patch: { memoryEnabled: false } })
    const before = extracts().length
    const items = (await host!.profile('general')).memory.items
    await sendExport(chatGptExport(3, 23).conversations)
    const pick = { into: { profileId: 'general' } }
    for (const path of ['/__ap/learn/plan', '/__ap/learn/start']) {
      const res = await fetch(`${host!.web.url}${path}`, postJson(pick))
      expect(res.status, path).toBe(409)
      expect(((await res.json()) as { error: { rule?: string } }).error.rule, path).toBe('learn.memory-off')
    }
    expect((await run())!.state).toBe('canceled')
    expect(extracts().length).toBe(before)
    expect((await host!.profile('general')).memory.items).toEqual(items)
  }, 120_000)
})
