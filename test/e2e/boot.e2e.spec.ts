/**
 * Foundation, end to end: the plugin installed into a fresh DSH_HOME the documented way boots in the real `dsh`
 * headless and web profiles, reaches the model's system prompt, and its browser half loads in real Chromium; a
 * headless run beside a running `dsh web` saves too, and neither loses the other's save.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Browser } from 'playwright-core'
// @ts-expect-error -- plain ESM script shared with `npm start`; it has no type declarations.
import { installPlugin } from '../../scripts/install-plugin.mjs'
import { launchBrowser, openApp, screenshot } from '../support/browser.ts'
import { makeHome, ROOT, runHeadless, startWeb, type Home, type Web } from '../support/dsh.ts'
import { isTitleRequest, savesMemory, startModelServer, type ModelServer } from '../support/model-server.ts'

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
    expect(manifest.dsh.profile.bundles).toEqual([
      '@deepseek-ai/dsh-base',
      '@deepseek-ai/dsh-web-app',
      'dsh-agent-profiles',
    ])
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

  it("serves the browser half as the host's lazy factory, and the plugin's own routes", async () => {
    const js = await fetch(`${web.url}/plugins/dsh-agent-profiles/client.js`)
    expect(js.status).toBe(200)
    expect(await js.text()).toMatch(
      /^window\.__ModuleLoader__\.load\(\{ id: "dsh-agent-profiles", factory: \(require\) => \{/,
    )
    const state = await fetch(`${web.url}/__ap/state`)
    expect(state.status).toBe(200)
    const body = (await state.json()) as { state: { profiles: Array<{ name: string }> } }
    expect(body.state.profiles.map((p) => p.name)).toContain('通用助手')
    expect(web.output()).not.toMatch(/pending|did not activate/i)
  })

  it('boots the page in Chromium with our entries active: the composer switcher and the settings page', async () => {
    const { page, errors } = await openApp(browser, web.url, { firstRun: true })
    await page
      .locator('.ap-switcher')
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 })
      .catch(async (e) => {
        await screenshot(page, 'boot-failed')
        throw e
      })
    await page.getByText(/^Settings$/).click()
    await page
      .getByText(/^Agent profiles$/)
      .first()
      .click()
    await page.getByText('通用助手').first().waitFor({ state: 'visible', timeout: 15_000 })
    await screenshot(page, 'boot-settings')
    expect(await page.locator('body').innerText()).not.toMatch(/did not activate/)
    expect(errors).toEqual([])
  })

  it("a headless run beside it saves a memory while dsh web is idle, and dsh web's next save keeps it", async () => {
    const post = async (body: object) => {
      const r = await fetch(`${web.url}/__ap/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(r.status).toBe(200)
      return (await r.json()) as { state: { profiles: Array<{ id: string }> } }
    }
    await post({ op: 'profile.update', id: 'general', patch: { rules: '网页进程写下的规则' } })
    model.reset()
    model.respond(savesMemory(['用户住在杭州']))
    const run = await runHeadless(home, model, '请记住我住在杭州')
    model.respond(undefined)
    expect(run.code, run.stderr).toBe(0)
    const turns = model.requests.filter((r) => !isTitleRequest(r))
    // The headless run's prompt carries what dsh web saved a moment ago, and its save went through.
    expect(turns[0]!.system).toContain('网页进程写下的规则')
    const result = turns
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => JSON.stringify(m.content))
      .join('\n')
    expect(result).toContain('已记住')
    // dsh web's next save starts from what the headless run saved: both are there.
    await post({ op: 'profile.update', id: 'general', patch: { personality: '之后照常保存' } })
    // The state carries heads; the profile whole is its own request.
    const { profile: general } = (await (await fetch(`${web.url}/__ap/profile/general`)).json()) as {
      profile: { rules: string; personality: string; memory: { items: Array<{ text: string }> } }
    }
    expect(general.memory.items.map((it) => it.text)).toContain('用户住在杭州')
    expect([general.rules, general.personality]).toEqual(['网页进程写下的规则', '之后照常保存'])
  })

  it('a restart on saved data checks the whole file on its own thread, and the state says the file is sound', async () => {
    await web.stop()
    web = await startWeb(home, model)
    const check = async () =>
      ((await (await fetch(`${web.url}/__ap/state`)).json()) as { meta: { data?: { check?: { state: string } } } }).meta
        .data?.check
    // dist/store-worker.js, beside the plugin's bundle, ran in the real host and answered.
    await vi.waitFor(async () => expect(await check()).toMatchObject({ state: 'sound', at: expect.any(Number) }), {
      timeout: 60_000,
      interval: 250,
    })
  })
})
