/**
 * The user layer and superseded facts through the real `dsh web` (the pinned host, this plugin installed, offline
 * model scripted per test), asserted on the system prompt each conversation request actually carried: a fact saved
 * with scope user in a conversation on one profile reaches a conversation on another profile, while that profile's
 * own facts and the conversation's own do not; an extraction answer that replaces a fact takes the old one out of
 * the next new conversation's request (a running one keeps the memory it started with, cache-stable memory being
 * on by default) and the revert of that history entry brings it back at the next turn; one that replaces a fact the
 * user typed is only a suggestion until approved; a replacement that cannot be written, or that names no known fact,
 * loses neither fact.
 */
import { randomUUID } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import type { MemoryHistoryEntry } from '../../lib/shared/memory-target.ts'
import type { RunRecord } from '../../lib/shared/diagnostics.ts'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import type { Profile } from '../../lib/state/model.ts'
import { textOf, type RecordedRequest } from '../support/model-server.ts'
import { until as poll, memoryHostForSpec } from '../support/memory-requests.ts'

const CONFIG = { everyTurns: 2, timeoutMs: 5000, idleMs: 200 }

const env = memoryHostForSpec(CONFIG)

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  poll(what, probe, timeoutMs, () => env.host.web.output().slice(-4000))
const userLayer = async () =>
  ((await (await fetch(`${env.host.web.url}/__ap/user`)).json()) as UserReply).items.map((it) => it.text)
// No catch: a host waiting for another process's database lock keeps answering meanwhile.
const runs = async () => (await env.host.read<{ meta: { memoryJob: { runs: RunRecord[] } } }>()).meta.memoryJob.runs

/** Send `text` and resolve with the conversation request that carried it. */
async function turn(sessionId: string, text: string): Promise<RecordedRequest> {
  const [request] = await env.host.say(sessionId, text)
  return request!
}

/** The tool result of this turn, once the model's follow-up request carries it. */
async function toolResult(sessionId: string, text: string): Promise<string> {
  await env.host.prompt(sessionId, text)
  const [followUp] = await env.model.waitFor(
    (r) => r.lastUser.includes(text) && r.messages.slice(r.lastUserAt).some((m) => m.role === 'tool'),
    1,
    60_000,
  )
  return textOf(followUp!.messages.slice(followUp!.lastUserAt).find((m) => m.role === 'tool')!)
}

describe('the user layer through the real host', () => {
  it("a fact saved with scope user on profile A is in the next request on profile B; A's own facts and the conversation's are not", async () => {
    const { profile: b } = await env.host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { name: '写作助手', role: '你帮用户改文章。' },
    })
    const { profile: a } = await env.host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { name: '编程助手', role: '你帮用户写代码。' },
    })
    const onA = await env.host.conversation()
    await env.host.command({ op: 'session.set', sessionId: onA, patch: { profileId: a.id } })
    const saves: Record<string, { facts: string[]; scope: string }> = {
      'USER-1': { facts: ['用户叫王小明'], scope: 'user' },
      'OWN-1': { facts: ['和编程助手约定：代码注释用英文'], scope: 'profile' },
      'CONV-1': { facts: ['本对话在排查登录失败'], scope: 'conversation' },
    }
    env.answers.script = (r, kind) => {
      const marker = kind === 'turn' ? Object.keys(saves).find((k) => r.lastUser.includes(k)) : undefined
      if (marker === undefined) return undefined
      return r.messages.slice(r.lastUserAt).some((m) => m.role === 'tool')
        ? { text: '记住了' }
        : { toolCalls: [{ name: 'memory_save', arguments: saves[marker] }] }
    }
    expect(await toolResult(onA, 'USER-1 请记住我的名字')).toContain('关于用户的记忆（所有配置共用）')
    await toolResult(onA, 'OWN-1 请记住这个约定')
    await toolResult(onA, 'CONV-1 请记住这次在干什么')
    env.answers.script = () => undefined
    expect(await userLayer()).toEqual(['用户叫王小明'])

    const onB = await env.host.conversation()
    await env.host.command({ op: 'session.set', sessionId: onB, patch: { profileId: b.id } })
    const onBRequest = await turn(onB, `B-${randomUUID().slice(0, 6)} 帮我看看这段开头`)
    expect(onBRequest.system).toContain('你帮用户改文章。')
    expect(onBRequest.system).toContain('## 关于用户\n- 用户叫王小明')
    expect(onBRequest.system).not.toContain('代码注释用英文')
    expect(onBRequest.system).not.toContain('排查登录失败')
    // A new conversation on A has A's own facts beside the user layer, and not the other conversation's. (The running
    // conversation keeps the memory it started with under cache-stable memory: the model saw those facts saved there.)
    const onA2 = await env.host.conversation()
    await env.host.command({ op: 'session.set', sessionId: onA2, patch: { profileId: a.id } })
    const onARequest = await turn(onA2, `A-${randomUUID().slice(0, 6)} 继续`)
    expect(onARequest.system).toContain('## 关于用户\n- 用户叫王小明')
    expect(onARequest.system).toContain('代码注释用英文')
    expect(onARequest.system).not.toContain('排查登录失败')
  })
})

describe('superseded facts through the real host', () => {
  /** Two completed turns of `sessionId` (the extraction's trigger), answering its request with `answer(prompt)`. */
  async function extractWith(sessionId: string, answer: (prompt: string) => string): Promise<RecordedRequest> {
    const marker = `EX-${randomUUID().slice(0, 8)}`
    let seen: RecordedRequest | undefined
    env.answers.script = (r, kind) => {
      if (kind !== 'extract' || !textOf(r.messages.at(-1)!).includes(marker)) return undefined
      seen = r
      return { text: answer(textOf(r.messages.at(-1)!)) }
    }
    const before = (await runs()).filter((x) => x.sessionId === sessionId).length
    await turn(sessionId, `${marker} 第一轮`)
    await turn(sessionId, `${marker} 第二轮：我上个月从北京搬到上海了`)
    await until('the extraction run', async () =>
      (await runs()).filter((x) => x.sessionId === sessionId).length > before ? true : undefined,
    )
    return seen!
  }
  const handleOf = (prompt: string, text: string) => new RegExp(`- \\[(m\\d+)\\]\\[用户\\] ${text}`).exec(prompt)?.[1]
  /** The first request of a new conversation: it starts with the memory as it is now. */
  const fresh = async (): Promise<RecordedRequest> =>
    turn(await env.host.conversation(), `NEW-${randomUUID().slice(0, 6)} 你好`)

  /** A fact the job itself found earlier: it is the job's to replace. */
  const autoFact = (text: string) =>
    env.host
      .command({ op: 'user.set', items: [] })
      .then(() => env.host.command({ op: 'memory.add', target: { user: true }, items: [{ text, source: 'auto' }] }))

  it('an answer that replaces a fact takes it out of the next request; reverting that history entry brings it back', async () => {
    await autoFact('用户住在北京')
    const sid = await env.host.conversation()
    const request = await extractWith(sid, (prompt) => `- [替换 ${handleOf(prompt, '用户住在北京')}] 用户住在上海`)
    expect(handleOf(textOf(request.messages.at(-1)!), '用户住在北京')).toMatch(/^m\d+$/)
    await until('the replacement', async () => ((await userLayer()).includes('用户住在上海') ? true : undefined))
    expect(await userLayer()).toEqual(['用户住在上海'])
    const elsewhere = await env.host.conversation()
    const after = await turn(elsewhere, `NEXT-${randomUUID().slice(0, 6)} 第一轮`)
    expect(after.system).toContain('- 用户住在上海')
    expect(after.system).not.toContain('用户住在北京')

    const { entries } = (await (await fetch(`${env.host.web.url}/__ap/memory/history?layer=user`)).json()) as {
      entries: MemoryHistoryEntry[]
    }
    expect(entries[0]).toMatchObject({
      who: 'auto',
      sessionId: sid,
      added: [{ text: '用户住在上海' }],
      removed: [{ text: '用户住在北京' }],
    })
    // The revert is the user's own edit: it applies from the next turn of a running conversation too.
    await env.host.command({ op: 'memory.revert', target: { user: true }, entryId: entries[0]!.id })
    const reverted = await turn(elsewhere, `UNDO-${randomUUID().slice(0, 6)} 第二轮`)
    expect(reverted.system).toContain('- 用户住在北京')
    expect(reverted.system).not.toContain('用户住在上海')
  })

  it('an answer that replaces a fact the user typed only proposes it: the typed fact stays in the prompt until approved', async () => {
    await env.host.command({ op: 'user.set', items: [{ text: '用户喜欢猫' }] })
    const sid = await env.host.conversation()
    await extractWith(sid, (prompt) => `- [替换 ${handleOf(prompt, '用户喜欢猫')}] 用户讨厌猫`)
    await until('the suggestion', async () => ((await userLayer()).includes('用户讨厌猫') ? true : undefined))
    const { items } = (await (await fetch(`${env.host.web.url}/__ap/user`)).json()) as UserReply
    expect(items.map((it) => [it.text, it.pending === true])).toEqual([
      ['用户喜欢猫', false],
      ['用户讨厌猫', true],
    ])
    expect(items[1]!.replaces).toBe(items[0]!.id)
    const waiting = await fresh()
    expect(waiting.system).toContain('- 用户喜欢猫')
    expect(waiting.system).not.toContain('用户讨厌猫')
    await env.host.command({ op: 'memory.approve', target: { user: true }, itemId: items[1]!.id })
    expect(await userLayer()).toEqual(['用户讨厌猫'])
    const approved = await fresh()
    expect(approved.system).toContain('- 用户讨厌猫')
    expect(approved.system).not.toContain('用户喜欢猫')
  })

  it('a replacement whose write fails (the database locked by another process) keeps the old fact in the next request', async () => {
    await autoFact('用户住在北京')
    const sid = await env.host.conversation()
    // Another process holds the write lock past the store's busy timeout while the job writes.
    let lock: DatabaseSync | undefined
    try {
      await extractWith(sid, (prompt) => {
        lock = new DatabaseSync(env.host.home.dataFile, { timeout: 1000 })
        lock.exec('BEGIN IMMEDIATE')
        return `- [替换 ${handleOf(prompt, '用户住在北京')}] 用户住在上海`
      })
    } finally {
      lock?.exec('ROLLBACK')
      lock?.close()
    }
    const run = (await runs()).filter((x) => x.sessionId === sid).at(-1)!
    expect(run).toMatchObject({ outcome: 'failed', failure: 'store' })
    expect(await userLayer()).toEqual(['用户住在北京'])
    expect((await fresh()).system).toContain('- 用户住在北京')
  }, 90_000)

  it('a replacement naming a handle the request did not show keeps both facts', async () => {
    await env.host.command({ op: 'user.set', items: [{ text: '用户住在北京' }] })
    const sid = await env.host.conversation()
    await extractWith(sid, () => '- [用户][替换 m99] 用户住在上海')
    await until('the new fact', async () => ((await userLayer()).includes('用户住在上海') ? true : undefined))
    expect(await userLayer()).toEqual(['用户住在北京', '用户住在上海'])
    const next = await fresh()
    expect(next.system).toContain('- 用户住在北京')
    expect(next.system).toContain('- 用户住在上海')
  })
})
