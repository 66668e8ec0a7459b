/**
 * Learning from a ChatGPT data export as a user meets it (issue #46), against the real `dsh web` in Chromium and the
 * offline model: in Import, export & maintenance the user chooses the export the service mailed, sees what it holds
 * and what learning it costs, starts learning and watches the run to its end; what the model found arrives in About
 * you as a suggestion with where it came from, and once the user approves it there, the next turn's request carries it.
 * A second import's suggestions are approved together from the keyboard (select all, approve selected): one command,
 * and the next turn carries every one.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import type { LearnRunReply } from '../../lib/shared/learn.ts'
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
const learnRun = async (): Promise<LearnRunReply> =>
  (await (await fetch(`${app.host.web.url}/__ap/learn/run`)).json()) as LearnRunReply

/** Choose `conversations` (a ChatGPT export) in the learn panel and wait until it says what it holds and costs. */
async function chooseExport(conversations: unknown[]): Promise<ReturnType<Page['locator']>> {
  await openSettings(page)
  await openSection(page, 'Import, export & maintenance')
  const section = page.locator('.ap-learn-export')
  await section
    .locator('input[type="file"]')
    .setInputFiles([{ name: 'chatgpt-export.zip', mimeType: 'application/zip', buffer: exportZip(conversations) }])
  await expect
    .poll(() => section.locator('[data-ap-learn-found]').innerText(), { timeout: 30_000 })
    .toContain(`ChatGPT export: ${conversations.length} conversations`)
  await expect.poll(() => section.locator('[data-ap-learn-plan]').innerText()).toContain('model calls')
  return section
}

describe('learning from a ChatGPT export, from the page to the model', () => {
  it('learns the export into a suggestion with its origin, and the approved fact reaches the next turn', async () => {
    // The model finds a fact in the first conversation only; every learning request is the extraction's.
    app.model.respond((r) => {
      if (kindOf(r) !== 'extract') return undefined
      return { text: textOf(r.messages.at(-1)!).includes('(#0.0)') ? `- [用户] ${FACT}` : '无' }
    })
    const section = await chooseExport(chatGptExport(CONVERSATIONS, 7).conversations)
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

  it('approves every suggestion of an import at once from the keyboard, and the next turn carries them all', async () => {
    const facts = ['住在青岛八大关附近的老房子里', '在学德语，打算明年去柏林读书', '每周六上午去游泳一小时']
    app.model.respond((r) => {
      if (kindOf(r) !== 'extract') return undefined
      const material = textOf(r.messages.at(-1)!)
      const c = facts.findIndex((_, i) => material.includes(`(#${i}.0)`))
      return { text: c < 0 ? '无' : `- [用户] ${facts[c]}` }
    })
    const earlier = (await learnRun()).run?.id
    const section = await chooseExport(chatGptExport(facts.length, 11).conversations)
    await section.getByRole('button', { name: 'Start learning' }).click()
    await expect
      .poll(
        async () => {
          const run = (await learnRun()).run
          return run?.id !== earlier && run?.state === 'done'
        },
        { timeout: 60_000 },
      )
      .toBe(true)
    const pending = (await user()).items.filter((it) => it.pending === true).map((it) => it.text)
    expect(pending.sort()).toEqual([...facts].sort())

    await openSettings(page)
    await openSection(page, 'About you')
    const all = page.getByRole('checkbox', { name: 'Select all' })
    await all.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => all.isChecked()).toBe(true)
    await page.keyboard.press('Tab')
    // The focus is on the approve button, which names how many it approves.
    expect(await page.locator('button:focus').innerText()).toBe(`Approve selected (${facts.length})`)
    const modelCalls = app.model.requests.length
    await page.keyboard.press('Enter')
    await expect
      .poll(async () => (await user()).items.filter((it) => facts.includes(it.text) && it.approved === true).length)
      .toBe(facts.length)
    expect((await user()).items.filter((it) => it.pending === true)).toEqual([])
    expect(app.model.requests.length).toBe(modelCalls)
    const sid = await app.host.conversation()
    const [turn] = await app.host.say(sid, 'LEARN-Q3 周末做什么？')
    for (const fact of facts) expect(turn!.system).toContain(fact)
    expect(app.errors).toEqual([])
  }, 240_000)
})
