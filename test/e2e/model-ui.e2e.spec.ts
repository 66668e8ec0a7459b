/**
 * A profile's model in real Chromium against the real `dsh web` (offline model under the DeepSeek provider's two model
 * names): the editor's Model section offers exactly the host's models and saves the pick; the quick switcher's menu
 * names the model each profile brings; pinning that profile makes the host's own composer show that model; the
 * request goes out on it and the turn head's tooltip names it; a profile whose provider has no API key answers on the
 * conversation's model, the turn head saying so. Screenshots go to test-artifacts/.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import {
  chooseProfile,
  openApp,
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  send,
  startBrowserApp,
  type BrowserApp,
} from '../support/browser.ts'
import { makeHome, piAiProvider } from '../support/dsh.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, type ModelServer } from '../support/model-server.ts'

const REVIEWER = { name: 'Reviewer 审阅', emoji: '🔍', role: '你是代码审阅者。' }

let app: BrowserApp | undefined
let model: ModelServer
let host: Host
let browser: Browser
let page: Page
let reviewerId: string

beforeAll(async () => {
  app = await startBrowserApp({
    prepare: async (host) => {
      reviewerId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: REVIEWER })).profile.id
      await host.command({ op: 'profile.activate', id: 'general' })
    },
  })
  ;({ model, host, browser, page } = app)
}, 180_000)

afterAll(async () => {
  await app?.close()
})

describe("a profile's model in the real web UI", () => {
  it("the editor offers the host's own models and saves the pick", async () => {
    await openSettings(page, { reload: false })
    await chooseProfile(page, REVIEWER.name)
    await openSection(page, 'Model')
    const select = page.locator('.ap-settings').getByLabel('Model its conversations answer on')
    // The host's list arrives: the conversation's model first, then the provider's two models, nothing else.
    await page
      .locator('.ap-settings option', { hasText: 'DeepSeek-V4-Pro' })
      .waitFor({ state: 'attached', timeout: 30_000 })
    const options = await select.locator('option').allTextContents()
    expect(options).toEqual([
      "The conversation's model (as picked in the composer)",
      'DeepSeek-V4-Flash (deepseek-v4-flash)',
      'DeepSeek-V4-Pro (deepseek-v4-pro)',
    ])
    await select.selectOption({ label: 'DeepSeek-V4-Pro (deepseek-v4-pro)' })
    const efforts = await page
      .locator('.ap-settings')
      .getByLabel('Reasoning effort')
      .locator('option')
      .allTextContents()
    expect(efforts.length).toBeGreaterThan(1)
    await page.locator('.ap-settings').getByLabel('Temperature').fill('0.4')
    await screenshot(page, 'model-editor')
    await page.locator('.ap-settings').getByRole('button', { name: 'Save' }).click()
    await expect
      .poll(async () => (await host.profile(reviewerId)).model, { timeout: 10_000 })
      .toEqual({ provider: 'deepseek-official', model: 'deepseek-v4-pro', temperature: 0.4 })
  })

  it("the switcher names the profile's model, the composer shows it once pinned, and the request runs on it", async () => {
    await page.reload()
    await openWorkspace(page)
    const trigger = page.locator('.ap-switcher-trigger')
    await trigger.filter({ hasText: 'Default' }).waitFor({ timeout: 60_000 })
    await trigger.click()
    const item = page.getByRole('menuitemradio', { name: /Reviewer/ })
    await item.waitFor()
    expect(await item.textContent()).toContain('Model: deepseek-v4-pro')
    await screenshot(page, 'switcher-model')
    await item.click()
    await page.locator('.ap-toast').waitFor({ timeout: 10_000 })
    expect(await trigger.getAttribute('data-ap-model')).toBe('deepseek-v4-pro')
    // The host's own model picker in the composer now shows the model that will answer.
    await page
      .locator('[data-composer-card]')
      .getByRole('button', { name: /Select model, current DeepSeek-V4-Pro/ })
      .waitFor({ timeout: 20_000 })
    await send(page, 'MQ1 which model')
    const [request] = await model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes('MQ1'), 1, 60_000)
    expect(request!.model).toBe('deepseek-v4-pro')
    expect(request!.body.temperature).toBe(0.4)
    const head = page.locator('[data-ap-turn-head][data-ap-model]')
    await head.first().waitFor({ timeout: 60_000 })
    expect(await head.first().getAttribute('title')).toContain('Answered on deepseek-v4-pro (deepseek-official)')
    await screenshot(page, 'turn-head-model')
  })
})

describe('a profile whose provider has no API key (real web UI)', () => {
  it("answers on the conversation's model, the turn does not fail, and the turn head says why", async () => {
    // A provider added as Settings → Models adds one (an OpenAI-compatible route to the offline model) whose key
    // reference is stored nowhere: the host lists the provider and its model, and would fail the call for the key.
    delete process.env.AP_NOKEY_B
    const home = makeHome(['web'])
    writeFileSync(
      join(home.dir, 'settings.yaml'),
      `ui-onboarding:\n  welcomeNoticeVersion: 2026-08-13.1\n${piAiProvider('nokey-b', 'AP_NOKEY_B', 'nokey-large', model.url)}`,
    )
    const b = await bootHost(model, { home })
    const tab = (await openApp(browser, b.web.url)).page
    try {
      // Saving names a model the host offers: the key is a call-time matter the user may settle later.
      const { profile } = await b.command<{ profile: Profile }>({
        op: 'profile.create',
        profile: { name: 'Keyless 无钥', role: '你是助手。', model: { provider: 'nokey-b', model: 'nokey-large' } },
      })
      await b.command({ op: 'profile.activate', id: profile.id })
      model.respond((r) => (isTitleRequest(r) ? undefined : { text: `ANSWERED ${r.lastUser}` }))
      await tab.reload()
      await openWorkspace(tab)
      await send(tab, 'NK1 hello')
      const [request] = await model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes('NK1'), 1, 60_000)
      expect(request!.model).toBe('deepseek-v4-flash')
      expect(model.requests.some((r) => r.model === 'nokey-large')).toBe(false)
      await tab.getByText('ANSWERED NK1 hello').first().waitFor({ timeout: 30_000 })
      const notice = tab.locator('[data-ap-turn-head] [data-ap-model-fallback]')
      await notice.first().waitFor({ timeout: 30_000 })
      expect(await notice.first().isVisible()).toBe(true)
      expect(await notice.first().textContent()).toContain('deepseek-v4-flash')
      expect(await notice.first().getAttribute('title')).toContain('provider "nokey-b" has no API key yet')
      expect(await tab.getByText(/turn failed/i).count()).toBe(0)
      await screenshot(tab, 'model-no-key')
    } finally {
      model.respond(undefined)
      await tab.context().close()
      await b.web.stop()
      home.cleanup()
    }
  })
})
