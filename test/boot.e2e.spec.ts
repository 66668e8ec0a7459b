/**
 * Foundation, end to end: the plugin installed into a fresh DSH_HOME the documented way boots in the real `dsh`
 * headless and web profiles, reaches the model's system prompt, and its browser half loads in real Chromium.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
// @ts-expect-error -- plain ESM script shared with `npm start`; it has no type declarations.
import { installPlugin } from '../scripts/install-plugin.mjs'
import { launchBrowser, openApp, screenshot } from './support/browser.ts'
import { makeHome, ROOT, runHeadless, startWeb, type Home, type Web } from './support/dsh.ts'
import { isTitleRequest, startModelServer, type ModelServer } from './support/model-server.ts'

let model: ModelServer
let home: Home

beforeAll(async () => {
  model = await startModelServer()
  // A brand-new home: the first-run notice shows, as it does for a new user.
  home = makeHome(['headless', 'web'], { acknowledged: false })
})
afterAll(async () => {
  await model?.close()
  home?.cleanup()
})

describe('install', () => {
  it('lists the plugin as a bundle of the profile and links this checkout, idempotently', () => {
    installPlugin({ home: home.dir, profile: 'web', target: ROOT })
    const manifest = JSON.parse(readFileSync(join(home.dir, 'profiles', 'web', 'package.json'), 'utf8'))
    expect(manifest.dsh.profile.bundles).toEqual(['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-web-app', 'dsh-agent-profiles'])
    expect(manifest.dependencies['dsh-agent-profiles']).toBe(`link:${ROOT}`)
  })
})

describe('headless profile (no web server)', () => {
  it('boots, completes a task, and the model request carries the factory default profile', async () => {
    model.reset()
    const run = await runHeadless(home, model, '你好，请介绍一下你自己')
    expect(run.stderr).not.toMatch(/pending|did not activate|agent-profiles.*(error|failed)/i)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('（离线模型）已收到：你好，请介绍一下你自己')
    const turn = model.requests.find((r) => !isTitleRequest(r))!
    expect(turn.lastUser).toBe('你好，请介绍一下你自己')
    expect(turn.system).toContain('# 智能体配置')
    expect(turn.system).toContain('你是「通用助手」')
    // The persona follows the harness identity, as a deployment persona would.
    expect(turn.system.indexOf('DeepSeek Harness')).toBeLessThan(turn.system.indexOf('# 智能体配置'))
  })
})

describe('web profile', () => {
  let web: Web
  let browser: Browser
  beforeAll(async () => {
    web = await startWeb(home, model)
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await web?.stop()
  })

  it('serves the browser half as the host\'s lazy factory, and the plugin\'s own routes', async () => {
    const js = await fetch(`${web.url}/plugins/dsh-agent-profiles/client.js`)
    expect(js.status).toBe(200)
    expect(await js.text()).toMatch(/^window\.__ModuleLoader__\.load\(\{ id: "dsh-agent-profiles", factory: \(require\) => \{/)
    const state = await fetch(`${web.url}/__ap/state`)
    expect(state.status).toBe(200)
    const body = await state.json() as { state: { profiles: Array<{ name: string }> } }
    expect(body.state.profiles.map((p) => p.name)).toContain('通用助手')
    expect(web.output()).not.toMatch(/pending|did not activate/i)
  })

  it('boots the page in Chromium with our entries active: the composer switcher and the settings page', async () => {
    const { page, errors } = await openApp(browser, web.url, { firstRun: true })
    await page.locator('.ap-switcher').first().waitFor({ state: 'visible', timeout: 30_000 }).catch(async (e) => {
      await screenshot(page, 'boot-failed')
      throw e
    })
    await page.getByText(/^Settings$/).click()
    await page.getByText(/^Agent profiles$/).first().click()
    await page.getByText('通用助手').first().waitFor({ state: 'visible', timeout: 15_000 })
    await screenshot(page, 'boot-settings')
    expect(await page.locator('body').innerText()).not.toMatch(/did not activate/)
    expect(errors).toEqual([])
  })
})
