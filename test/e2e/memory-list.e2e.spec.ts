/**
 * The memory list and recall as a long-time user meets them, in real Chromium against the real `dsh web` (offline
 * model): a profile with 5,000 memory items, one of them archived by a compression long ago. The settings page's list
 * holds them all while putting only a screenful of rows in the page, finds the archived one through its search box (the
 * store's index), and saves a pin on it as a draft that names only that item — nothing else of the 5,000 is touched.
 * Then a question about that fact, in a conversation: the model receives it as recalled context after the question,
 * and the turn head lists it beside the core memories, marked as recalled. Screenshots go to test-artifacts/.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MemoryItem } from '../../lib/state/model.ts'
import {
  chooseProfile,
  openSection,
  openSettings,
  openWorkspace,
  screenshot,
  send,
  type BrowserApp,
} from '../support/browser.ts'
import type { Host } from '../support/host-api.ts'
import { factsOverTime, questionAsked, searchMemory, startWithHistory } from '../support/long-history.ts'
import type { ModelServer } from '../support/model-server.ts'

const ITEMS = 5_000
const CAT = '用户的猫叫团子，是一只橘猫 CAT-5521'
const PLACES = ['杭州', '上海', '北京', '成都', 'Berlin', 'Lisbon']
const DAY = 86_400_000

let app: BrowserApp | undefined
let model: ModelServer
let host: Host
let page: Page
let profileId: string

/**
 * The facts of years of use: one line each, saved a few hours apart; the cat fact among the oldest, archived; the
 * newest pinned (the core every request carries once the memory is larger than the budget).
 */
function history(): Partial<MemoryItem>[] {
  const items = factsOverTime(ITEMS - 1, (i) => ({
    text: `第 ${i} 条：用户在${PLACES[i % PLACES.length]}的第 ${i % 97} 个项目里用了工具 T${i}`,
    source: (['auto', 'tool', 'user'] as const)[i % 3],
    ...(i === ITEMS - 2 ? { pinned: true } : {}),
  }))
  items.splice(10, 0, { text: CAT, source: 'auto', at: Date.now() - 700 * DAY, archived: true })
  return items
}

const search = (q: string) => searchMemory(host, profileId, q)

beforeAll(async () => {
  // A new profile becomes the default: the conversation below uses it.
  ;({ app, profileId } = await startWithHistory({ name: 'Recall 搭档', emoji: '🐈', items: history() }))
  ;({ model, host, page } = app)
}, 180_000)

afterAll(async () => {
  await app?.close()
})

describe('the memory list with 5,000 items', () => {
  it('holds them all, renders a screenful, finds the archived one by search, and saves a pin on it alone', async () => {
    await openSettings(page, { reload: false })
    await chooseProfile(page, 'Recall 搭档')
    await openSection(page, 'Memory')
    const list = page.locator('.ap-settings .ap-memory-items')
    await list.locator('.ap-memory-count', { hasText: `${ITEMS} in all` }).waitFor({ timeout: 30_000 })
    await list.locator('.ap-memory-row[data-item-id]').first().waitFor({ timeout: 30_000 })
    const rendered = await list.locator('.ap-memory-row').count()
    expect(rendered).toBeGreaterThan(3)
    expect(rendered).toBeLessThan(60)
    // Newest first: the last fact saved heads the list.
    expect(await list.locator('.ap-memory-row').first().textContent()).toContain(`第 ${ITEMS - 2} 条`)
    await list.locator('.ap-memory-scroll').scrollIntoViewIfNeeded()
    await screenshot(page, 'memory-list-5000')

    await list.getByRole('searchbox', { name: 'Search memory' }).fill('团子 橘猫')
    const found = list.locator('.ap-memory-row[data-item-id]', { hasText: 'CAT-5521' })
    await found.waitFor({ timeout: 30_000 })
    await list.locator('.ap-memory-count', { hasText: '1 found' }).waitFor()
    expect(await list.locator('.ap-memory-row[data-item-id]').count()).toBe(1)
    expect(await found.textContent()).toContain('Archived')
    await found.scrollIntoViewIfNeeded()
    await screenshot(page, 'memory-list-search')

    await found.getByRole('button', { name: 'Pin' }).click()
    expect(await found.getAttribute('data-draft')).toBe('edited')
    await page.locator('.ap-settings .ap-editor-actions').getByRole('button', { name: 'Save' }).click()
    await page.locator('.ap-settings .ap-notice[role="status"]').waitFor({ timeout: 30_000 })
    const [saved] = (await search('CAT-5521')).items
    expect(saved).toMatchObject({ text: CAT, pinned: true, archived: true, source: 'auto' })
    // The save named that one item: the other 4,999 are all still there.
    expect((await search('')).total).toBe(ITEMS)
  })
})

describe('recall in the turn head', () => {
  it('a question about an archived fact gets it as recalled context, and the turn head lists it as recalled', async () => {
    await page.keyboard.press('Escape')
    await openWorkspace(page)
    await send(page, '还记得我家那只橘猫团子吗？它叫什么来着 RQ-1')
    const { request, fromQuestion } = await questionAsked(model, 'RQ-1')
    // Recalled after the question (runtime context), never in the cached system prompt.
    expect(request.system).not.toContain('CAT-5521')
    expect(fromQuestion).toContain('CAT-5521')

    const head = page.locator('[data-ap-turn-head][data-profile-id]').first()
    const used = head.locator('.ap-turn-memories')
    await used.waitFor({ timeout: 60_000 })
    await used.click()
    const shown = page.getByRole('dialog', { name: 'Memories this turn used' })
    const recalled = shown.locator('.ap-turn-memory[data-recalled]', { hasText: 'CAT-5521' })
    await recalled.waitFor({ timeout: 10_000 })
    expect(await recalled.locator('.ap-badge').textContent()).toBe('Recalled')
    expect(await recalled.locator('time').count()).toBe(1)
    // First what recall brought this turn, then the core memories the system prompt carried, unmarked.
    const rows = await shown
      .locator('.ap-turn-memory')
      .evaluateAll((els) => els.map((el) => el.hasAttribute('data-recalled')))
    expect(rows[0]).toBe(true)
    expect(rows.indexOf(false)).toBeGreaterThan(0)
    expect(rows.slice(rows.indexOf(false)).some(Boolean)).toBe(false)
    await screenshot(page, 'turn-memories-recalled')
    await recalled.getByRole('button', { name: 'Edit in settings' }).click()
    await page
      .locator('.ap-settings [role="tab"][aria-selected="true"]', { hasText: 'Memory' })
      .waitFor({ timeout: 30_000 })
  })
})
