/**
 * Live updates in real Chromium against the real `dsh web` (offline model): two pages of one conversation, and a
 * change made in one of them, over the HTTP API or by the model, shows in the other with no reload; a turn head
 * names the profile that answered even when the default changed elsewhere or that profile was deleted since; a
 * draft being typed survives a save of the same profile elsewhere and offers the choice; the page picks up again
 * after the host restarts. The channel's fence is checked on the real host too. Screenshots go to test-artifacts/.
 */
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WireState } from '../../lib/shared/wire-state.ts'
import type { Profile } from '../../lib/state/model.ts'
import {
  chooseProfile,
  launchBrowser,
  openApp,
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  send,
  showProfileList,
} from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { httpClient } from '../support/http.ts'
import { openChannel, opened } from '../support/ws-client.ts'
import { isTitleRequest, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server.ts'
import { pngDataUrl } from '../support/png.ts'
import { headNames } from '../support/turn-heads.ts'

const ALPHA = { name: 'Alpha 搭档', emoji: '🦊', role: '你是 Alpha 搭档，暗号 ALPHA-5120。' }
const BETA = { name: 'Beta 搭档', emoji: '🐙', role: '你是 Beta 搭档，暗号 BETA-6231。' }
/** How long a change may take to show in the other page here; the benchmark measures the real figure. */
const SHOWS = { timeout: 10_000 }

let model: ModelServer
let host: Host
let restarted: Host | undefined
let browser: Browser
let a: Page
let b: Page
let alphaId: string
let betaId: string
let factoryId: string

const serverState = async (): Promise<WireState> => (await (restarted ?? host).read<{ state: WireState }>()).state

async function requestFor(marker: string): Promise<RecordedRequest> {
  const asked = (r: RecordedRequest): boolean => !isTitleRequest(r) && r.lastUser.includes(marker)
  const [request] = await model.waitFor(asked, 1, 60_000)
  return request!
}

const switcher = (page: Page): Locator => page.locator('.ap-switcher-trigger')

/** Mark the page so that a reload (which would clear the mark) is seen. */
async function mark(page: Page): Promise<void> {
  await page.evaluate(() => {
    ;(window as unknown as { apMark: boolean }).apMark = true
  })
}
async function stillMarked(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { apMark?: boolean }).apMark === true)
}

async function pick(page: Page, name: RegExp): Promise<void> {
  await switcher(page).click()
  await page.getByRole('menuitemradio', { name }).click()
  await page.locator('.ap-toast').waitFor({ timeout: 10_000 })
}

beforeAll(async () => {
  model = await startModelServer()
  host = await bootHost(model)
  alphaId = (
    await host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { ...ALPHA, avatar: pngDataUrl(24, 24, 5) },
    })
  ).profile.id
  betaId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: BETA })).profile.id
  factoryId = (await serverState()).profiles.find((p) => p.id !== alphaId && p.id !== betaId)!.id
  await host.command({ op: 'profile.activate', id: factoryId })
  browser = await launchBrowser()
  a = (await openApp(browser, host.web.url)).page
  await openWorkspace(a)
  await send(a, 'LV1 hello from page A')
  await requestFor('LV1')
  await headNames(a, 1)
  b = (await openApp(browser, host.web.url)).page
  await b.getByText('LV1 hello from page A').first().click({ timeout: 30_000 })
  await headNames(b, 1)
  await mark(b)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await restarted?.stop()
  await host?.stop()
  await model?.close()
})

describe('every open page follows every save', () => {
  it('a switch in one page shows in the other page of the same conversation', async () => {
    await switcher(b).filter({ hasText: 'Default' }).waitFor({ timeout: 30_000 })
    await pick(a, /Alpha/)
    await switcher(b).filter({ hasText: 'Alpha' }).filter({ hasText: 'Pinned' }).waitFor(SHOWS)
    expect(await stillMarked(b)).toBe(true)
  })

  it('the next turn sent from the other page carries and shows the profile switched to', async () => {
    await send(b, 'LV2 from page B')
    expect((await requestFor('LV2')).system).toContain('ALPHA-5120')
    const heads = await headNames(b, 2)
    expect(heads[1]).toEqual({ id: alphaId, name: ALPHA.name })
    // Page A hears of B's turn through the host's own chat stream; its head shows Alpha as well.
    expect((await headNames(a, 2))[1]).toEqual({ id: alphaId, name: ALPHA.name })
  })

  it('a profile created, then renamed, over the API shows in an open settings page', async () => {
    await openSettings(b, { reload: false })
    const created = (
      await host.command<{ profile: Profile }>({ op: 'profile.create', profile: { name: 'Gamma 新来的' } })
    ).profile
    // Creating makes it the default; going back keeps the other specs' conversations as they were.
    await host.command({ op: 'profile.activate', id: factoryId })
    const item = b.locator(`.ap-settings .ap-list-item[data-profile-id="${created.id}"]`)
    await item.filter({ hasText: 'Gamma 新来的' }).waitFor({ state: 'attached', ...SHOWS })
    // The default moved there and back, which folds a narrow page's list; unfold it to look.
    await showProfileList(b)
    await item.filter({ hasText: 'Gamma 新来的' }).waitFor(SHOWS)
    await host.command({ op: 'profile.update', id: created.id, patch: { name: 'Gamma 改了名' } })
    await item.filter({ hasText: 'Gamma 改了名' }).waitFor(SHOWS)
    expect(await stillMarked(b)).toBe(true)
    await screenshot(b, 'live-created-elsewhere')
  })

  it("a memory the model saves in one page shows in the other page's settings", async () => {
    const fact = '用户住在海边 LVM3'
    model.respond((r) => {
      if (!r.lastUser.includes('LVM3')) return undefined
      return r.messages.at(-1)?.role === 'tool'
        ? { text: '记住了。' }
        : { toolCalls: [{ name: 'memory_save', arguments: { facts: [fact] } }] }
    })
    await chooseProfile(b, ALPHA.name)
    await openSection(b, 'Memory')
    await send(a, 'LVM3 remember where I live')
    await b.locator('.ap-settings .ap-memory-text', { hasText: fact }).waitFor({ timeout: 60_000 })
    model.respond(undefined)
    expect(await stillMarked(b)).toBe(true)
  })

  it('a draft being typed survives a save of the same profile elsewhere, and the user chooses', async () => {
    await openSection(b, 'Profile')
    const role = b.locator('.ap-settings textarea').first()
    await role.fill('我在这里改的角色 DRAFT-1')
    await host.command({
      op: 'profile.update',
      id: alphaId,
      patch: { role: '别处保存的角色 THEIRS-1', personality: '别处改的性格' },
    })
    const notice = b.locator('.ap-settings [data-ap-conflict]')
    await notice.waitFor(SHOWS)
    expect(await notice.getAttribute('data-ap-conflict')).toBe('role')
    expect(await role.inputValue()).toBe('我在这里改的角色 DRAFT-1')
    // The field the user did not touch follows the saved profile.
    await expect.poll(() => b.locator('.ap-settings textarea').nth(1).inputValue(), SHOWS).toBe('别处改的性格')
    await screenshot(b, 'live-draft-conflict')
    await notice.getByRole('button', { name: 'Keep my edits' }).click()
    await notice.waitFor({ state: 'detached' })
    expect(await role.inputValue()).toBe('我在这里改的角色 DRAFT-1')

    await host.command({ op: 'profile.update', id: alphaId, patch: { role: '又一次别处保存 THEIRS-2' } })
    await notice.waitFor(SHOWS)
    await notice.getByRole('button', { name: 'Use the saved version' }).click()
    expect(await role.inputValue()).toBe('又一次别处保存 THEIRS-2')
    expect(await stillMarked(b)).toBe(true)
  })
})

describe('a turn head names the profile that answered', () => {
  let conversationHeads = 0

  it('after the default changed elsewhere, the next turn carries and shows the new default', async () => {
    await b.keyboard.press('Escape')
    await b.locator('.ap-settings').waitFor({ state: 'detached' })
    await b
      .getByRole('button', { name: /^New session$/i })
      .first()
      .click()
    await switcher(b).filter({ hasText: 'Default' }).waitFor({ timeout: 30_000 })
    // The new conversation shows none of the last one's heads before its own first turn.
    await expect.poll(() => b.locator('[data-ap-turn-head]').count(), { timeout: 30_000 }).toBe(0)
    await send(b, 'TD1 on the default')
    await requestFor('TD1')
    await expect.poll(async () => (await headNames(b, 1))[0]!.id, { timeout: 30_000 }).toBe(factoryId)
    await host.command({ op: 'profile.activate', id: betaId })
    await switcher(b).filter({ hasText: 'Beta' }).waitFor(SHOWS)
    await send(b, 'TD2 after the default changed')
    expect((await requestFor('TD2')).system).toContain('BETA-6231')
    const heads = await headNames(b, 2)
    expect(heads.map((h) => h.id)).toEqual([factoryId, betaId])
    expect(heads[1]!.name).toBe(BETA.name)
    conversationHeads = heads.length
  })

  it("a profile deleted since keeps its name on the turns it answered, never another profile's", async () => {
    await host.command({ op: 'profile.activate', id: factoryId })
    await host.command({ op: 'profile.delete', id: betaId })
    await switcher(b).filter({ hasText: 'Default' }).waitFor(SHOWS)
    expect((await headNames(b, conversationHeads))[1]).toEqual({ id: betaId, name: BETA.name })
    await b.reload({ waitUntil: 'domcontentloaded' })
    await b.getByText('TD1 on the default').first().click({ timeout: 30_000 })
    const heads = await headNames(b, conversationHeads)
    expect(heads[1]).toEqual({ id: betaId, name: BETA.name })
    expect(await b.locator(`[data-profile-id="${betaId}"] [data-avatar-state]`).textContent()).toBe(BETA.emoji)
    await screenshot(b, 'live-deleted-profile-head')
    await mark(b)
  })
})

describe('the channel', () => {
  it('refuses cross-site and foreign-Host requests on the real host, the WebSocket upgrade as every route', async () => {
    const http = httpClient(host.web.port)
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' },
      { host: 'evil.example' },
      { origin: 'http://evil.example' },
    ] as Record<string, string>[]) {
      const reply = await http.get('/__ap/events', headers)
      expect(reply.status, JSON.stringify(headers)).toBe(403)
      // The upgrade the host's server hands the plugin passes the same fence.
      const upgrade = await openChannel({ port: host.web.port }, '/__ap/events', headers)
      expect(upgrade.status, `upgrade ${JSON.stringify(headers)}`).toBe(403)
    }
    const own = opened(
      await openChannel({ port: host.web.port }, '/__ap/events', { origin: `http://127.0.0.1:${host.web.port}` }),
    )
    own.close()
  })

  it('picks up again after the host restarts', async () => {
    await switcher(b).waitFor({ timeout: 30_000 })
    await host.web.stop()
    restarted = await bootHost(model, { home: host.home, port: host.web.port })
    await restarted.command({ op: 'profile.update', id: alphaId, patch: { name: 'Alpha 重启之后' } })
    await b.getByText('LV1 hello from page A').first().click({ timeout: 30_000 })
    await switcher(b).filter({ hasText: 'Alpha 重启之后' }).waitFor({ timeout: 30_000 })
    expect(await stillMarked(b)).toBe(true)
  })
})
