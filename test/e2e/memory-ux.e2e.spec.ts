/**
 * Memory the user can see and steer, in real Chromium against the real `dsh web` with the offline demo model: after
 * the fifth turn the "memory updated" row shows the facts the extraction stored; undo of one fact and of the whole
 * run removes exactly those; the row (and the model's memory_save row with its undo) is still there after a reload;
 * the settings page's history reverts an entry. Screenshots go to test-artifacts/.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WireState } from '../../lib/shared/wire-state.ts'
import {
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  send,
  startBrowserApp,
  turnOver,
  type BrowserApp,
} from '../support/browser.ts'
import type { Host } from '../support/host-api.ts'
import { isTitleRequest, textOf, type ModelServer } from '../support/model-server.ts'
import { kindOf, until } from '../support/memory-requests.ts'

let model: ModelServer
let host: Host
let page: Page

const HAND = '手写的一条旧事实'
const TURNS = ['请记住我的猫叫年糕', '我住在杭州。', '我喜欢乌龙茶。', 'I work on a compiler.', '好的，谢谢']
const FACTS = ['我住在杭州', '我喜欢乌龙茶', 'I work on a compiler']

const serverState = async (): Promise<WireState> => (await host.read<{ state: WireState }>()).state
const active = async () => host.profile((await serverState()).activeId)
const texts = async () => (await active()).memory.items.map((it) => it.text)

/**
 * Send `message` from the composer and wait until the turn it starts is over: this turn's head and the demo's reply
 * are on the page (the memory_save reply is the same words each time, so the new head tells this turn's apart), and
 * the host's composer offers Send again. The next message must not join this turn.
 */
async function turn(message: string): Promise<void> {
  const heads = await page.locator('[data-ap-turn-head]').count()
  await send(page, message)
  await model.waitFor((r) => kindOf(r) === 'turn' && r.lastUser.includes(message), 1, 60_000)
  await page.waitForFunction(
    ({ m, n }) =>
      document.querySelectorAll('[data-ap-turn-head]').length > n &&
      // The demo answers in the message's language.
      (document.body.innerText.includes(`已收到：${m}`) ||
        document.body.innerText.includes(`Received: ${m}`) ||
        document.body.innerText.includes('已用 memory_save 保存')),
    { m: message, n: heads },
    { timeout: 60_000 },
  )
  await turnOver(page)
}

const row = (): Locator => page.locator('[data-ap-update][data-who="auto"]')
const facts = async (): Promise<Array<[string, string | null]>> =>
  row()
    .locator('[data-ap-fact]')
    .evaluateAll((els) =>
      els.map(
        (el) =>
          [el.querySelector('span, s')?.textContent ?? '', el.getAttribute('data-undone')] as [string, string | null],
      ),
    )

let app: BrowserApp

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'zh' })
  ;({ model, host, page } = app)
  await host.command({
    op: 'memory.add',
    target: { profileId: (await serverState()).activeId },
    items: [{ text: HAND }],
  })
  await openWorkspace(page)
}, 180_000)

afterAll(async () => {
  await app?.close()
})

describe('memory updates in the real web UI', () => {
  it('after the fifth turn the row lists the extracted facts; the model never reads it', async () => {
    for (const message of TURNS) await turn(message)
    await row().waitFor({ timeout: 60_000 })
    expect(await facts()).toEqual(FACTS.map((f) => [f, 'false']))
    expect(await row().textContent()).toContain('记忆已更新（通用助手）')
    expect(await texts()).toEqual([HAND, '我的猫叫年糕', ...FACTS])
    await screenshot(page, 'memory-updated-row')
    await turn('第六轮')
    const [sixth] = await model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes('第六轮'), 1)
    const everything = sixth!.system + sixth!.messages.map((m) => textOf(m)).join('\n')
    expect(everything).not.toContain('记忆已更新')
    expect(everything).toContain('我住在杭州')
  })

  it('undo of one fact removes exactly it, and the row says so after a reload', async () => {
    await row().getByRole('button', { name: '撤销「我喜欢乌龙茶」' }).click()
    await until('the fact to go', async () => ((await texts()).includes('我喜欢乌龙茶') ? undefined : true))
    expect(await texts()).toEqual([HAND, '我的猫叫年糕', '我住在杭州', 'I work on a compiler'])
    await page.reload({ waitUntil: 'domcontentloaded' })
    await page.getByText(TURNS[0]!).first().click({ timeout: 30_000 })
    await row().waitFor({ timeout: 30_000 })
    expect(await facts()).toEqual([
      ['我住在杭州', 'false'],
      ['我喜欢乌龙茶', 'true'],
      ['I work on a compiler', 'false'],
    ])
    await screenshot(page, 'memory-updated-after-reload')
  })

  it('undo of the whole run removes the rest of it and nothing else', async () => {
    await row().getByRole('button', { name: '全部撤销' }).click()
    await until('the run to go', async () => ((await texts()).includes('我住在杭州') ? undefined : true))
    expect(await texts()).toEqual([HAND, '我的猫叫年糕'])
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-ap-update] [data-ap-fact]')].every(
        (el) => el.getAttribute('data-undone') === 'true',
      ),
    )
  })

  it("the model's memory_save row offers the same undo", async () => {
    const saved = page.locator('[data-ap-memory-save="saved"]')
    await saved.waitFor({ timeout: 30_000 })
    await saved.getByRole('button', { name: '撤销「我的猫叫年糕」' }).click()
    await until('the saved fact to go', async () => ((await texts()).includes('我的猫叫年糕') ? undefined : true))
    expect(await texts()).toEqual([HAND])
    await saved.locator('[data-undone="true"]').waitFor()
  })

  it('the settings page\'s history reverts an entry: reverting the "undo all" brings those facts back', async () => {
    await openSettings(page)
    await openSection(page, '记忆')
    await page.locator('.ap-settings details.ap-history > summary').click()
    const entries = page.locator('.ap-settings [data-history-id]')
    await entries.first().waitFor()
    // Newest first: the memory_save undo, then the whole-run undo, the one-fact undo, the extraction, the save, the hand.
    expect(await entries.evaluateAll((els) => els.map((el) => el.getAttribute('data-who')))).toEqual([
      'undo',
      'undo',
      'undo',
      'auto',
      'tool',
      'user',
    ])
    await screenshot(page, 'memory-history')
    await entries.nth(1).getByRole('button', { name: '撤销这次改动' }).click()
    await until('the facts to come back', async () => ((await texts()).includes('我住在杭州') ? true : undefined))
    expect(await texts()).toEqual([HAND, '我住在杭州', 'I work on a compiler'])
    await page.locator('.ap-settings .ap-history [role="status"]').waitFor()
  })
})
