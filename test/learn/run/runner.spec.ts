/**
 * The learning run on the real dsh spine (its model service, a scripted model behind it) and a real store: a pick's
 * calls go out one after another within the extraction's bound, their facts arrive as suggestions carrying the run's
 * id and where they came from, undoing the import takes them all away; pause, resume and cancel; a failed call loses
 * nothing and is sent again on resume; a runner that stops mid-run (a dsh restart) resumes at the first call not
 * answered; a second run is refused while one is under way; a past dsh conversation is remembered as learned once
 * its last call is answered.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import { installLearn } from '../../../lib/learn/run/install.ts'
import { LearnExports, type Picked } from '../../../lib/learn/run/exports.ts'
import type { LearnRunner } from '../../../lib/learn/run/runner.ts'
import { parseExport } from '../../../lib/learn/export-read.ts'
import { holdConversations } from '../../../lib/learn/export-parts.ts'
import { userItemsOf } from '../../../lib/state/model.ts'
import type { LearnPick } from '../../../lib/shared/learn.ts'
import { boot, type Harness } from '../../support/memory-harness.ts'
import { SPINE_MODEL } from '../../support/spine.ts'
import { claudeExport, exportZip } from '../../support/learn-exports.ts'
import { runFiles } from '../../../lib/store/learn-run-file.ts'
import { readLearned } from '../../../lib/store/learn-past-file.ts'
import { TurnQuiet } from '../../../lib/sync/turn-quiet.ts'

let h: Harness
afterEach(async () => {
  await h.close()
})

/** Install the learning part on the harness as the host would; resolves with its runner and how to unload it. */
async function install(): Promise<{ runner: LearnRunner; unload: () => Promise<void> }> {
  let runner: LearnRunner | undefined
  const fork = h.ctx.plugin({
    name: `ap-learn-${Math.random()}`,
    apply: (ctx: Context) => {
      const quiet = new TurnQuiet()
      quiet.watch(ctx)
      runner = installLearn(ctx, h.store, h.config, h.log, quiet)
    },
  })
  await fork
  return { runner: runner!, unload: async () => void (await fork.dispose()) }
}

/** An export of `n` one-call conversations, read as the route reads one. */
function exportOf(n: number): LearnExports {
  const learn = new LearnExports()
  const { service, conversations } = parseExport(exportZip(claudeExport(n, 3).conversations))
  learn.take({ ok: true, export: { service, conversations: holdConversations(conversations) } })
  return learn
}

const PICK: LearnPick = { into: { user: true }, model: SPINE_MODEL }

/** What PICK chooses of the export `learn` read, as the start route hands it to the runner. */
async function chosen(learn: LearnExports): Promise<Picked> {
  const picked = await learn.picked(PICK, h.store.state)
  if (typeof picked === 'string') throw new Error(`nothing to learn: ${picked}`)
  return picked
}

/** Wait until the run's state is `state`. */
async function until(runner: LearnRunner, state: string): Promise<void> {
  await vi.waitFor(() => expect(runner.status().run?.state).toBe(state), { timeout: 30_000, interval: 10 })
}

const userItems = () => userItemsOf(h.store.state)

/** The material a request carried (its markers are random per request). */
const material = (prompt: string) => /<<<材料 [0-9a-f]+>>>\n([\s\S]*)\n<<<材料结束/.exec(prompt)?.[1]

describe('the learning run', () => {
  it('learns every call into suggestions with provenance and the run id, and undo takes them all away', async () => {
    h = await boot()
    const { runner } = await install()
    const learn = exportOf(3)
    h.model.script(
      'extract',
      { text: '- [用户] 住在青岛' },
      { text: '无' },
      { text: '- [用户] 养了一只猫\n- [用户] 住在青岛' },
    )
    const started = await runner.start(await chosen(learn), PICK)
    expect(started.run).toMatchObject({ state: 'running', total: 3, done: 0 })
    await until(runner, 'done')
    expect(runner.status().run).toMatchObject({ done: 3, total: 3, conversations: { done: 3, total: 3 }, facts: 2 })
    const items = userItems()
    expect(items.map((it) => it.text)).toEqual(['住在青岛', '养了一只猫'])
    const id = runner.status().run!.id
    for (const it of items) {
      expect(it).toMatchObject({ pending: true, importId: id, source: 'import' })
      expect(it.origin).toMatch(/^Claude, 2025-01-0[13], '/)
    }
    // Each request is the extraction's, its material within the bound one call reads.
    for (const seen of h.model.of('extract'))
      expect(seen.prompt.length).toBeLessThan(h.config.memory.excerptChars + 2000)
    await h.store.command({ op: 'memory.approve', target: { user: true }, itemId: items[0]!.id })
    await h.store.command({ op: 'user.set', items: [...userItemsOf(h.store.state), { text: '用户叫小王' }] })
    const undone = await h.store.command({ op: 'memory.unlearn', target: { user: true }, importId: id })
    expect(undone.removed).toBe(2)
    expect(userItems().map((it) => it.text)).toEqual(['用户叫小王'])
  })

  it('pauses after the call out, resumes where it stood, and cancel keeps what was found', async () => {
    h = await boot()
    const { runner } = await install()
    const learn = exportOf(4)
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    // The third call is held too, so the run is still going when it is canceled, however fast the second answers.
    let releaseThird!: () => void
    const third = new Promise<void>((r) => (releaseThird = r))
    h.model.script(
      'extract',
      { gate: held, text: '- [用户] 住在青岛' },
      { text: '- [用户] 养了一只猫' },
      { gate: third, text: '- [用户] 会弹吉他' },
    )
    await runner.start(await chosen(learn), PICK)
    await h.model.until('extract', 1)
    expect((await runner.control('pause')).run?.state).toBe('paused')
    release()
    await vi.waitFor(() => expect(runner.status().run!.done).toBeGreaterThanOrEqual(1), {
      timeout: 30_000,
      interval: 10,
    })
    // The call that was out is kept; no other went (the loop reads the pause before it sends the next).
    expect(runner.status().run).toMatchObject({ state: 'paused', done: 1, facts: 1 })
    expect(h.model.of('extract')).toHaveLength(1)
    await runner.control('resume')
    await vi.waitFor(() => expect(runner.status().run!.done).toBeGreaterThanOrEqual(2), {
      timeout: 30_000,
      interval: 10,
    })
    await runner.control('cancel')
    const run = runner.status().run!
    expect(run.state).toBe('canceled')
    expect(userItems().length).toBe(run.facts)
    expect(run.facts).toBeGreaterThanOrEqual(2)
    await expect(runner.control('resume')).rejects.toMatchObject({ code: 'conflict' })
    releaseThird()
  })

  it('stops on a failed call with nothing lost, and resuming sends that call again', async () => {
    h = await boot()
    const { runner } = await install()
    const learn = exportOf(2)
    h.model.script(
      'extract',
      { text: '- [用户] 住在青岛' },
      { fail: { code: 'overloaded', message: 'busy', status: 529 } },
      { text: '- [用户] 养了一只猫' },
    )
    await runner.start(await chosen(learn), PICK)
    await until(runner, 'failed')
    expect(runner.status().run).toMatchObject({ failure: 'model', done: 1, facts: 1 })
    expect(userItems().map((it) => it.text)).toEqual(['住在青岛'])
    await runner.control('resume')
    await until(runner, 'done')
    const [, failed, again] = h.model.of('extract')
    expect(material(again!.prompt)).toBe(material(failed!.prompt))
    expect(userItems().map((it) => it.text)).toEqual(['住在青岛', '养了一只猫'])
  })

  it('resumes after a restart at the first call not answered, and refuses a second run meanwhile', async () => {
    h = await boot()
    const first = await install()
    const learn = exportOf(3)
    h.model.script('extract', { text: '- [用户] 住在青岛' }, { stall: true })
    await first.runner.start(await chosen(learn), PICK)
    await expect(first.runner.start(await chosen(learn), PICK)).rejects.toMatchObject({
      code: 'conflict',
      rule: 'learn.running',
    })
    await h.model.until('extract', 2)
    // dsh stops while the second call is out: that call was never answered.
    await first.unload()
    const sent = h.model.of('extract').map((s) => material(s.prompt))
    h.model.script('extract', { text: '- [用户] 养了一只猫' }, { text: '无' })
    const second = await install()
    await until(second.runner, 'done')
    const after = h.model.of('extract').map((s) => material(s.prompt))
    expect(after.slice(sent.length)).toEqual([sent[1], expect.any(String)])
    expect(after.slice(sent.length)).not.toContain(sent[0])
    expect(second.runner.status().run).toMatchObject({ done: 3, total: 3, facts: 2 })
    expect(userItems().map((it) => it.text)).toEqual(['住在青岛', '养了一只猫'])
  })

  it('resumes a run kept before conversations were counted, and counts its calls', async () => {
    h = await boot()
    const first = await install()
    h.model.script('extract', { text: '无' }, { stall: true })
    await first.runner.start(await chosen(exportOf(3)), PICK)
    await h.model.until('extract', 2)
    await first.unload()
    // The files as the version before wrote them: no conversation on a call, no count of them on the head.
    const files = runFiles(h.store.file)
    const { conversations, conversationsDone, ...head } = JSON.parse(await readFile(files.head, 'utf8')) as Record<
      string,
      unknown
    >
    expect([conversations, conversationsDone]).toEqual([3, 1])
    await writeFile(files.head, JSON.stringify(head))
    const lines = (await readFile(files.calls, 'utf8')).trimEnd().split('\n')
    const old = lines.map((line, i) => {
      if (i === 0) return line
      const { conversation, ...call } = JSON.parse(line) as Record<string, unknown>
      expect(conversation).toBe(i - 1)
      return JSON.stringify(call)
    })
    await writeFile(files.calls, `${old.join('\n')}\n`)
    h.model.script('extract', { text: '无' }, { text: '无' })
    const second = await install()
    await until(second.runner, 'done')
    expect(h.model.of('extract')).toHaveLength(4)
    const run = second.runner.status().run
    expect(run).toMatchObject({ done: 3, total: 3 })
    expect(run?.conversations).toBeUndefined()
    await second.unload()
  })

  it('refuses a second start made while the first one still cuts its pick: one run, one set of calls', async () => {
    h = await boot()
    const { runner, unload } = await install()
    const learn = exportOf(3)
    h.model.script('extract', { stall: true })
    const [one, two] = [await chosen(learn), await chosen(learn)]
    const started = await Promise.allSettled([runner.start(one, PICK), runner.start(two, PICK)])
    expect(started.map((s) => s.status)).toEqual(['fulfilled', 'rejected'])
    expect(started[1]).toMatchObject({ reason: { code: 'conflict', rule: 'learn.running' } })
    await h.model.until('extract', 1)
    expect(runner.status().run).toMatchObject({ state: 'running', total: 3 })
    await unload()
  })

  it("writes a large run's calls at its start a piece at a time, and a restart resumes them", async () => {
    h = await boot()
    const first = await install()
    // 300 calls of 6,000 characters: their JSON in one piece would be a string of 1.8 million characters.
    const said = '我住在青岛，每天早上沿着海边跑步。'.repeat(400)
    const conversations = Array.from({ length: 300 }, (_, i) => ({
      id: `c${i}`,
      title: `去青岛 ${i}`,
      at: Date.UTC(2025, 2, 14),
      messages: [{ role: 'user' as const, text: `${i} ${said}`.slice(0, 5990), at: Date.UTC(2025, 2, 14) }],
    }))
    const learn = new LearnExports()
    learn.take({ ok: true, export: { service: 'chatgpt', conversations: holdConversations(conversations) } })
    h.model.script('extract', { text: '无' }, { stall: true })
    const stringify = vi.spyOn(JSON, 'stringify')
    await first.runner.start(await chosen(learn), PICK)
    const longest = Math.max(...stringify.mock.results.map((r) => String(r.value).length))
    stringify.mockRestore()
    expect(longest).toBeLessThan(100_000)
    await h.model.until('extract', 2)
    await first.unload()
    const sent = h.model.of('extract').map((s) => material(s.prompt))
    expect(sent[1]).toContain('用户：1 我住在青岛')
    h.model.script('extract', { stall: true })
    const second = await install()
    await h.model.until('extract', 3)
    expect(material(h.model.of('extract')[2]!.prompt)).toBe(sent[1])
    expect(second.runner.status().run).toMatchObject({ state: 'running', done: 1, total: 300 })
    await second.unload()
  })

  it("sends no call while a conversation's turn is under way, and goes on once it ends", async () => {
    h = await boot()
    const { runner, unload } = await install()
    const agent = await h.conversation('s-turn')
    const seen: string[] = []
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    h.model.script('turn', { gate, text: '好的' })
    h.model.script('extract', { reply: () => (seen.push('call'), '无') }, { reply: () => (seen.push('call'), '无') })
    const turn = h.turn(agent, '你好')
    await h.model.until('turn', 1)
    await runner.start(await chosen(exportOf(2)), PICK)
    // Give the run every chance to send while the turn runs (it would within milliseconds).
    await h.model.until('extract', 1, 1500).catch(() => undefined)
    seen.push('turn ends')
    release()
    await turn
    await until(runner, 'done')
    expect(seen).toEqual(['turn ends', 'call', 'call'])
    await unload()
  })

  it('refuses a start from a second dsh on the same data while the first one runs', async () => {
    h = await boot()
    const first = await install()
    const second = await install()
    const learn = exportOf(2)
    h.model.script('extract', { stall: true })
    await first.runner.start(await chosen(learn), PICK)
    await expect(second.runner.start(await chosen(learn), PICK)).rejects.toMatchObject({
      rule: 'learn.running',
    })
    await first.unload()
    await second.unload()
  })

  it('remembers a past conversation as learned once its last call is answered, across a stop in between', async () => {
    h = await boot()
    const first = await install()
    const at = Date.now()
    const said = (text: string) => [{ role: 'user' as const, text, at }]
    const learn = new LearnExports()
    // Session "a" is longer than one call's material: two calls. Session "b" is one.
    learn.takePast([
      { id: 'a', title: '', at, messages: said(`我每天早上去海边跑步。${'很长的一段话。'.repeat(1000)}`) },
      { id: 'b', title: '', at, messages: said('我养了一只猫') },
    ])
    const learned = runFiles(h.store.file).learned
    h.model.script('extract', { text: '无' }, { stall: true })
    await first.runner.start(await chosen(learn), PICK)
    expect(first.runner.status().run?.total).toBe(3)
    await h.model.until('extract', 2)
    // dsh stops while the second call of "a" is out: "a" is not learned yet.
    await first.unload()
    expect(await readLearned(learned, () => false)).toEqual(new Set())
    h.model.script('extract', { text: '无' }, { text: '无' })
    const second = await install()
    await until(second.runner, 'done')
    expect(await readLearned(learned, () => false)).toEqual(new Set(['a', 'b']))
  })
})
