/**
 * Search keys typed by the user, as a long-time user meets them: in real Chromium against the real `dsh web` (offline
 * model), a profile of 300 facts (larger than the prompt's memory budget, so only recall brings a fact that is not
 * core). The user adds a fact with its keys in the settings page's add box and saves; then a question that shares no
 * word with the fact, only with a key, reaches the model with the fact as recalled context after the question, and
 * the cached system prompt does not carry it.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chooseProfile, openSection, openSettings, openWorkspace, send, type BrowserApp } from '../support/browser.ts'
import type { Host } from '../support/host-api.ts'
import { factsOverTime, questionAsked, searchMemory, startWithHistory } from '../support/long-history.ts'
import type { ModelServer } from '../support/model-server.ts'

const FACT = '用户对贝类过敏，上次在青岛吃完起了一身疹子'
const KEYS = '海鲜, 过敏, shellfish'

let app: BrowserApp | undefined
let model: ModelServer
let host: Host
let page: Page
let profileId: string

beforeAll(async () => {
  // Compression off: a compression rewrites the core's items (the typed one among them) into new ones, which is not
  // what this spec is about; extraction off, so nothing but the user's typing saves. Months of unrelated facts: more
  // than the budget's core holds.
  ;({ app, profileId } = await startWithHistory({
    name: 'Keys 搭档',
    emoji: '🦐',
    items: factsOverTime(300, (i) => ({ text: `第 ${i} 条：用户在第 ${i % 37} 个项目的周会里讨论了进度和预算` })),
    patch: `- id: agent-profiles\n  config:\n    memory: {"compressAt": 1000000, "autoExtract": false}\n`,
  }))
  ;({ model, host, page } = app)
}, 180_000)

afterAll(async () => {
  await app?.close()
})

describe('search keys typed by the user', () => {
  it('a fact found only by the key the user typed reaches the model through recall', async () => {
    await openSettings(page, { reload: false })
    await chooseProfile(page, 'Keys 搭档')
    await openSection(page, 'Memory')
    const list = page.locator('.ap-settings .ap-memory-items')
    await list.locator('.ap-memory-row[data-item-id]').first().waitFor({ timeout: 30_000 })
    await list.getByRole('textbox', { name: 'A fact to remember long-term' }).fill(FACT)
    await list.getByRole('textbox', { name: 'Search keys' }).fill(KEYS)
    await list.getByRole('button', { name: 'Add', exact: true }).click()
    await page.locator('.ap-settings .ap-editor-actions').getByRole('button', { name: 'Save' }).click()
    await page.locator('.ap-settings .ap-notice[role="status"]').waitFor({ timeout: 30_000 })
    const [saved] = (await searchMemory(host, profileId, '贝类')).items
    expect(saved).toMatchObject({ text: FACT, keys: KEYS, source: 'user' })

    await page.keyboard.press('Escape')
    await openWorkspace(page)
    await send(page, '今晚想去吃海鲜大排档，有什么要注意的吗 RK-1')
    const { request, fromQuestion } = await questionAsked(model, 'RK-1')
    expect(request.system).not.toContain('贝类过敏')
    expect(fromQuestion).toContain(FACT)
  })
})
