/**
 * Profile names against mentions through the real `dsh web` (this plugin installed, offline model), asserting who
 * answered and which tools ran: an imported card named `所有人` cannot answer `@所有人` (so a conversation pinned to a
 * read-only profile keeps its tools and the model's `bash` call is refused), a card whose name extends another's
 * (`乙帮我`) cannot take a message meant for that other one, and two cards of one name imported side by side can each
 * be addressed.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FileResult } from '../../lib/shared/import-report.ts'
import type { Profile } from '../../lib/state/model.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { ledgerOf } from '../support/memory-requests.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  turnToolResults,
  type ModelServer,
  type RecordedRequest,
  type Reply,
} from '../support/model-server.ts'

/** The personas, each with a code word its system prompt carries, so a request shows whose turn it was. */
const MARKS = { review: 'REV-5521', squatter: 'SQT-7001', yi: 'YI-3303', yiSquatter: 'YSQ-4404' } as const
type Who = keyof typeof MARKS | 'own'

let model: ModelServer
let host: Host
let reviewId: string
let yiId: string

const who = (r: RecordedRequest): Who =>
  (Object.keys(MARKS) as (keyof typeof MARKS)[]).find((k) => r.system.includes(MARKS[k])) ?? 'own'
const tools = (r: RecordedRequest) => r.tools.map((t) => t.function.name)

/** A Character Card V2 as JSON text, as cards are shared on the internet. */
const card = (name: string, description: string) => ({
  name: `${name}.json`,
  format: 'card',
  text: JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name, description } }),
})

async function importCards(...cards: ReturnType<typeof card>[]): Promise<FileResult[]> {
  return (await host.command<{ files: FileResult[] }>({ op: 'profiles.importFiles', files: cards })).files
}

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r): Reply | undefined => {
    if (isTitleRequest(r) || r.system.includes('对话材料')) return undefined
    if (turnToolResults(r).length > 0) return { text: `E2E ${who(r)} 看到了：${textOf(r.messages.at(-1)!)}` }
    if (r.lastUser.includes('E2E-BASH'))
      return { toolCalls: [{ name: 'bash', arguments: { command: `echo x > ran-${who(r)}.txt`, description: 'x' } }] }
    return { text: `E2E ${who(r)} 回答` }
  })
  host = await bootHost(model)
  const create = async (profile: Record<string, unknown>) =>
    (await host.command<{ profile: Profile }>({ op: 'profile.create', profile })).profile.id
  reviewId = await create({
    name: '审阅员',
    role: `你是审阅员，暗号 ${MARKS.review}。`,
    tools: { profile: 'read-only', add: [], remove: [] },
  })
  yiId = await create({ name: '乙', role: `你是乙，暗号 ${MARKS.yi}。` })
  await host.command({ op: 'profile.activate', id: 'general' })
}, 180_000)

afterAll(async () => {
  await host?.stop()
  await model?.close()
})

describe('profile names and mentions (real dsh web)', () => {
  it('an imported card named 所有人 cannot answer @所有人: the read-only pinned profile answers, and bash never runs', async () => {
    const [file] = await importCards(card('所有人', `你是所有人，暗号 ${MARKS.squatter}。`))
    rmSync(join(host.home.workspace, 'ran-review.txt'), { force: true })
    rmSync(join(host.home.workspace, 'ran-squatter.txt'), { force: true })

    const sessionId = await host.conversation()
    await host.command({ op: 'session.set', sessionId, patch: { profileId: reviewId } })
    const [asked] = await host.say(sessionId, '@所有人 E2E-BASH 跑一下这个命令')
    expect(who(asked!)).toBe('review')
    expect(tools(asked!)).not.toContain('bash')
    const [after] = await model.waitFor(
      (r) => r.lastUser.includes('E2E-BASH') && turnToolResults(r).length > 0,
      1,
      60_000,
    )
    expect(who(after!)).toBe('review')
    const results = turnToolResults(after!)
    expect(results.join('\n')).toContain('工具「bash」不在当前智能体配置「审阅员」的工具档（只读）允许的范围内')
    expect(existsSync(join(host.home.workspace, 'ran-review.txt'))).toBe(false)
    expect(existsSync(join(host.home.workspace, 'ran-squatter.txt'))).toBe(false)
    expect(model.requests.filter((r) => who(r) === 'squatter')).toEqual([])
    expect(await ledgerOf(host, sessionId, 1)).toEqual({ 1: reviewId })
    // The card came in, renamed, and the import report said so.
    expect(file!.warnings).toContainEqual({ key: 'nameReserved', params: { from: '所有人', to: '所有人 2' } })
    expect((await host.profiles()).find((p) => p.role.includes(MARKS.squatter))!.name).toBe('所有人 2')
  })

  it('a card named 乙帮我 cannot take "@乙帮我看看这段代码"; "@乙 帮我" reaches 乙', async () => {
    await importCards(card('乙帮我', `你是乙帮我，暗号 ${MARKS.yiSquatter}。`))
    const sessionId = await host.conversation()
    const [meant] = await host.say(sessionId, '@乙帮我看看这段代码 E2E-Y1')
    expect(who(meant!)).toBe('own')
    const [spaced] = await host.say(sessionId, '@乙 帮我看看这段代码 E2E-Y2')
    expect(who(spaced!)).toBe('yi')
    expect(model.requests.filter((r) => who(r) === 'yiSquatter')).toEqual([])
    expect(await ledgerOf(host, sessionId, 2)).toEqual({ 1: 'general', 2: yiId })
  })

  it('two cards of one name kept side by side can each be addressed by its name', async () => {
    const first = card('Seraphina', '你是第一个 Seraphina，暗号 SER-0001。')
    const second = card('Seraphina', '你是第二个 Seraphina，暗号 SER-0002。')
    await importCards(first)
    const [kept] = await importCards(second)
    expect(kept!.warnings).toContainEqual({ key: 'nameTaken', params: { from: 'Seraphina', to: 'Seraphina 2' } })
    const sessionId = await host.conversation()
    const [one] = await host.say(sessionId, '@Seraphina 你好 E2E-S1')
    expect(one!.system).toContain('SER-0001')
    const [two] = await host.say(sessionId, '@Seraphina 2 你好 E2E-S2')
    expect(two!.system).toContain('SER-0002')
  })
})
