/**
 * The settings page's layout in real Chromium against the real `dsh web`: every section at 1400 and 800 px wide, in
 * English and in Chinese, with the editor across the page and the profile list folded behind its selector. A file of
 * its own because it is the longest of the page's specs (28 full-page screenshots, four reloads): beside
 * settings.e2e.spec.ts it runs on another worker. Screenshots go to test-artifacts/.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { en, zh } from '../../lib/client/copy/locales.ts'
import {
  openSection,
  openSettings,
  screenshot,
  showProfileList,
  startBrowserApp,
  switchLanguage,
  type BrowserApp,
} from '../support/browser.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
})

afterAll(async () => {
  await app?.close()
})

const editor = () => page.locator('.ap-editor')

describe('settings page layout in the real host', () => {
  it('shows every section at 1400 and 800 px wide in English and Chinese, the editor across the page and the list folded', async () => {
    try {
      for (const [lang, copy] of [
        ['en', en],
        ['zh', zh],
      ] as const) {
        if (lang === 'zh') await switchLanguage(page, 'English', '中文', '智能体配置')
        for (const width of [1400, 800]) {
          const shot = (section: string) => screenshot(page, `sections-${lang}-${width}-${section}`)
          await page.setViewportSize({ width, height: 900 })
          await openSettings(page)
          const settings = page.locator('.ap-settings')
          // The editor renders once the page has picked its profile, a moment after the page itself.
          await editor().waitFor()
          const [pageBox, editorBox] = [await settings.boundingBox(), await editor().boundingBox()]
          // The host's dialog is at most 800 px wide, so the page always folds its list behind the selector.
          expect(editorBox!.width, `${lang} ${width}`).toBeGreaterThan(pageBox!.width - 2)
          expect(await page.locator('.ap-list-toggle').isVisible()).toBe(true)
          expect(await page.locator('.ap-list-item[data-profile-id]').first().isVisible()).toBe(false)
          await shot('1-profile')
          await showProfileList(page)
          expect(await page.locator('.ap-list-item[data-profile-id]').first().isVisible()).toBe(true)
          await shot('2-list-open')
          await page.locator('.ap-list-toggle').click()

          await openSection(page, copy['section.memory'])
          await editor().getByLabel(copy['field.summary']).waitFor()
          await shot('3-memory')
          await openSection(page, copy['section.tools'])
          await editor().locator('[data-panel="tools"] select').waitFor()
          await shot('4-tools')
          await openSection(page, copy['section.preview'])
          await editor().locator('.ap-preview-text').waitFor()
          await shot('5-preview')
          await openSection(page, copy['section.files'])
          await page.getByRole('link', { name: copy['io.export'] }).waitFor()
          await page.getByRole('button', { name: copy['io.restore'] }).waitFor()
          expect(await editor().isVisible()).toBe(false)
          await shot('6-files')
          await openSection(page, copy['section.diagnostics'])
          await page.locator('.ap-diagnostics').getByText(copy['diag.dataFile']).waitFor()
          expect(await page.locator('.ap-io').isVisible()).toBe(false)
          await shot('7-diagnostics')
          // Nothing on any section is wider than the page.
          expect(await settings.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
        }
      }
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 })
    }
    await switchLanguage(page, '中文', 'English', 'Agent profiles')
  })

  it('threw no error in the page along the way', () => {
    expect(app.errors).toEqual([])
  })
})
