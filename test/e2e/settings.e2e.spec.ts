/**
 * The settings page in real Chromium against the real `dsh web` (offline model): opened from the settings
 * navigation, a profile created and filled in completely with a generated PNG avatar, saved and found again after a
 * reload; export and import through the page; the host language switch; markup in user text shown as text; a failed
 * data load shown as an error. Screenshots go to test-artifacts/.
 */
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Envelope, Profile, State } from '../../lib/shared/model.ts'
import { openSettings, screenshot, startBrowserApp, type BrowserApp } from '../support/browser.ts'
import { postJson } from '../support/host-api.ts'
import { png } from '../support/png.ts'

let app: BrowserApp
let page: Page

// One page for the whole file: each test reloads it (the host's first-run notice only shows once per home).
beforeAll(async () => {
  app = await startBrowserApp({ lang: 'en' })
  page = app.page
})

afterAll(async () => {
  await app?.close()
})

const state = async (): Promise<State> => (await app.host.read()).state

async function command(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await fetch(`${app.host.web.url}/__ap/command`, postJson(body))
  expect(r.status, await r.clone().text()).toBe(200)
  return (await r.json()) as Record<string, unknown>
}

const editor = () => page.locator('.ap-editor')
const listRow = (name: string) => page.locator('.ap-list-item', { hasText: name })

describe('settings page in the real host', () => {
  it('creates a profile with every field and an avatar, saves it, and finds it all after a reload', async () => {
    await openSettings(page)
    await page.locator('.ap-list-item').first().waitFor()
    await screenshot(page, 'settings-1-opened')

    await page.getByRole('button', { name: /New profile/ }).click()
    await expect.poll(() => editor().getByLabel(/^Name/).inputValue()).toMatch(/^新配置/)
    await editor().getByLabel(/^Name/).fill('Fox 狐狸')
    await editor().getByLabel(/^Emoji/).fill('🦊')
    await editor().getByLabel(/^Role/).fill('You are a fox who reviews code.')
    await editor().getByLabel(/^Personality/).fill('Curious, blunt')
    await editor().getByLabel(/^Speaking style/).fill('Short sentences')
    await editor().getByLabel(/^Ground rules/).fill('Never invent APIs\nSay when unsure')
    await editor().getByLabel(/^Inject long-term memory/).uncheck()
    await editor().getByLabel('Memory summary').fill('The user writes Go.')
    await editor().getByLabel('A fact to remember long-term').fill('Prefers tables')
    await editor().getByRole('button', { name: 'Add', exact: true }).click()
    await editor().locator('input[type="file"][accept^="image/"]').setInputFiles({ name: 'fox.png', mimeType: 'image/png', buffer: png(800, 600) })
    await expect.poll(() => editor().getByRole('status').first().textContent()).toMatch(/Shrunk to 512×384 px, [\d.]+ KB/)
    await screenshot(page, 'settings-2-filled')
    // Leaving the draft asks first, in our own dialog above the host's settings dialog.
    await page.locator('.ap-list-item').first().click()
    await page.getByRole('alertdialog').getByText('"Fox 狐狸" has unsaved changes. Discard them?').waitFor()
    await screenshot(page, 'settings-2b-unsaved-confirm')
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click()
    expect(await editor().getByLabel(/^Name/).inputValue()).toBe('Fox 狐狸')
    await editor().getByRole('button', { name: 'Save', exact: true }).click()
    await page.locator('.ap-notice', { hasText: 'Saved' }).waitFor()

    const saved = (await state()).profiles.find((p) => p.name === 'Fox 狐狸')!
    expect(saved).toMatchObject({
      emoji: '🦊', role: 'You are a fox who reviews code.', personality: 'Curious, blunt', speakingStyle: 'Short sentences',
      rules: 'Never invent APIs\nSay when unsure', memoryEnabled: false, memory: { summary: 'The user writes Go.' },
    })
    expect(saved.memory.items.map((i) => [i.text, i.source])).toEqual([['Prefers tables', 'user']])
    expect(saved.avatar).toMatch(/^\/__ap\/avatar\//)
    const image = await fetch(app.host.web.url + saved.avatar)
    expect(image.headers.get('content-type')).toBe('image/webp')
    const bytes = Buffer.from(await image.arrayBuffer())
    expect(bytes.subarray(8, 12).toString('ascii')).toBe('WEBP')

    await openSettings(page)
    await listRow('Fox 狐狸').click()
    expect(await editor().getByLabel(/^Name/).inputValue()).toBe('Fox 狐狸')
    expect(await editor().getByLabel(/^Ground rules/).inputValue()).toBe('Never invent APIs\nSay when unsure')
    expect(await editor().getByLabel(/^Inject long-term memory/).isChecked()).toBe(false)
    expect(await editor().getByLabel('Memory summary').inputValue()).toBe('The user writes Go.')
    await editor().getByText('Prefers tables').waitFor()
    // The list shows the picture itself (loaded, not the emoji fallback).
    const img = listRow('Fox 狐狸').locator('img')
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(512)
    await screenshot(page, 'settings-3-after-reload')
  })

  it('exports a file and imports it back, merged and then replacing', async () => {
    const before = await state()
    await openSettings(page)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export file' }).click()])
    // Re-chosen under the name the browser saved it as (the host's Content-Disposition), as a user would.
    const file = { name: download.suggestedFilename(), mimeType: 'application/json', buffer: readFileSync(await download.path()) }
    expect(file.name).toMatch(/\.json$/)
    const envelope = JSON.parse(file.buffer.toString('utf8')) as Envelope
    expect(envelope.format).toBe('dsh-agent-profiles')
    expect(envelope.profiles.map((p) => p.name)).toEqual(before.profiles.map((p) => p.name))
    expect(envelope.profiles.find((p) => p.name === 'Fox 狐狸')?.avatar).toMatch(/^data:image\/webp;base64,/)

    await page.locator('.ap-io input[type="file"]').setInputFiles(file)
    await page.locator('.ap-io .ap-notice', { hasText: `Imported ${envelope.profiles.length} profiles` }).waitFor()
    expect((await state()).profiles).toHaveLength(before.profiles.length * 2)
    await expect.poll(() => page.locator('.ap-list-item').count()).toBe(before.profiles.length * 2)
    await screenshot(page, 'settings-4-imported-merge')

    await page.getByLabel(/^Replace/).check()
    await page.locator('.ap-io input[type="file"]').setInputFiles(file)
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click()
    await page.locator('.ap-io .ap-notice').waitFor()
    const after = await state()
    expect(after.profiles.map((p) => p.name)).toEqual(before.profiles.map((p) => p.name))
    const fox = after.profiles.find((p) => p.name === 'Fox 狐狸') as Profile
    expect(fox.avatar).toMatch(/^\/__ap\/avatar\//)
    await expect.poll(() => page.locator('.ap-list-item').count()).toBe(before.profiles.length)
  })

  it('follows the host theme through its tokens', async () => {
    await openSettings(page)
    const colours = () => page.locator('.ap-settings .ap-panel').first().evaluate((el) => {
      const style = getComputedStyle(el)
      return `${style.backgroundColor} / ${getComputedStyle(el.closest('.ap-settings')!).color}`
    })
    const light = await colours()
    await page.getByRole('dialog').getByRole('button', { name: 'General' }).click()
    await page.getByRole('button', { name: 'Dark', exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Agent profiles' }).click()
    const dark = await colours()
    await screenshot(page, 'settings-5a-dark')
    expect(dark).not.toBe(light)
    await page.getByRole('dialog').getByRole('button', { name: 'General' }).click()
    await page.getByRole('button', { name: 'System', exact: true }).click()
  })

  it('follows the host language switch', async () => {
    await openSettings(page)
    await page.getByRole('heading', { name: 'Agent profiles' }).waitFor()
    await page.getByRole('dialog').getByRole('button', { name: 'General' }).click()
    await page.getByRole('button', { name: 'English' }).click()
    await page.getByRole('menuitem', { name: '中文' }).click()
    await page.getByRole('dialog').getByRole('button', { name: '智能体配置' }).click()
    await page.getByRole('heading', { name: '配置列表' }).waitFor()
    await page.getByRole('button', { name: /新建配置/ }).waitFor()
    await page.getByText('模型看到的内容').waitFor()
    await screenshot(page, 'settings-5-chinese')
    // Back to English for the other tests sharing this home (the choice persists in settings.yaml).
    await page.getByRole('dialog').getByRole('button', { name: '通用设置' }).click()
    await page.getByRole('button', { name: '中文' }).click()
    await page.getByRole('menuitem', { name: 'English' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Agent profiles' }).waitFor()
  })

  it('shows names and rules full of markup as text and runs none of it', async () => {
    const evilName = '<img src=x onerror="window.__pwned=1">'
    await command({ op: 'profile.create', profile: { name: evilName, rules: '<script>window.__pwned=2</script><b>bold?</b>', role: '{{model}} <svg onload="window.__pwned=3">' } })
    await openSettings(page)
    await listRow(evilName).click()
    expect(await editor().getByLabel(/^Ground rules/).inputValue()).toBe('<script>window.__pwned=2</script><b>bold?</b>')
    await page.locator('.ap-preview-text', { hasText: '<script>window.__pwned=2</script>' }).waitFor()
    expect(await page.locator('.ap-settings img[src="x"], .ap-settings script, .ap-settings svg, .ap-settings b').count()).toBe(0)
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    await screenshot(page, 'settings-6-markup-as-text')
  })

  it('shows an error, not a blank page, when the data cannot be loaded, and recovers on retry', async () => {
    await page.route('**/__ap/state', (route) => route.fulfill({
      status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'io', message: 'EACCES: permission denied, open profiles.json' } }),
    }))
    // The reload inside means no entry (the composer's switcher included) holds data loaded before the failure.
    await openSettings(page)
    const alert = page.locator('.ap-settings [role="alert"]')
    await alert.waitFor()
    expect(await alert.textContent()).toContain('Could not load: EACCES: permission denied, open profiles.json')
    await screenshot(page, 'settings-7-load-failed')
    await page.unroute('**/__ap/state')
    await alert.getByRole('button', { name: 'Retry' }).click()
    await page.locator('.ap-list-item').first().waitFor()
  })

  it('threw no error in the page along the way', () => {
    expect(app.errors).toEqual([])
  })
})
