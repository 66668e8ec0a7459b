/**
 * Learning from the user's own past dsh conversations (issue #46) against the real `dsh web` and the offline model:
 * conversations the real host ran and kept are read back through its session query, chosen by workspace, and learned
 * by the same run as an export. The model receives only what the user typed (never the answers), each call within the
 * extraction's bound; suggestions say "dsh, YYYY-MM-DD"; incognito conversations and those of a profile whose memory
 * is off are never read; a memory whose profile has memory off learns nothing; a second read leaves out what was
 * learned, across a restart of dsh, and "Undo this import" of the run offers its conversations again (until that undo
 * is reverted from the memory's history, which brings its facts back and leaves the conversations out again); a second
 * `dsh web` on the same home shows the page the run the first runs, as it goes, and refuses to pause or resume it
 * (the first holds it).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { LearnPastReply, LearnRunReply } from '../../lib/shared/learn.ts'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import type { MemoryHistoryEntry } from '../../lib/shared/memory-target.ts'
import { MATERIAL } from '../../lib/memory/job.ts'
import { unframe } from '../../lib/memory/lines.ts'
import { bootHost, postJson, type Host } from '../support/host-api.ts'
import { textOf, type RecordedRequest } from '../support/model-server.ts'
import { kindOf, memoryHostForSpec, until } from '../support/memory-requests.ts'

// No background extraction: every extraction request the model gets is the learning run's.
const env = memoryHostForSpec({ autoExtract: false })

const FACT = '住在青岛，养了一只叫豆豆的柯基'
const ANSWER = 'ASSISTANT-ANSWER 这是助手自己的话'
/** A message longer than one call's material (6,000 characters), so its conversation takes several calls. */
const LONG = `PAST-LONG ${'我每天早上去海边跑步。'.repeat(800)}`

async function call<T>(host: Host, path: string, body: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${host.web.url}/__ap/learn/${path}`, postJson(body))
  return { status: res.status, json: (await res.json()) as T }
}

async function runToEnd(host: Host): Promise<LearnRunReply> {
  return await until(
    'the learning run to end',
    async () => {
      const reply = (await (await fetch(`${host.web.url}/__ap/learn/run`)).json()) as LearnRunReply
      return reply.run?.state === 'running' ? undefined : reply
    },
    120_000,
  )
}

const materialOf = (r: RecordedRequest): string => unframe(MATERIAL, textOf(r.messages.at(-1)!))?.body ?? ''

it('learns what the user typed in past conversations of a workspace, and nothing kept out of memory', async () => {
  const { host, model, answers } = env
  answers.script = (r, kind) => {
    if (kind === 'turn') return { text: ANSWER }
    if (kind === 'extract') return { text: materialOf(r).includes('PAST-A') ? `- [用户] ${FACT}` : '无' }
    return undefined
  }
  // Past conversations the real host ran: two in the home's workspace, one in another folder.
  const a = await host.conversation()
  await host.say(a, 'PAST-A 我住在青岛')
  const long = await host.conversation()
  await host.say(long, LONG.slice(0, 200))
  await host.say(long, LONG)
  const elsewhere = join(host.home.workspace, '..', 'elsewhere')
  mkdirSync(elsewhere, { recursive: true })
  const other = (await host.rpc<{ sessionId: string }>('session.create', { cwd: elsewhere })).sessionId
  await host.say(other, 'PAST-OTHER 另一个工作区')
  // One incognito, one answered by a profile whose memory is off: what the user kept out of memory.
  const secret = await host.conversation()
  await host.command({ op: 'session.set', sessionId: secret, patch: { incognito: true } })
  await host.say(secret, 'PAST-INCOGNITO 秘密')
  const { profile: quiet } = await host.command<{ profile: { id: string } }>({
    op: 'profile.create',
    profile: { name: 'Quiet', memoryEnabled: false },
  })
  const muted = await host.conversation()
  await host.command({ op: 'session.set', sessionId: muted, patch: { profileId: quiet.id } })
  await host.say(muted, 'PAST-MUTED 不要记住')

  // Everything there is to learn from: the workspaces, and the three conversations that write memory.
  const all = await call<LearnPastReply>(host, 'past', {})
  expect(all.status).toBe(200)
  expect(all.json.found).toMatchObject({ service: 'dsh', conversations: 3 })
  expect(all.json.workspaces).toEqual(expect.arrayContaining([host.home.workspace, elsewhere]))
  // A memory whose profile has memory off learns nothing: the plan is refused.
  const off = await call<{ error: { rule?: string } }>(host, 'plan', { into: { profileId: quiet.id } })
  expect(off.status).toBe(409)
  expect(off.json.error.rule).toBe('learn.memory-off')

  // The home's workspace only, learned into About you.
  const mine = await call<LearnPastReply>(host, 'past', { cwd: host.home.workspace })
  expect(mine.json.found).toMatchObject({ service: 'dsh', conversations: 2 })
  const before = model.requests.length
  const started = await call<LearnRunReply>(host, 'start', { into: { user: true } })
  expect(started.status).toBe(202)
  expect((await runToEnd(host)).run).toMatchObject({ state: 'done', service: 'dsh' })

  const calls = model.requests.slice(before).filter((r) => kindOf(r) === 'extract')
  const sent = calls.map(materialOf)
  expect(calls.length).toBeGreaterThanOrEqual(3)
  expect(sent.some((m) => m.includes('PAST-A 我住在青岛'))).toBe(true)
  expect(sent.some((m) => m.includes('PAST-LONG'))).toBe(true)
  for (const m of sent) {
    expect(m.length).toBeLessThanOrEqual(6000)
    // The user's words only: no answer of the assistant, no other workspace, nothing kept out of memory.
    expect(m).not.toContain('ASSISTANT-ANSWER')
    expect(m).not.toContain('助手：')
    for (const kept of ['PAST-OTHER', 'PAST-INCOGNITO', 'PAST-MUTED']) expect(m).not.toContain(kept)
  }

  const user = (await (await fetch(`${host.web.url}/__ap/user`)).json()) as UserReply
  const learned = user.items.filter((it) => it.text === FACT)
  expect(learned).toHaveLength(1)
  expect(learned[0]).toMatchObject({ pending: true, source: 'import' })
  expect(learned[0]!.origin).toMatch(/^dsh, \d{4}-\d{2}-\d{2}$/)
}, 300_000)

it('leaves out the conversations learned before, after dsh restarts, until the run is undone, and again once the undo is reverted', async () => {
  const { host, model } = env
  const elsewhere = join(host.home.workspace, '..', 'elsewhere')
  await host.web.stop()
  const again = await bootHost(model, { home: host.home })
  try {
    const left = await call<LearnPastReply>(again, 'past', {})
    // Only the other workspace's conversation is left: the two learned are not offered again.
    expect(left.json.found).toMatchObject({ service: 'dsh', conversations: 1 })
    expect(left.json.workspaces).toEqual([elsewhere])

    // "Undo this import" of the run: its fact goes, and the two conversations it learned are offered again.
    const { run } = (await (await fetch(`${again.web.url}/__ap/learn/run`)).json()) as LearnRunReply
    expect(run).toMatchObject({ state: 'done', service: 'dsh' })
    await again.command({ op: 'memory.unlearn', target: { user: true }, importId: run!.id })
    const user = (await (await fetch(`${again.web.url}/__ap/user`)).json()) as UserReply
    expect(user.items.filter((it) => it.text === FACT)).toEqual([])
    const offered = await call<LearnPastReply>(again, 'past', {})
    expect(offered.json.found).toMatchObject({ service: 'dsh', conversations: 3 })
    expect(offered.json.workspaces).toEqual(expect.arrayContaining([host.home.workspace, elsewhere]))

    // The undo reverted from the memory's history: the fact is back, and the two conversations are learned again.
    const { entries } = (await (await fetch(`${again.web.url}/__ap/memory/history?layer=user`)).json()) as {
      entries: MemoryHistoryEntry[]
    }
    const undo = entries.find((e) => e.removed.some((it) => it.text === FACT))!
    await again.command({ op: 'memory.revert', target: { user: true }, entryId: undo.id })
    const back = (await (await fetch(`${again.web.url}/__ap/user`)).json()) as UserReply
    expect(back.items.filter((it) => it.text === FACT)).toHaveLength(1)
    const reverted = await call<LearnPastReply>(again, 'past', {})
    expect(reverted.json.found).toMatchObject({ service: 'dsh', conversations: 1 })
    expect(reverted.json.workspaces).toEqual([elsewhere])
    // Undone once more: offered again.
    await again.command({ op: 'memory.unlearn', target: { user: true }, importId: run!.id })
    expect((await call<LearnPastReply>(again, 'past', {})).json.found).toMatchObject({ conversations: 3 })
  } finally {
    await again.web.stop()
  }
}, 180_000)

/** The run `h`'s page is shown (`/__ap/learn/run`). */
const runOf = async (h: Host) => ((await (await fetch(`${h.web.url}/__ap/learn/run`)).json()) as LearnRunReply).run

/** Wait until `h`'s page shows the run `id` in `state`; resolves with what it shows. */
const seenBy = (h: Host, id: string, state: string) =>
  until(
    `the page to show run ${id} ${state}`,
    async () => {
      const run = await runOf(h)
      return run?.id === id && run.state === state ? run : undefined
    },
    60_000,
  )

it("shows a second dsh's page the run the first one runs on the same home, and leaves its control to the first", async () => {
  const { host, model, answers } = env
  answers.script = (_r, kind) => (kind === 'extract' ? { text: '无', delayMs: 200 } : undefined)
  const first = await bootHost(model, { home: host.home })
  const second = await bootHost(model, { home: host.home })
  try {
    // The second read the disk before the run began: it knows of the run only from what the first keeps there.
    const before = await runOf(second)
    await call<LearnPastReply>(first, 'past', { cwd: host.home.workspace })
    const sentBefore = model.requests.length
    const started = await call<LearnRunReply>(first, 'start', { into: { user: true } })
    expect(started.status).toBe(202)
    const id = started.json.run!.id
    expect(before?.id).not.toBe(id)
    // Paused by the first while its first call is out: the second sees it stopped partway.
    expect((await call<LearnRunReply>(first, 'control', { action: 'pause' })).status).toBe(200)
    const paused = await seenBy(second, id, 'paused')
    expect(paused.done).toBeLessThan(paused.total)
    // The second may not resume it (the first holds it: its call may still be out), the first does; the second's
    // page sees it end.
    const refused = await call<{ error: { rule?: string } }>(second, 'control', { action: 'resume' })
    expect(refused.status).toBe(409)
    expect(refused.json.error.rule).toBe('learn.elsewhere')
    expect((await call<LearnRunReply>(first, 'control', { action: 'resume' })).status).toBe(200)
    const ended = await seenBy(second, id, 'done')
    expect(ended).toMatchObject({ service: 'dsh', into: { user: true } })
    expect(ended.done).toBe(ended.total)
    expect(ended.total).toBeGreaterThanOrEqual(3)
    expect(ended).toEqual((await runToEnd(first)).run)
    // Every call was sent once: none by the second.
    expect(model.requests.slice(sentBefore).filter((r) => kindOf(r) === 'extract')).toHaveLength(ended.total)

    // Nor may the second pause a run the first is sending a call for.
    answers.script = (_r, kind) => (kind === 'extract' ? { text: '无', delayMs: 120_000 } : undefined)
    expect((await call<LearnPastReply>(first, 'past', {})).json.found).toMatchObject({ conversations: 1 })
    const other = await call<LearnRunReply>(first, 'start', { into: { user: true } })
    expect(other.status).toBe(202)
    const busy = await call<{ error: { rule?: string } }>(second, 'control', { action: 'pause' })
    expect(busy.status).toBe(409)
    expect(busy.json.error.rule).toBe('learn.elsewhere')
    expect(await runOf(second)).toMatchObject({ id: other.json.run!.id, state: 'running' })
  } finally {
    await second.web.stop()
    await first.web.stop()
  }
}, 240_000)
