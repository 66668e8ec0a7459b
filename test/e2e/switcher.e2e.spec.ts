/**
 * The composer's quick switcher and the turn head in real Chromium against the real `dsh web` (offline model):
 * pin a profile, send, see the head with its name and avatar, and find that profile in the model request; switch,
 * send again, and the earlier turn keeps its head; the ⚙ note reaches the next request; a second conversation is
 * unaffected; a turn head lists the memories its request carried and links to where each is edited. Screenshots go
 * to test-artifacts/.
 */
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import type { WireState } from '../../lib/shared/wire-state.ts'
import { launchBrowser, openApp, openWorkspace, screenshot, send } from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server.ts'
import { pngDataUrl } from '../support/png.ts'
import { readTurnHeads } from '../support/turn-heads.ts'
import { until } from '../support/memory-requests.ts'

const ALPHA = { name: 'Alpha 搭档', emoji: '🦊', role: '你是 Alpha 搭档，暗号 ALPHA-7731。' }
const BETA = { name: 'Beta 搭档', emoji: '🐙', role: '你是 Beta 搭档，暗号 BETA-4410。' }
const NOTE = '本对话暗号 NOTE-2291：回答尽量简短。'

let model: ModelServer
let host: Host
let browser: Browser
let page: Page
let alphaId: string
let betaId: string

const serverState = async (): Promise<WireState> => (await host.read()).state as unknown as WireState

/** The conversation request the model received for the message containing `marker`. */
async function requestFor(marker: string): Promise<RecordedRequest> {
  const asked = (r: RecordedRequest): boolean =>
    !isTitleRequest(r) && r.messages.some((m) => m.role === 'user' && JSON.stringify(m.content ?? '').includes(marker))
  const [request] = await model.waitFor(asked, 1, 60_000)
  return request!
}

const switcher = (): Locator => page.locator('.ap-switcher-trigger')
const heads = (): Locator => page.locator('[data-ap-turn-head][data-profile-id]')

async function pick(name: RegExp): Promise<void> {
  await switcher().click()
  await page.getByRole('menuitemradio', { name }).click()
  await page.locator('.ap-toast').waitFor({ timeout: 10_000 })
}

/** Wait until `count` turn heads are shown, then read each one's profile, name and avatar state. */
const readHeads = (count: number) => readTurnHeads(page, count)

beforeAll(async () => {
  model = await startModelServer()
  host = await bootHost(model)
  alphaId = (
    await host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { ...ALPHA, avatar: pngDataUrl(24, 24, 7) },
    })
  ).profile.id
  betaId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: BETA })).profile.id
  // Creating makes a profile the default; the conversation pins its own instead, so the default goes back.
  const state = await serverState()
  const factory = state.profiles.find((p) => p.id !== alphaId && p.id !== betaId)!
  await host.command({ op: 'profile.activate', id: factory.id })
  browser = await launchBrowser()
  page = (await openApp(browser, host.web.url)).page
  await openWorkspace(page)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
})

describe('quick switcher and turn head in the real web UI', () => {
  it('pins a profile from the composer; the model gets that profile and the reply carries its head', async () => {
    // The control shows a placeholder until the state has loaded; then it names the profile it follows.
    await switcher().filter({ hasText: 'Default' }).waitFor({ timeout: 60_000 })
    await switcher().click()
    await page.getByRole('menuitemradio', { name: /Alpha/ }).waitFor()
    await screenshot(page, 'switcher-menu')
    await page.getByRole('menuitemradio', { name: /Alpha/ }).click()
    expect(await page.locator('.ap-toast').textContent()).toContain('Alpha 搭档')
    expect(await switcher().textContent()).toContain('Pinned')

    await send(page, 'FQ1 first question')
    const request = await requestFor('FQ1')
    expect(request.system).toContain('ALPHA-7731')
    const [head] = await readHeads(1)
    expect(head).toMatchObject({ id: alphaId, name: ALPHA.name, avatar: 'image', loaded: true })
    expect(head!.reply).toContain('(offline model) Received: FQ1')
    // The state carries no conversation settings, only how many conversations pin each profile.
    expect((await serverState()).pins).toEqual({ [alphaId]: 1 })
    await screenshot(page, 'turn-head-alpha')
  })

  it("switching profile changes the next turn and leaves the earlier turn's head as it was", async () => {
    await pick(/Beta/)
    await send(page, 'SQ2 second question')
    const request = await requestFor('SQ2')
    expect(request.system).toContain('BETA-4410')
    expect(request.system).not.toContain('ALPHA-7731')
    const [first, second] = await readHeads(2)
    expect(first).toMatchObject({ id: alphaId, name: ALPHA.name, avatar: 'image', loaded: true })
    expect(second!.reply).toContain('SQ2')
    expect(second).toMatchObject({ id: betaId, name: BETA.name, avatar: 'emoji' })
    await screenshot(page, 'turn-head-after-switch')
  })

  it('the conversation note from the ⚙ panel reaches the next model request', async () => {
    await page.getByRole('button', { name: "This conversation's settings" }).click()
    const panel = page.getByRole('dialog', { name: 'This conversation' })
    await panel.getByLabel('Conversation note').fill(NOTE)
    await panel.getByRole('button', { name: 'Save' }).click()
    // The panel says "Unsaved changes" from the typing until the save's answer: wait for what it says after that.
    const said = panel.locator('[role="status"], [role="alert"]').filter({ hasNotText: 'Unsaved changes' }).first()
    await said.waitFor({ timeout: 10_000 }).finally(() => screenshot(page, 'conversation-panel'))
    expect(await said.textContent()).toContain('Saved for this conversation')
    await panel.getByRole('button', { name: 'Close' }).click()
    // Closed, not only clicked: a panel left open covers the composer, and the send below would only time out.
    await panel.waitFor({ state: 'hidden', timeout: 10_000 })

    await send(page, 'TQ3 third question')
    const request = await requestFor('TQ3')
    expect(request.system).toContain('NOTE-2291')
    expect(request.system).toContain('BETA-4410')
    const [, , third] = await readHeads(3)
    expect(third).toMatchObject({ id: betaId, name: BETA.name })
  })

  it('a second conversation is unaffected', async () => {
    await page
      .getByRole('button', { name: /^New session$/i })
      .first()
      .click()
    await switcher().filter({ hasText: 'Default' }).waitFor({ timeout: 30_000 })
    await send(page, 'OC4 another conversation')
    const request = await requestFor('OC4')
    expect(request.system).not.toContain('ALPHA-7731')
    expect(request.system).not.toContain('BETA-4410')
    expect(request.system).not.toContain('NOTE-2291')
    const [head] = await readHeads(1)
    expect(head!.id).not.toBe(alphaId)
    expect(head!.id).not.toBe(betaId)
    const after = await serverState()
    expect(after.pins).toEqual({ [betaId]: 1 })
    expect(after.conversations).toBe(1)
    await screenshot(page, 'second-conversation')
  })

  it('a memory_save call shows as one "Remembered" line naming its fact once', async () => {
    const fact = '用户喜欢先看结论 MS5'
    model.respond((r) => {
      if (!r.messages.some((m) => m.role === 'user' && JSON.stringify(m.content ?? '').includes('MS5')))
        return undefined
      return r.messages.at(-1)?.role === 'tool'
        ? { text: '好的，记住了。' }
        : { toolCalls: [{ name: 'memory_save', arguments: { facts: [fact] } }] }
    })
    await send(page, 'MS5 please remember this')
    const row = page.locator('[data-ap-memory-save="saved"]')
    await row.waitFor({ timeout: 60_000 })
    // "Remembered" and the fact once: in the line until the page has loaded the saved fact, then as a chip with its undo.
    await row.locator('[data-ap-fact]').waitFor({ timeout: 30_000 })
    expect(await row.locator('.ap-memory-save-text').textContent()).toBe('Remembered')
    expect((await row.innerText()).split(fact).length - 1).toBe(1)
    const state = await serverState()
    const used = await host.profile(state.activeId)
    expect(used.memory.items.map((i) => i.text)).toContain(fact)
    await screenshot(page, 'memory-save-row')
  })

  it('after a reload, the first conversation still shows who answered each turn', async () => {
    await page.reload({ waitUntil: 'domcontentloaded' })
    await page.getByText('FQ1 first question').first().click({ timeout: 30_000 })
    const shown = await readHeads(3)
    expect(shown.map((h) => h.id)).toEqual([alphaId, betaId, betaId])
    expect(shown[0]).toMatchObject({ avatar: 'image', loaded: true })
    expect(await switcher().textContent()).toContain('Pinned')
    await screenshot(page, 'turn-heads-after-reload')
  })

  it('a turn head lists exactly the memories its request carried, each linking to where it is edited', async () => {
    await host.command({
      op: 'memory.add',
      target: { profileId: betaId },
      items: [{ text: 'Beta 记得：用户用 Neovim MEM-81' }],
    })
    await page.getByRole('button', { name: "This conversation's settings" }).click()
    const panel = page.getByRole('dialog', { name: 'This conversation' })
    await panel.getByPlaceholder('A fact to remember long-term').fill('本对话记得：只谈测试 MEM-82')
    await panel.getByRole('button', { name: 'Add' }).click()
    await panel.getByRole('button', { name: 'Save' }).click()
    await panel.locator('[role="status"]').first().waitFor({ timeout: 10_000 })
    await panel.getByRole('button', { name: 'Close' }).click()
    // Closed, not only clicked: a panel left open covers the composer, and the send below would only time out.
    await panel.waitFor({ state: 'hidden', timeout: 10_000 })

    await send(page, 'AM7 memory question')
    const request = await requestFor('AM7')
    const carried = request.system
      .slice(request.system.lastIndexOf('# 长期记忆'))
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2))
    expect(carried).toEqual(['Beta 记得：用户用 Neovim MEM-81', '本对话记得：只谈测试 MEM-82'])
    await readHeads(4)
    const used = heads().nth(3).locator('.ap-turn-memories')
    await used.waitFor({ timeout: 30_000 })
    expect(await used.textContent()).toBe('2 memories used')
    // The turns before the memory existed say nothing about memory.
    expect(await heads().nth(2).locator('.ap-turn-memories').count()).toBe(0)
    await used.click()
    const list = page.getByRole('dialog', { name: 'Memories this turn used' })
    await list.locator('.ap-turn-memory').first().waitFor({ timeout: 10_000 })
    expect(await list.locator('.ap-turn-memory-text').allTextContents()).toEqual(carried)
    await screenshot(page, 'turn-memories')

    await list.locator('[data-layer="conversation"]').getByRole('button', { name: 'Edit in the ⚙ panel' }).click()
    await page
      .getByRole('dialog', { name: 'This conversation' })
      .getByText('本对话记得：只谈测试 MEM-82')
      .waitFor({ timeout: 10_000 })
    await page.getByRole('dialog', { name: 'This conversation' }).getByRole('button', { name: 'Close' }).click()

    await used.click()
    await page
      .getByRole('dialog', { name: 'Memories this turn used' })
      .locator('[data-layer="profile"]')
      .getByRole('button', { name: 'Edit in settings' })
      .click()
    const settings = page.locator('.ap-settings')
    await settings.getByText('Beta 记得：用户用 Neovim MEM-81').waitFor({ timeout: 30_000 })
    expect(await settings.locator('[role="tab"][aria-selected="true"]').allTextContents()).toEqual([
      'Profiles',
      'Memory',
    ])
    await screenshot(page, 'turn-memory-in-settings')
    await page.keyboard.press('Escape')
  })

  it('a pick made while "New session" is still on its way says which conversation it pinned', async () => {
    // The host keeps the previous conversation on screen until session.create answers; held here until the pick has
    // landed (as on a loaded machine), a first pick in that window pins the previous conversation, and the new one
    // says so.
    const tab = (await openApp(browser, host.web.url)).page
    try {
      // The workspace is open already: the page lands in its blank conversation.
      const trigger = tab.locator('.ap-switcher-trigger')
      await trigger.filter({ hasText: 'Default' }).waitFor({ timeout: 30_000 })
      await send(tab, 'NS1 the previous conversation')
      await requestFor('NS1')
      const before = (await serverState()).pins[alphaId] ?? 0
      let asked!: () => void
      const creating = new Promise<void>((r) => (asked = r))
      let release!: () => void
      const released = new Promise<void>((r) => (release = r))
      await tab.route('**/api/session.create', async (route) => {
        asked()
        await released
        await route.continue()
      })
      await tab
        .getByRole('button', { name: /^New session$/i })
        .first()
        .click()
      await creating
      await trigger.click()
      await tab.getByRole('menuitemradio', { name: /Alpha/ }).click()
      await until('the pick saved', async () => ((await serverState()).pins[alphaId] ?? 0) > before || undefined)
      release()
      const notice = tab.locator('.ap-toast', {
        hasText: 'was pinned to the conversation that was open when you picked',
      })
      await notice.waitFor({ timeout: 30_000 })
      expect(await notice.textContent()).toBe(
        `"${ALPHA.name}" was pinned to the conversation that was open when you picked, not to this one; pick it again to use it here`,
      )
      // The conversation on screen now is the new one, still on the default; the previous one got the pin.
      expect(await trigger.textContent()).toContain('Default')
      expect((await serverState()).pins[alphaId] ?? 0).toBe(before + 1)
      await screenshot(tab, 'switcher-pick-elsewhere')
    } finally {
      await tab.context().close()
    }
  })
})
