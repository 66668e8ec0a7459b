/**
 * The rows several speakers add to a conversation, in real Chromium against the real `dsh web` (offline demo model):
 * on an English page "<name> answers next" and "Back to <name>" are in English, and so are the demo's replies to an
 * English message; the model still reads the rows in Chinese. The profiles have English names, so any Chinese on the
 * page would be ours.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openApp, openWorkspace, screenshot, send } from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

/** Chinese, Japanese and full-width characters and punctuation. */
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/
const cjkIn = (texts: readonly string[]): string[] => texts.filter((s) => CJK.test(s))

let model: ModelServer
let host: Host
let browser: Browser

beforeAll(async () => {
  model = await startModelServer()
  host = await bootHost(model)
  await host.command({
    op: 'state.import',
    mode: 'replace',
    payload: {
      format: 'dsh-agent-profiles',
      version: 1,
      activeId: 'helper',
      profiles: [
        { id: 'helper', name: 'Helper', emoji: '🙂', role: 'You help.' },
        { id: 'writer', name: 'Writer', emoji: '✍️', role: 'You write.' },
      ],
    },
  })
  browser = await launchBrowser()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await model?.close()
})

describe('an English conversation with several speakers', () => {
  it("shows the plugin's rows in the transcript and the offline demo's replies in English", async () => {
    const en = (await openApp(browser, host.web.url, { lang: 'en' })).page
    try {
      await openWorkspace(en)
      await en.locator('.ap-switcher-trigger').waitFor({ timeout: 60_000 })
      // Helper answers, then Writer (a row says who answers next); the next turn is the conversation's own again
      // (Helper, the default: a row says so).
      await send(en, '@Helper @Writer what do you both think')
      await en
        .getByText('(offline model) Received: @Helper @Writer', { exact: false })
        .nth(1)
        .waitFor({ timeout: 60_000 })
      await send(en, 'thanks')
      await en.getByText('(offline model) Received: thanks', { exact: false }).first().waitFor({ timeout: 60_000 })
      // The rows this plugin added to the conversation, as the host draws them (collapsed: what a reader sees).
      const rows = await en.evaluate(() =>
        [...document.querySelectorAll('[data-context-source]')]
          .filter((el) => el.textContent === 'agent-profiles')
          .map((el) => (el.parentElement as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
      )
      await screenshot(en, 'i18n-en-speaker-rows')
      expect(rows).toEqual([
        expect.stringContaining('"Writer" answers next'),
        expect.stringContaining('Back to "Helper"'),
      ])
      expect(cjkIn(rows)).toEqual([])
      // Nothing in the transcript is Chinese: the user wrote English and every profile here has an English name.
      const transcript = (await en.evaluate(() => document.body.innerText)).split('\n')
      expect(cjkIn(transcript)).toEqual([])
    } finally {
      await en.close()
    }
  })
})
