/**
 * Restoring a backup through the real settings page in Chromium against the real `dsh web`: after the day's first
 * save the plugin keeps a backup; later changes are undone by picking that date under Import, export & maintenance →
 * Restore a backup, seeing what it holds, and restoring it; the data it replaced is offered as a backup itself. The
 * restore route is fenced like the others (a cross-site POST is refused and restores nothing). With a week of backups
 * the oldest is restored and every one of them stays; a backup holding no profile is refused in the page's words and
 * nothing on disk changes.
 */
import { cpSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { BackupsReply } from '../../lib/shared/wire-replies.ts'
import type { WireState } from '../../lib/shared/wire-state.ts'
import { openSection, openSettings, screenshot, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { postJson } from '../support/host-api.ts'

let app: BrowserApp
let page: Page

beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
})
afterAll(async () => {
  await app?.close()
})

const state = async (): Promise<WireState> => (await app.host.read()).state
const backups = async (): Promise<BackupsReply['backups']> =>
  ((await (await fetch(`${app.host.web.url}/__ap/backups`)).json()) as BackupsReply).backups

it("restores the day's backup through the settings page; the replaced data becomes a backup; a cross-site restore is refused", async () => {
  await app.host.command({ op: 'profile.update', id: 'general', patch: { rules: 'Rules of the first save' } })
  await expect.poll(async () => (await backups()).length, { timeout: 10_000 }).toBe(1)
  const [daily] = await backups()
  await app.host.command({ op: 'profile.update', id: 'general', patch: { rules: 'Changed later' } })
  await app.host.command({ op: 'profile.create', profile: { name: 'Added later' } })
  expect((await state()).profiles).toHaveLength(4)

  // Fenced: another site cannot restore (nor read the list through the page's session).
  const foreign = await fetch(`${app.host.web.url}/__ap/backups/restore`, {
    ...postJson({ name: daily!.name }),
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
  })
  expect(foreign.status).toBe(403)
  expect((await state()).profiles).toHaveLength(4)

  await openSettings(page)
  await openSection(page, 'Import, export & maintenance')
  const section = page.locator('.ap-backups')
  await section.getByLabel('Pick a date').waitFor()
  expect(await section.getByLabel('Pick a date').inputValue()).toBe(daily!.name)
  const contents = section.locator(`[data-ap-backup="${daily!.name}"]`)
  await contents.waitFor()
  expect(await contents.textContent()).toContain('Profiles: 3')
  expect(await contents.locator('li').count()).toBe(3)
  await screenshot(page, 'backup-1-picked')

  await section.getByRole('button', { name: 'Restore this backup' }).click()
  const ask = page.getByRole('alertdialog')
  expect(await ask.textContent()).toContain(`Replace all current data with the backup of ${daily!.name}?`)
  await ask.getByRole('button', { name: 'OK' }).click()
  await section.locator('.ap-notice', { hasText: `Restored the backup of ${daily!.name}` }).waitFor()
  await screenshot(page, 'backup-2-restored')

  const after = await state()
  expect(after.profiles.map((p) => p.name)).not.toContain('Added later')
  expect(after.profiles).toHaveLength(3)
  expect((await app.host.profile('general')).rules).toBe('Rules of the first save')
  await expect.poll(() => page.locator('.ap-list-item[data-profile-id]').count()).toBe(3)
  // The data the restore replaced is there to be restored in turn.
  const options = await section.getByLabel('Pick a date').locator('option').allTextContents()
  expect(options.some((o) => o.startsWith('The data before a restore'))).toBe(true)
  const before = (await backups()).find((b) => b.kind === 'before-restore')!
  expect(before.profiles.map((p) => p.name)).toContain('Added later')
  expect(app.errors).toEqual([])
}, 240_000)

it('with a week of backups the oldest is restored and all seven stay; one holding no profile is refused in words', async () => {
  const root = join(dirname(app.host.home.dataFile), 'profiles.backups')
  const [today] = (await backups()).filter((b) => b.kind === 'daily')
  // Six earlier days, as a week of use leaves them; one of them holds no profile.
  for (let day = 1; day <= 6; day++) cpSync(join(root, today!.name), join(root, `2020-01-0${day}`), { recursive: true })
  const empty = new DatabaseSync(join(root, '2020-01-03', 'profiles.sqlite'))
  empty.exec('DELETE FROM profiles')
  empty.close()
  await app.host.command({ op: 'profile.create', profile: { name: 'Added this week' } })
  const week = (await backups()).filter((b) => b.kind === 'daily').map((b) => b.name)
  expect(week).toHaveLength(7)
  const onDisk = readdirSync(root).sort()

  await page.reload()
  await openSettings(page)
  await openSection(page, 'Import, export & maintenance')
  const section = page.locator('.ap-backups')
  const pick = section.getByLabel('Pick a date')
  await pick.waitFor()
  const restore = async (name: string) => {
    await pick.selectOption(name)
    await section.locator(`[data-ap-backup="${name}"]`).waitFor()
    await section.getByRole('button', { name: 'Restore this backup' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click()
  }

  await restore('2020-01-03')
  await section
    .locator('.ap-error', {
      hasText: 'Not restored: this backup holds no profile, and restoring it would leave you with none.',
    })
    .waitFor()
  await screenshot(page, 'backup-3-empty-refused')
  expect(readdirSync(root).sort()).toEqual(onDisk)
  expect((await state()).profiles.map((p) => p.name)).toContain('Added this week')

  await restore('2020-01-01')
  await section.locator('.ap-notice', { hasText: 'Restored the backup of 2020-01-01' }).waitFor()
  expect((await state()).profiles.map((p) => p.name)).not.toContain('Added this week')
  expect((await backups()).filter((b) => b.kind === 'daily').map((b) => b.name)).toEqual(week)
  expect(readdirSync(root).filter((n) => !onDisk.includes(n))).toEqual([expect.stringMatching(/-before-restore$/)])
  expect(app.errors).toEqual([])
}, 240_000)
