/**
 * A large file of the user's own imported in the background, as a user meets it (issue #40 item 3), against the real
 * `dsh web` in Chromium: the user picks an export of 12 profiles × 2,100 memory items (more than a shared file may
 * bring) in Import, export & maintenance, says yes to "This file is large", and sees the progress bar move while
 * the host keeps answering; at the end the profiles are in the page's list, every item is saved, and a turn with
 * one of them sends the model that profile's rules and recalls a fact from the file's last batch.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OwnImportStatus } from '../../lib/shared/own-import.ts'
import { openSection, openSettings, showProfileList, startBrowserApp, type BrowserApp } from '../support/browser.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
}, 120_000)

afterAll(async () => {
  await app?.close()
})

const PROFILES = 12
const ITEMS = 2_100
const FACT = '用户的牙医是城东口腔诊所的李医生，每半年洗一次牙'

/**
 * The export: one-character items (Hangul syllables: no word of the question below, and short enough that no
 * profile passes the compression threshold, which would rewrite the memory meanwhile); the last profile's last item
 * is a fact the turn asks about.
 */
function ownExport(): Buffer {
  const profiles = Array.from({ length: PROFILES }, (_, p) => ({
    id: `mine${p}`,
    name: `Mine ${p}`,
    rules: `OWN-RULE-${p}: answer in one sentence`,
    memory: {
      summary: '',
      items: Array.from({ length: ITEMS }, (_, i) => ({
        text: p === PROFILES - 1 && i === ITEMS - 1 ? FACT : String.fromCharCode(0xac00 + i),
      })),
    },
  }))
  return Buffer.from(JSON.stringify({ format: 'dsh-agent-profiles', version: 1, profiles }), 'utf8')
}

const importStatus = async (): Promise<OwnImportStatus> =>
  ((await (await fetch(`${app.host.web.url}/__ap/import-own`)).json()) as { status: OwnImportStatus }).status

describe('a large export of the user own, imported from the page', () => {
  it('asks first, shows the bar moving while the host answers, and ends with every profile and item in place', async () => {
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    await page
      .locator('.ap-io input[type="file"]')
      .setInputFiles([{ name: 'mine.json', mimeType: 'application/json', buffer: ownExport() }])
    const ask = page.getByRole('alertdialog')
    await expect.poll(() => ask.innerText(), { timeout: 30_000 }).toContain('This file is large')
    await ask.getByRole('button', { name: 'OK' }).click()

    // While the bar shows: what it says, and whether the host answers a state read meanwhile.
    const bar = page.getByRole('progressbar')
    await bar.waitFor({ timeout: 30_000 })
    const shown: number[] = []
    const answeredMidway: number[] = []
    let max = 0
    while (await bar.isVisible()) {
      const now = await bar.getAttribute('aria-valuenow').catch(() => null)
      max = Number((await bar.getAttribute('aria-valuemax').catch(() => null)) ?? max)
      if (now !== null) shown.push(Number(now))
      const state = await fetch(`${app.host.web.url}/__ap/state`)
      const status = await importStatus()
      if (state.status === 200 && status.state === 'running' && status.done > 0) answeredMidway.push(status.done)
      await page.waitForTimeout(100)
    }
    expect(max).toBe(PROFILES * (1 + ITEMS))
    // It moved: seen part-way, never backwards.
    expect(shown.some((n) => n > 0 && n < max)).toBe(true)
    expect(new Set(shown).size).toBeGreaterThan(1)
    expect(shown).toEqual([...shown].sort((a, b) => a - b))
    expect(answeredMidway.length).toBeGreaterThan(0)
    expect(await importStatus()).toMatchObject({ state: 'done', done: max, result: { imported: PROFILES } })
    await expect
      .poll(() => page.locator('.ap-io [role="status"]').allInnerTexts(), { timeout: 30_000 })
      .toContainEqual(expect.stringContaining(`Imported ${PROFILES} profiles`))

    // The page lists them; the host holds every item of each.
    await openSettings(page)
    await showProfileList(page)
    for (let p = 0; p < PROFILES; p++)
      await expect
        .poll(() => page.locator('.ap-settings .ap-list-item').allInnerTexts(), { timeout: 30_000 })
        .toContainEqual(expect.stringContaining(`Mine ${p}`))
    for (let p = 0; p < PROFILES; p++) {
      const items = (await app.host.profile(`mine${p}`)).memory.items.map((it) => it.text)
      expect(items).toHaveLength(ITEMS)
      expect(items.at(-1)).toBe(p === PROFILES - 1 ? FACT : String.fromCharCode(0xac00 + ITEMS - 1))
    }
    expect(app.errors).toEqual([])
  }, 240_000)

  it('gives a turn with an imported profile its rules, and recalls a fact from the last batch of the file', async () => {
    const last = `mine${PROFILES - 1}`
    const sid = await app.host.conversation()
    await app.host.command({ op: 'session.set', sessionId: sid, patch: { profileId: last } })
    const [asked] = await app.host.say(sid, 'OWN-Q 我的牙医叫什么来着？')
    expect(asked!.system).toContain(`OWN-RULE-${PROFILES - 1}`)
    expect(JSON.stringify(asked!.messages)).toContain('李医生')
  }, 120_000)
})
