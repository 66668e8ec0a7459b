/**
 * Learning from the user's own past dsh conversations as a user meets it (issue #46), in Chromium on the real
 * `dsh web` with the offline model: conversations the host ran before are found from the learn section's "Learn
 * from your past conversations here", with their count and days; the estimate shows, the run goes to its end, and
 * what the model found arrives in About you as a suggestion saying "dsh, YYYY-MM-DD".
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { UserReply } from '../../lib/shared/wire-replies.ts'
import { openSection, openSettings, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { textOf } from '../support/model-server.ts'
import { kindOf } from '../support/memory-requests.ts'

let app: BrowserApp

const FACT = '周末常去崂山徒步'

beforeAll(async () => {
  app = await startBrowserApp({
    lang: 'en',
    // No background extraction: every extraction the model gets is the learning run's.
    patch: `- id: agent-profiles\n  config:\n    memory: {"autoExtract": false}\n`,
    prepare: async (host) => {
      for (const said of ['PAST-1 周末我常去崂山徒步', 'PAST-2 帮我写一封邮件'])
        await host.say(await host.conversation(), said)
    },
  })
}, 180_000)

afterAll(async () => {
  await app?.close()
})

it('finds past conversations from the page, shows the cost, and learns them into suggestions', async () => {
  const { page } = app
  app.model.respond((r) => {
    if (kindOf(r) !== 'extract') return undefined
    return { text: textOf(r.messages.at(-1)!).includes('PAST-1') ? `- [用户] ${FACT}` : '无' }
  })
  await openSettings(page)
  await openSection(page, 'Import, export & maintenance')
  const section = page.locator('.ap-learn-export')
  await section.getByRole('button', { name: 'Learn from your past conversations here' }).click()
  await expect
    .poll(() => section.locator('[data-ap-learn-found]').innerText(), { timeout: 30_000 })
    .toMatch(/^Your past conversations: 2 conversations \(messages: 2\), from \d{4}-\d{2}-\d{2} to/)
  await expect.poll(() => section.locator('[data-ap-learn-plan]').innerText()).toContain('2 model calls')
  await section.getByRole('button', { name: 'Start learning' }).click()
  await expect
    .poll(() => section.locator('[data-ap-learn-run]').getAttribute('data-ap-learn-run'), { timeout: 60_000 })
    .toBe('done')
  const user = (await (await fetch(`${app.host.web.url}/__ap/user`)).json()) as UserReply
  const learned = user.items.filter((it) => it.text === FACT)
  expect(learned).toHaveLength(1)
  expect(learned[0]).toMatchObject({ pending: true, source: 'import' })
  expect(learned[0]!.origin).toMatch(/^dsh, \d{4}-\d{2}-\d{2}$/)
  expect(app.errors).toEqual([])
}, 240_000)
