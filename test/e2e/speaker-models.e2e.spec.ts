/**
 * Each speaker's model stays its own, through the real `dsh web` (this plugin installed, the offline model answering
 * under the DeepSeek provider's two model names): in one conversation that changes speakers four times — a pinned
 * profile with a temperature, another with no model, an `@` mention of a profile with its own model and effort, and
 * `@all` — every request the model received carries exactly the model, reasoning effort and temperature of the
 * profile answering it (or, for a profile with none, the conversation's own), never what the speaker before used, and
 * the turn ledger keeps exactly those per turn; and in real Chromium the host's own composer shows the model the next
 * turn will use after the user switches away from a profile that brings its model, without a reload.
 */
import { DatabaseSync } from 'node:sqlite'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openApp, openWorkspace, screenshot } from '../support/browser.ts'
import { bootEchoing, type Host } from '../support/host-api.ts'
import type { RecordedModel } from '../../lib/state/schema-state.ts'
import { isTitleRequest, textOf, type ModelServer, type RecordedRequest } from '../support/model-server.ts'

const PROVIDER = 'deepseek-official'
const FLASH = 'deepseek-v4-flash'
const PRO = 'deepseek-v4-pro'

let model: ModelServer
let host: Host

beforeAll(async () => {
  ;({ model, host } = await bootEchoing(40))
}, 180_000)

let browser: Browser | undefined

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
})

/** The id of the profile named `name` (the factory's 编程搭档 and 写作顾问, or one this spec made). */
async function idOf(name: string): Promise<string> {
  const { state } = await host.read()
  return state.profiles.find((p) => p.name === name)!.id
}

/** What a request asked of the model: its model, reasoning effort (with thinking) and temperature. */
function asked(r: RecordedRequest): Record<string, unknown> {
  return {
    model: r.model,
    reasoning_effort: r.body.reasoning_effort,
    thinking: r.body.thinking,
    temperature: r.body.temperature,
  }
}

/** The model of each turn of `sessionId` the turn ledger holds, in turn order, read without writing. */
function ledgerModels(dataFile: string, sessionId: string): RecordedModel[] {
  const db = new DatabaseSync(dataFile, { readOnly: true })
  try {
    const rows = db
      .prepare('SELECT model FROM turns WHERE session_id = ? AND model IS NOT NULL ORDER BY turn')
      .all(sessionId) as { model: string }[]
    return rows.map((r) => JSON.parse(r.model) as RecordedModel)
  } finally {
    db.close()
  }
}

/** The conversation's requests (those with tools: no title or background request) whose history carries `marker`. */
const ofConversation = (marker: string) => (r: RecordedRequest) =>
  !isTitleRequest(r) && r.tools.length > 0 && r.messages.some((m) => m.role === 'user' && textOf(m).includes(marker))

describe("each speaker's model, effort and temperature belong to its turn only (real dsh web)", () => {
  it('a conversation that changes speakers four times sends every request with its own speaker’s settings', async () => {
    // The factory's 编程搭档 and 写作顾问, given a model as a user does in the editor, and a profile with none.
    const coder = await idOf('编程搭档')
    const writer = await idOf('写作顾问')
    await host.command({
      op: 'profile.update',
      id: coder,
      patch: { model: { provider: PROVIDER, model: PRO, reasoningEffort: 'low', temperature: 0.3 } },
    })
    await host.command({
      op: 'profile.update',
      id: writer,
      patch: { model: { provider: PROVIDER, model: PRO, reasoningEffort: 'max' } },
    })
    await host.command({ op: 'profile.create', profile: { name: '测试老师', role: '你是测试老师。' } })
    const tester = await idOf('测试老师')
    await host.command({ op: 'profile.activate', id: 'general' })
    // What the conversation's own model asks when no profile brings one: a plain conversation's first request.
    const plain = await host.conversation()
    const [baseline] = await host.say(plain, 'PLAIN-0')
    const own = asked(baseline!)
    expect(own.model).toBe(FLASH)
    expect(own.temperature).toBeUndefined()
    const coderAsks = { model: PRO, reasoning_effort: 'low', thinking: { type: 'enabled' }, temperature: 0.3 }
    const writerAsks = { model: PRO, reasoning_effort: 'max', thinking: { type: 'enabled' }, temperature: undefined }

    const sessionId = await host.conversation()
    const expected: Array<Record<string, unknown>> = []
    const turn = async (text: string, answers: Array<Record<string, unknown>>) => {
      expected.push(...answers)
      await host.prompt(sessionId, text)
      await model.waitFor(ofConversation('SM-'), expected.length, 60_000)
    }
    await host.command({ op: 'session.set', sessionId, patch: { profileId: coder } })
    await turn('SM-1 编程搭档先来', [coderAsks])
    await host.command({ op: 'session.set', sessionId, patch: { profileId: tester } })
    await turn('SM-2 换测试老师', [own])
    await turn('@写作顾问 SM-3 请你来', [writerAsks])
    await turn('SM-4 回到测试老师', [own])
    await host.command({ op: 'session.set', sessionId, patch: { cast: [coder, writer] } })
    await turn('@all SM-5 大家说说', [coderAsks, writerAsks])
    await turn('SM-6 还是测试老师', [own])
    // Every request the model received for this conversation, in order: nothing more, each with its own settings.
    expect(model.requests.filter(ofConversation('SM-')).map(asked)).toEqual(expected)
    // The turn ledger keeps each turn's model and parameters as its request went out: its own speaker's, never the
    // one before (one request a turn here, so turn n's row is the n-th request). Written as the request goes out,
    // not awaited by the turn: read until the last turn's row is there.
    const wanted = expected.map((e) => ({
      provider: PROVIDER,
      model: e.model,
      reasoningEffort: e.reasoning_effort,
      temperature: e.temperature,
    }))
    await expect.poll(() => ledgerModels(host.home.dataFile, sessionId).length, { timeout: 10_000 }).toBe(wanted.length)
    expect(ledgerModels(host.home.dataFile, sessionId)).toEqual(wanted)
  })
})

describe('the composer says what the next turn will use (real Chromium)', () => {
  it('shows the conversation’s model again after switching away from a profile that brings its own, without reload', async () => {
    await host.command({
      op: 'profile.create',
      profile: {
        name: 'Expert 专家',
        role: '你是专家。',
        model: { provider: PROVIDER, model: PRO, reasoningEffort: 'max' },
      },
    })
    await host.command({ op: 'profile.activate', id: 'general' })
    // The user once picked Flash in a composer: it is their saved default, the model a conversation starts on.
    await host.rpc('session.selectModel', { sessionId: await host.conversation(), provider: PROVIDER, model: FLASH })
    browser = await launchBrowser()
    const { page } = await openApp(browser, host.web.url)
    await openWorkspace(page)
    const picker = (model: RegExp) =>
      page.locator('[data-composer-card]').getByRole('button', { name: model }).waitFor({ timeout: 20_000 })
    const trigger = page.locator('.ap-switcher-trigger')
    await trigger.waitFor({ timeout: 60_000 })
    await trigger.click()
    await page.getByRole('menuitemradio', { name: /Expert/ }).click()
    await picker(/Select model, current DeepSeek-V4-Pro, reasoning effort Max/)
    // Back to the default profile, which brings no model: the composer shows the conversation's own again.
    await trigger.click()
    await page.getByRole('menuitemradio', { name: /Follow the default profile/ }).click()
    await picker(/Select model, current DeepSeek-V4-Flash, reasoning effort High/)
    await screenshot(page, 'composer-after-switch')
  })
})
