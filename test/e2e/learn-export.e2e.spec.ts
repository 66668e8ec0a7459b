/**
 * Learning from a ChatGPT data export as a user meets it (issue #46), against the real `dsh web` in Chromium and the
 * offline model: in Import, export & maintenance the user chooses the export the service mailed, sees what it holds
 * and what learning it costs, starts learning and watches the run to its end; what the model found arrives in About
 * you as a suggestion with where it came from, and once the user approves it there, the next turn's request carries it.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import { openSection, openSettings, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { chatGptExport, exportZip } from '../support/learn-exports.ts'
import { textOf } from '../support/model-server.ts'
import { kindOf } from '../support/memory-requests.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
}, 120_000)

afterAll(async () => {
  await app?.close()
})

const FACT = '养了一只叫豆豆的柯基，每天早上七点遛它'
const CONVERSATIONS = 4

const user = async (): Promise<UserReply> => (await (await fetch(`${app.host.web.url}/__ap/user`)).json()) as UserReply

describe('learning from a ChatGPT export, from the page to the model', () => {
  it('learns the export into a suggestion with its origin, and the approved fact reaches the next turn', async () => {
    // The model finds a fact in the first conversation only; every learning request is the extraction's.
    app.model.respond((r) => {
      if (kindOf(r) !== 'extract') return undefined
      return { text: textOf(r.messages.at(-1)!).includes('(#0.0)') ? `- [用户] ${FACT}` : '无' }
    })
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const section = page.locator('.ap-learn-export')
    await section.locator('input[type="file"]').setInputFiles([
      {
        name: 'chatgpt-export.zip',
        mimeType: 'application/zip',
        buffer: exportZip(chatGptExport(CONVERSATIONS, 7).conversations),
      },
    ])
    await expect
      .poll(() => section.locator('[data-ap-learn-found]').innerText(), { timeout: 30_000 })
      .toContain(`ChatGPT export: ${CONVERSATIONS} conversations`)
    await expect.poll(() => section.locator('[data-ap-learn-plan]').innerText()).toContain('model calls')
    await section.getByRole('button', { name: 'Start learning' }).click()
    await expect
      .poll(() => section.locator('[data-ap-learn-run]').getAttribute('data-ap-learn-run'), { timeout: 60_000 })
      .toBe('done')
    const calls = app.model.requests.filter((r) => kindOf(r) === 'extract')
    expect(calls.length).toBeGreaterThanOrEqual(CONVERSATIONS)
    // Each call's material is within the extraction's bound (6,000 characters by default).
    for (const r of calls) expect(textOf(r.messages.at(-1)!).length).toBeLessThan(6000 + 2000)

    const learned = (await user()).items.filter((it) => it.text === FACT)
    expect(learned).toHaveLength(1)
    expect(learned[0]).toMatchObject({ pending: true, source: 'import' })
    expect(learned[0]!.origin).toMatch(/^ChatGPT, \d{4}-\d{2}-\d{2}, '/)
    expect(learned[0]!.importId).toMatch(/^learn-/)

    // Not yet approved: a turn does not carry it.
    const sid = await app.host.conversation()
    const [before] = await app.host.say(sid, 'LEARN-Q1 早上好')
    expect(before!.system).not.toContain('豆豆')
    // The user approves it where About you lists it, with where it came from beside it.
    await openSettings(page)
    await openSection(page, 'About you')
    await page.getByRole('button', { name: `Approve "${FACT}"` }).click({ timeout: 30_000 })
    await expect.poll(async () => (await user()).items.find((it) => it.text === FACT)?.pending).toBeUndefined()
    const [after] = await app.host.say(sid, 'LEARN-Q2 今天安排什么？')
    expect(after!.system).toContain(FACT)
    expect(app.errors).toEqual([])
  }, 240_000)
})
