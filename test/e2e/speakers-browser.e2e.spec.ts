/**
 * Mentions in the real web UI (real `dsh web`, offline model, headless Chromium): typing `@` offers the profiles beside
 * the host's file references, picking one inserts its name and that profile answers the turn under its own head; the
 * next turn is the conversation's own; `@A @B` typed by hand gives two answers with two heads, and the sent mentions
 * are drawn as mentions, not file chips; nothing is flagged while a word is typed; the heads still name the right speaker after a reload and in a second tab.
 * Screenshots go to test-artifacts/.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import { launchBrowser, openApp, openWorkspace, screenshot, send } from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { headNames } from '../support/turn-heads.ts'
import {
  isTitleRequest,
  startModelServer,
  textOf,
  type ModelServer,
  type RecordedRequest,
} from '../support/model-server.ts'

const REVIEW = {
  name: '审阅员',
  emoji: '🔍',
  role: '你是审阅员，暗号 REV-5521。',
  tools: { profile: 'read-only', add: [], remove: [] },
}
const CODER = { name: 'Code Buddy', emoji: '🤖', role: '你是 Code Buddy，暗号 COD-8830。' }

let model: ModelServer
let host: Host
let browser: Browser
let page: Page
let reviewId: string
let coderId: string
let errors: string[]
/** A file for the host's `@` file reference, in the folder the web UI opens as its workspace (the user's home). */
const NOTES = `notes-e2e-${process.pid}.md`

const who = (r: RecordedRequest) =>
  r.system.includes('REV-5521') ? 'review' : r.system.includes('COD-8830') ? 'coder' : 'own'

/** The conversation requests whose history carries `marker`, once `count` came. */
async function requestsWith(marker: string, count = 1): Promise<RecordedRequest[]> {
  const carries = (r: RecordedRequest) =>
    !isTitleRequest(r) && r.messages.some((m) => m.role === 'user' && textOf(m).includes(marker))
  return await model.waitFor(carries, count, 60_000)
}

const composer = (p: Page) => p.locator('textarea').first()
const option = (p: Page, name: RegExp) => p.getByRole('listbox').getByRole('option', { name })

beforeAll(async () => {
  model = await startModelServer()
  model.respond((r) => (isTitleRequest(r) ? undefined : { text: `E2E ${who(r)} 回答` }))
  host = await bootHost(model)
  writeFileSync(join(homedir(), NOTES), '# notes\n')
  reviewId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: REVIEW })).profile.id
  coderId = (await host.command<{ profile: Profile }>({ op: 'profile.create', profile: CODER })).profile.id
  await host.command({ op: 'profile.activate', id: 'general' })
  browser = await launchBrowser()
  const opened = await openApp(browser, host.web.url)
  page = opened.page
  errors = opened.errors
  await openWorkspace(page)
  // The composer takes input once the conversation exists; the switcher shows once the plugin's state has loaded.
  await page.locator('.ap-switcher-trigger').filter({ hasText: 'Default' }).waitFor({ timeout: 60_000 })
}, 180_000)

afterAll(async () => {
  rmSync(join(homedir(), NOTES), { force: true })
  await browser?.close()
  await host?.stop()
  await model?.close()
})

describe('@ mentions in the real web UI', () => {
  it("typing @ lists the profiles beside the host's file references; picking one inserts its name", async () => {
    const box = composer(page)
    await box.click()
    await box.pressSequentially('@')
    await option(page, /审阅员/).waitFor({ timeout: 30_000 })
    expect(await option(page, /Code Buddy/).count()).toBe(1)
    await screenshot(page, 'mention-menu')
    await box.fill('')
    await box.pressSequentially('@审')
    await option(page, /审阅员/).click()
    expect(await box.inputValue()).toBe('@审阅员 ')
    expect(errors).toEqual([])
  })

  it("the mentioned profile answers that turn under its own head; the next turn is the conversation's own", async () => {
    const box = composer(page)
    await box.pressSequentially('BR1 帮我看看')
    await box.press('Enter')
    const [named] = await requestsWith('BR1')
    expect(who(named!)).toBe('review')
    expect(named!.tools.map((t) => t.function.name)).not.toContain('write')
    expect(await headNames(page, 1)).toEqual([{ id: reviewId, name: REVIEW.name }])
    await send(page, 'BR2 再来')
    const [back] = await requestsWith('BR2')
    expect(who(back!)).toBe('own')
    expect(back!.tools.map((t) => t.function.name)).toContain('write')
    const heads = await headNames(page, 2)
    expect(heads[1]!.id).toBe('general')
  })

  it('@A @B typed by hand gives two answers, in order, under two heads', async () => {
    await send(page, '@Code Buddy @审阅员 BR3 你们都说说')
    const [first, second] = await requestsWith('BR3', 2)
    expect([who(first!), who(second!)]).toEqual(['coder', 'review'])
    // The second answer's head is drawn once its turn is recorded: wait for it rather than read it mid-stream.
    await expect
      .poll(async () => (await headNames(page, 4)).map((h) => h.id))
      .toEqual([reviewId, 'general', coderId, reviewId])
    const heads = await headNames(page, 4)
    expect(heads.map((h) => h.name)).toEqual([REVIEW.name, expect.any(String), CODER.name, REVIEW.name])
    await screenshot(page, 'mention-two-heads')
  })

  it('a mention in a sent message is drawn as a mention in the line of the text, not as a file chip', async () => {
    await page.locator('[data-ap-mention]').first().waitFor({ timeout: 30_000 })
    const chips = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-ref-chip]')].map((chip) => {
        const icon = chip.querySelector('svg')
        const next = chip.nextElementSibling
        return {
          title: chip.title,
          mention: chip.hasAttribute('data-ap-mention'),
          icon: icon === null ? 'none' : getComputedStyle(icon).display,
          at: getComputedStyle(chip, '::before').content,
          sameLine: next === null || Math.abs(next.getBoundingClientRect().top - chip.getBoundingClientRect().top) < 8,
        }
      }),
    )
    const drawn = { mention: true, icon: 'none', at: '"@"', sameLine: true }
    expect(chips.find((c) => c.title === '@审阅员')).toEqual({ title: '@审阅员', ...drawn })
    expect(chips.find((c) => c.title === '@Code')).toEqual({ title: '@Code', ...drawn })
    await screenshot(page, 'mention-chips')
  })

  it("the host's own @ references still answer beside the profiles", async () => {
    const box = composer(page)
    await box.click()
    await box.pressSequentially(`@${NOTES.slice(0, -3)}`)
    await option(page, new RegExp(NOTES.replace('.', '\\.'))).waitFor({ timeout: 30_000 })
    await screenshot(page, 'mention-files')
    await box.fill('')
  })

  it('nothing is flagged while a word is still typed; @all in a conversation without a cast is, once typed', async () => {
    const box = composer(page)
    const row = page.locator('[data-ap-mention-warnings]')
    const flagged = async () => {
      await box.fill('@所有人 你好')
      await row.waitFor({ timeout: 10_000 })
    }
    // Each absence is awaited from a shown warning: the row goes because the page read the new draft.
    await flagged()
    expect(await row.textContent()).toContain('this conversation has no cast yet')
    await screenshot(page, 'mention-warning')
    await box.fill('@所')
    await row.waitFor({ state: 'detached', timeout: 10_000 })
    await flagged()
    await box.fill('@小明 你好')
    await row.waitFor({ state: 'detached', timeout: 10_000 })
    await flagged()
    await box.fill('@审阅员 你好')
    await row.waitFor({ state: 'detached', timeout: 10_000 })
    await box.fill('')
  })

  it('after a reload and in a second tab the heads still name who answered each turn', async () => {
    const expected = [reviewId, 'general', coderId, reviewId]
    await page.reload({ waitUntil: 'domcontentloaded' })
    await page.getByText('BR1 帮我看看').first().click({ timeout: 30_000 })
    expect((await headNames(page, 4)).map((h) => h.id)).toEqual(expected)
    // A second tab of the same browser.
    const second = await page.context().newPage()
    await second.goto(host.web.url, { waitUntil: 'domcontentloaded' })
    await second.getByText('BR1 帮我看看').first().click({ timeout: 30_000 })
    expect((await headNames(second, 4)).map((h) => h.id)).toEqual(expected)
    await screenshot(second, 'mention-heads-second-tab')
  })

  it('the quick switcher adds profiles to the cast; @all then gets one answer from each, in the order added', async () => {
    const castItem = (id: string) => page.locator(`[data-cast-profile-id="${id}"]`)
    const toggle = async (id: string) => {
      if ((await castItem(id).count()) === 0) await page.locator('.ap-switcher-trigger').click()
      await castItem(id).click()
      await page.waitForFunction(
        ([sel]) => document.querySelector(sel!)?.getAttribute('aria-checked') === 'true',
        [`[data-cast-profile-id="${id}"]`],
        { timeout: 10_000 },
      )
    }
    await toggle(coderId)
    await toggle(reviewId)
    await screenshot(page, 'cast-menu')
    await page.keyboard.press('Escape')
    await send(page, '@all BR5 大家说说')
    const [first, second] = await requestsWith('BR5', 2)
    expect([who(first!), who(second!)]).toEqual(['coder', 'review'])
    expect((await headNames(page, 6)).slice(4).map((h) => h.id)).toEqual([coderId, reviewId])
  })
})
