/**
 * Popovers taller than the room they have, in real Chromium at 800×900 against the real `dsh web` (offline model):
 * the ⚙ panel with pending suggestions and a long list of the conversation's memories, and the list of 140 memories a
 * turn used. Each opens with its heading and Close inside the window, and Close closes it. The toast a cast change
 * raises stays clear of the cast menu, whose last item still takes a click.
 */
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import { launchBrowser, openApp, openWorkspace, screenshot, screenshotOnFailure, send } from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let host: Host
let browser: Browser
let page: Page
let profileId: string

const WIDTH = 800
const HEIGHT = 900

beforeAll(async () => {
  model = await startModelServer()
  host = await bootHost(model)
  const items = Array.from({ length: 140 }, (_, i) => ({ text: `长清单里的第 ${i + 1} 条记忆` }))
  // Created profiles become the default, so the first turn runs on this one and uses all of its memories.
  profileId = (
    await host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { name: '长清单', role: '你是长清单。', memory: { summary: '', items } },
    })
  ).profile.id
  browser = await launchBrowser()
  page = (await openApp(browser, host.web.url, { lang: 'zh' })).page
  await page.setViewportSize({ width: WIDTH, height: HEIGHT })
}, 180_000)

afterEach(async (context) => {
  // A layer a failed test left open must not cover the next test's controls.
  await page.keyboard.press('Escape')
  await screenshotOnFailure(page, context, 'popover-fit')
})

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
})

/** Whether the whole of `el` is inside the window and is what a click at its middle reaches. */
async function inSight(el: Locator): Promise<boolean> {
  const box = await el.boundingBox()
  if (box === null) return false
  const inside = box.y >= 0 && box.x >= 0 && box.y + box.height <= HEIGHT && box.x + box.width <= WIDTH
  const reached = await el.evaluate((node) => {
    const r = node.getBoundingClientRect()
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
    return hit !== null && (hit === node || node.contains(hit))
  })
  return inside && reached
}

describe('popovers fit the window', () => {
  it('the memories a turn used: 140 of them, heading and Close in sight', async () => {
    // Three turns: the last one's head sits low in the window, so its list opens upwards, into less room than it needs.
    await openWorkspace(page)
    const heads = page.locator('[data-ap-turn-head][data-profile-id] .ap-turn-memories')
    for (const [i, said] of ['你好', '再说一次', '最后一次'].entries()) {
      await send(page, said)
      await heads.nth(i).waitFor({ timeout: 60_000 })
    }
    const used = heads.last()
    const anchor = (await used.boundingBox())!
    expect(anchor.y).toBeGreaterThan(HEIGHT / 2)
    await used.click()
    const shown = page.getByRole('dialog', { name: '这一轮用到的记忆' })
    await shown.locator('.ap-turn-memory').first().waitFor({ timeout: 10_000 })
    expect(await shown.locator('.ap-turn-memory').count()).toBeGreaterThanOrEqual(100)
    await screenshot(page, 'popover-fit-turn-memories')
    expect(await inSight(shown.getByRole('heading', { name: '这一轮用到的记忆' }))).toBe(true)
    const close = shown.getByRole('button', { name: '关闭', exact: true })
    expect(await inSight(close)).toBe(true)
    await close.click()
    await shown.waitFor({ state: 'detached' })
  })

  it('the ⚙ panel with pending suggestions and 40 memories: heading and Close in sight', async () => {
    // The page's conversation, the one the turn above started: the only one the host lists.
    const listed = JSON.stringify(await host.rpc<unknown>('session.list', {}))
    const sessionId = /"(?:sessionId|id)":"([^"]+)"/.exec(listed)?.[1]
    if (sessionId === undefined) throw new Error(`no conversation in ${listed.slice(0, 300)}`)
    const memories = Array.from({ length: 40 }, (_, i) => ({
      text: `本对话的第 ${i + 1} 条记忆：${'一段较长的说明，'.repeat(4)}`,
    }))
    await host.command({ op: 'session.set', sessionId, patch: { memories } })
    // The profile asks first: what the background job finds waits in the panel as suggestions.
    await host.command({ op: 'profile.update', id: profileId, patch: { memoryMode: 'ask' } })
    await host.command({
      op: 'memory.add',
      target: { profileId },
      items: Array.from({ length: 6 }, (_, i) => ({
        text: `待确认的建议 ${i + 1}：${'用户提过的一件事，'.repeat(3)}`,
        source: 'auto',
        sessionId,
      })),
    })
    await page.locator('.ap-switcher-gear').click()
    const panel = page.getByRole('dialog', { name: '本对话设定' })
    await panel.getByText('待确认的建议 6', { exact: false }).first().waitFor({ timeout: 10_000 })
    await screenshot(page, 'popover-fit-panel')
    expect(await inSight(panel.getByRole('heading', { name: '本对话设定' }))).toBe(true)
    const close = panel.getByRole('button', { name: '关闭', exact: true })
    expect(await inSight(close)).toBe(true)
    await close.click()
    await panel.waitFor({ state: 'detached' })
  })

  it('the toast of a cast change never covers the cast menu: its last item is in sight and takes the click', async () => {
    await page.locator('.ap-switcher-trigger').click()
    const menu = page.getByRole('menu')
    const toggles = menu.locator('[data-cast-profile-id]')
    expect(await toggles.count()).toBeGreaterThanOrEqual(3)
    await toggles.first().click()
    const toast = page.locator('.ap-toast')
    await toast.waitFor({ timeout: 10_000 })
    await screenshot(page, 'popover-fit-cast-toast')
    const [a, b] = [(await toast.boundingBox())!, (await menu.boundingBox())!]
    const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
    expect(apart).toBe(true)
    expect(await inSight(toast)).toBe(true)
    const last = toggles.last()
    expect(await inSight(last)).toBe(true)
    await last.click()
    await expect.poll(() => last.getAttribute('aria-checked')).toBe('true')
  })
})
