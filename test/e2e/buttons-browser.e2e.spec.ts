/**
 * The plugin's buttons in real Chromium with the plugin's own stylesheet: a download link styled as a button (the
 * export links) draws like the buttons beside it, with no underline, the way the browser draws a link by default.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { PLUGIN_CSS } from '../../lib/client/styles/styles.ts'
import { launchBrowser } from '../support/browser.ts'

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

it('export links styled as buttons are not underlined, like the buttons beside them', async () => {
  const page = await browser.newPage()
  await page.setContent(
    `<style>${PLUGIN_CSS}</style><div class="ap-root"><div class="ap-row">` +
      '<button type="button" class="ap-btn">导出角色卡 PNG</button>' +
      '<a class="ap-btn" href="/__ap/profile-file/a?format=card-json" download>导出角色卡 JSON</a>' +
      '<a class="ap-btn" href="/__ap/profile-file/a?format=markdown" download>导出 Markdown</a></div></div>',
  )
  const lines = await page
    .locator('.ap-btn')
    .evaluateAll((els) => els.map((el) => getComputedStyle(el).textDecorationLine))
  expect(lines).toEqual(['none', 'none', 'none'])
  await page.close()
})
