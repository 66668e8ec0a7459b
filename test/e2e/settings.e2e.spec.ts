/**
 * The settings page in real Chromium against the real `dsh web` (offline model): opened from the settings
 * navigation, a profile created and filled in completely with a generated PNG avatar, saved and found again after a
 * reload; export and import through the page; the host language switch; markup in user text shown as text; a failed
 * data load shown as an error. Screenshots go to test-artifacts/.
 */
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Envelope } from '../../lib/state/model.ts'
import type { WireState } from '../../lib/shared/wire-state.ts'
import {
  chooseProfile,
  openSection,
  openSettings,
  screenshot,
  showProfileList,
  startBrowserApp,
  switchLanguage,
  type BrowserApp,
} from '../support/browser.ts'
import { postJson } from '../support/host-api.ts'
import { focusedIs, sweep, tabTo, unreached } from '../support/keyboard.ts'
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

const state = async (): Promise<WireState> => (await app.host.read()).state

async function command(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await fetch(`${app.host.web.url}/__ap/command`, postJson(body))
  expect(r.status, await r.clone().text()).toBe(200)
  return (await r.json()) as Record<string, unknown>
}

const editor = () => page.locator('.ap-editor')
const listRow = (name: string) => page.locator('.ap-list-item[data-profile-id]', { hasText: name })

describe('settings page in the real host', () => {
  it('creates a profile with every field and an avatar, saves it, and finds it all after a reload', async () => {
    await openSettings(page)
    await page.locator('.ap-list-item').first().waitFor()
    await screenshot(page, 'settings-1-opened')

    await page.getByRole('button', { name: /New profile/ }).click()
    await expect.poll(() => editor().getByLabel(/^Name/).inputValue()).toMatch(/^新配置/)
    await editor().getByLabel(/^Name/).fill('Fox 狐狸')
    await editor()
      .getByLabel(/^Emoji/)
      .fill('🦊')
    await editor().getByLabel(/^Role/).fill('You are a fox who reviews code.')
    await editor()
      .getByLabel(/^Personality/)
      .fill('Curious, blunt')
    await editor()
      .getByLabel(/^Speaking style/)
      .fill('Short sentences')
    await editor()
      .getByLabel(/^Ground rules/)
      .fill('Never invent APIs\nSay when unsure')
    await editor()
      .locator('input[type="file"][accept^="image/"]')
      .setInputFiles({ name: 'fox.png', mimeType: 'image/png', buffer: png(800, 600) })
    // The canvas work takes a while on a loaded machine: wait longer than the one-second default.
    // The avatar's own status line: the editor of a new profile also says, in another, that it became the default.
    await editor()
      .getByRole('status')
      .filter({ hasText: /Shrunk to 512×384 px, [\d.]+ KB/ })
      .waitFor({ timeout: 15_000 })
    await screenshot(page, 'settings-2-filled')
    await openSection(page, 'Memory')
    await editor()
      .getByLabel(/^Inject long-term memory/)
      .uncheck()
    await editor().getByLabel('Memory summary').fill('The user writes Go.')
    await editor().getByLabel('A fact to remember long-term').fill('Prefers tables')
    await editor().getByRole('button', { name: 'Add', exact: true }).click()
    await screenshot(page, 'settings-2a-memory-filled')
    // Leaving the draft asks first, in our own dialog above the host's settings dialog.
    await showProfileList(page)
    await listRow('通用助手').click()
    await page.getByRole('alertdialog').getByText('"Fox 狐狸" has unsaved changes. Discard them?').waitFor()
    await screenshot(page, 'settings-2b-unsaved-confirm')
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click()
    expect(await editor().getByLabel(/^Name/).inputValue()).toBe('Fox 狐狸')
    await editor().getByRole('button', { name: 'Save', exact: true }).click()
    await page.locator('.ap-notice', { hasText: 'Saved' }).waitFor()

    const saved = await app.host.profile((await state()).profiles.find((p) => p.name === 'Fox 狐狸')!.id)
    expect(saved).toMatchObject({
      emoji: '🦊',
      role: 'You are a fox who reviews code.',
      personality: 'Curious, blunt',
      speakingStyle: 'Short sentences',
      rules: 'Never invent APIs\nSay when unsure',
      memoryEnabled: false,
      memory: { summary: 'The user writes Go.' },
    })
    expect(saved.memory.items.map((i) => [i.text, i.source])).toEqual([['Prefers tables', 'user']])
    expect(saved.avatar).toMatch(/^\/__ap\/avatar\//)
    const image = await fetch(app.host.web.url + saved.avatar)
    expect(image.headers.get('content-type')).toBe('image/webp')
    const bytes = Buffer.from(await image.arrayBuffer())
    expect(bytes.subarray(8, 12).toString('ascii')).toBe('WEBP')

    await openSettings(page)
    await chooseProfile(page, 'Fox 狐狸')
    expect(await editor().getByLabel(/^Name/).inputValue()).toBe('Fox 狐狸')
    expect(
      await editor()
        .getByLabel(/^Ground rules/)
        .inputValue(),
    ).toBe('Never invent APIs\nSay when unsure')
    await openSection(page, 'Memory')
    expect(
      await editor()
        .getByLabel(/^Inject long-term memory/)
        .isChecked(),
    ).toBe(false)
    expect(await editor().getByLabel('Memory summary').inputValue()).toBe('The user writes Go.')
    await editor().getByText('Prefers tables').waitFor()
    // The list shows the picture itself (loaded, not the emoji fallback).
    await showProfileList(page)
    const img = listRow('Fox 狐狸').locator('img')
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(512)
    await screenshot(page, 'settings-3-after-reload')
  })

  it('exports a file; merging it back adds nothing, replacing with it restores the same profiles', async () => {
    const before = await state()
    await openSettings(page)
    await openSection(page, 'Import, export & maintenance')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export file' }).click(),
    ])
    // Re-chosen under the name the browser saved it as (the host's Content-Disposition), as a user would.
    const file = {
      name: download.suggestedFilename(),
      mimeType: 'application/json',
      buffer: readFileSync(await download.path()),
    }
    expect(file.name).toMatch(/\.json$/)
    const envelope = JSON.parse(file.buffer.toString('utf8')) as Envelope
    expect(envelope.format).toBe('dsh-agent-profiles')
    expect(envelope.profiles.map((p) => p.name)).toEqual(before.profiles.map((p) => p.name))
    expect(envelope.profiles.find((p) => p.name === 'Fox 狐狸')?.avatar).toMatch(/^data:image\/webp;base64,/)

    await page.locator('.ap-io input[type="file"]').setInputFiles(file)
    // A backup merged back over the same data: every profile is already there, so nothing is duplicated.
    const merged = page.locator('.ap-io .ap-notice', { hasText: 'Imported 0 profiles' })
    await merged.waitFor()
    expect(await merged.textContent()).toContain('"Fox 狐狸" is the same as a profile you have; not imported again.')
    expect((await state()).profiles).toHaveLength(before.profiles.length)
    await expect.poll(() => page.locator('.ap-list-item[data-profile-id]').count()).toBe(before.profiles.length)
    await screenshot(page, 'settings-4-imported-merge')

    await page.getByLabel(/^Replace/).check()
    await page.locator('.ap-io input[type="file"]').setInputFiles(file)
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click()
    await page.locator('.ap-io .ap-notice').waitFor()
    const after = await state()
    expect(after.profiles.map((p) => p.name)).toEqual(before.profiles.map((p) => p.name))
    const fox = after.profiles.find((p) => p.name === 'Fox 狐狸')!
    expect(fox.avatar).toMatch(/^\/__ap\/avatar\//)
    await expect.poll(() => page.locator('.ap-list-item[data-profile-id]').count()).toBe(before.profiles.length)
  })

  it('follows the host theme through its tokens', async () => {
    await openSettings(page)
    const colours = () =>
      page.locator('.ap-settings .ap-editor').evaluate((el) => {
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
    await switchLanguage(page, 'English', '中文', '智能体配置')
    await page.getByRole('heading', { name: '配置列表' }).waitFor()
    await page.getByRole('button', { name: /新建配置/ }).waitFor()
    await openSection(page, '预览')
    await page.getByText('模型看到的内容').waitFor()
    await screenshot(page, 'settings-5-chinese')
    // Back to English for the other tests sharing this home (the choice persists in settings.yaml).
    await switchLanguage(page, '中文', 'English', 'Agent profiles')
  })

  it('shows names and rules full of markup as text and runs none of it', async () => {
    const evilName = '<img src=x onerror="window.__pwned=1">'
    await command({
      op: 'profile.create',
      profile: {
        name: evilName,
        rules: '<script>window.__pwned=2</script><b>bold?</b>',
        role: '{{model}} <svg onload="window.__pwned=3">',
      },
    })
    await openSettings(page)
    await chooseProfile(page, evilName)
    expect(
      await editor()
        .getByLabel(/^Ground rules/)
        .inputValue(),
    ).toBe('<script>window.__pwned=2</script><b>bold?</b>')
    await openSection(page, 'Preview')
    await page.locator('.ap-preview-text', { hasText: '<script>window.__pwned=2</script>' }).waitFor()
    expect(
      await page.locator('.ap-settings img[src="x"], .ap-settings script, .ap-settings svg, .ap-settings b').count(),
    ).toBe(0)
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    await screenshot(page, 'settings-6-markup-as-text')
  })

  it('shows an error, not a blank page, when the data cannot be loaded, and recovers on retry', async () => {
    await page.route('**/__ap/state', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'io', message: 'EACCES: permission denied, open profiles.json' } }),
      }),
    )
    // The reload inside means no entry (the composer's switcher included) holds data loaded before the failure.
    await openSettings(page)
    const alert = page.locator('.ap-settings [role="alert"]')
    await alert.waitFor()
    expect(await alert.textContent()).toContain('Could not load: The data file could not be read or written')
    await screenshot(page, 'settings-7-load-failed')
    await page.unroute('**/__ap/state')
    await alert.getByRole('button', { name: 'Retry' }).click()
    await page.locator('.ap-list-item').first().waitFor()
  })

  it('keeps a draft across sections of the editor and of the page, and the preview shows it', async () => {
    await openSettings(page)
    const before = await state()
    await chooseProfile(page, '通用助手')
    await editor().getByLabel(/^Role/).fill('A draft role kept across sections')
    await openSection(page, 'Memory')
    await editor().getByLabel('Memory summary').fill('A draft summary')
    await openSection(page, 'Import, export & maintenance')
    await openSection(page, 'Diagnostics')
    expect(await page.getByRole('tab', { name: 'Profiles (changed)' }).isVisible()).toBe(true)
    await openSection(page, 'Profiles')
    await page.getByRole('tab', { name: 'Profile (changed)' }).waitFor()
    await page.getByRole('tab', { name: 'Memory (changed)' }).waitFor()
    expect(await editor().getByLabel('Memory summary').inputValue()).toBe('A draft summary')
    await openSection(page, 'Preview')
    await page.locator('.ap-preview-text', { hasText: 'A draft role kept across sections' }).waitFor()
    await screenshot(page, 'settings-8-draft-across-sections')
    await openSection(page, 'Profile')
    expect(await editor().getByLabel(/^Role/).inputValue()).toBe('A draft role kept across sections')
    expect(await state()).toEqual(before)
    await editor().getByRole('button', { name: 'Discard changes' }).click()
    await page.getByRole('tab', { name: 'Profile', exact: true }).waitFor()
  })

  it('reaches every control of every section with the keyboard alone, and keeps focus on a tab it moves to', async () => {
    await openSettings(page)
    const saved = await editor().getByLabel(/^Name/).inputValue()
    // Enter from the host's navigation entry for this page, as a keyboard user does.
    await page.getByRole('dialog').getByRole('button', { name: 'Agent profiles' }).focus()
    const pageTab = '.ap-tabs-page [role="tab"][aria-selected="true"]'
    const editorTab = '.ap-tabs-editor [role="tab"][aria-selected="true"]'
    await tabTo(page, pageTab)

    // The folded list: open it from the keyboard, and every row is reachable.
    await tabTo(page, '.ap-list-toggle')
    await page.keyboard.press('Enter')
    await tabTo(page, pageTab, true)
    await sweep(page)
    expect(await unreached(page, '.ap-settings')).toEqual([])
    await tabTo(page, '.ap-list-toggle', true)
    await page.keyboard.press('Enter')

    // A draft typed from the keyboard, so Save and Discard take part too.
    await tabTo(page, '[data-panel="profile"] input')
    await page.keyboard.press('End')
    await page.keyboard.type(' 2')
    for (const [i, section] of ['profile', 'memory', 'tools', 'model', 'preview'].entries()) {
      await tabTo(page, editorTab, true)
      if (i > 0) await page.keyboard.press('ArrowRight')
      expect(await focusedIs(page, `${editorTab}[data-tab="${section}"]`), section).toBe(true)
      await sweep(page)
      expect(await unreached(page, `.ap-editor [data-panel="${section}"], .ap-editor-actions`), section).toEqual([])
    }
    for (const section of ['about', 'files', 'diagnostics']) {
      await tabTo(page, pageTab, true)
      await page.keyboard.press('ArrowRight')
      expect(await focusedIs(page, `${pageTab}[data-tab="${section}"]`), section).toBe(true)
      await screenshot(page, `settings-9-keyboard-${section}`)
      // The backups' picker comes with the section's second answer (the list of backups): every control is swept.
      if (section === 'files') await page.getByRole('button', { name: 'Restore this backup' }).waitFor()
      await sweep(page)
      expect(await unreached(page, `[data-panel="${section}"]`), section).toEqual([])
    }
    await tabTo(page, pageTab, true)
    await page.keyboard.press('Home')
    await tabTo(page, '.ap-editor-actions .ap-btn:not(.ap-btn-primary)')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.ap-editor-actions .ap-btn:not(.ap-btn-primary)').isDisabled()).toBe(true)
    expect(await editor().getByLabel(/^Name/).inputValue()).toBe(saved)
  })

  it('shows the user layer under About you, saves an edit, follows a save made elsewhere, and exports it only when asked', async () => {
    await command({
      op: 'memory.add',
      target: { user: true },
      items: [{ text: 'The user is called Wang', source: 'tool', sessionId: 's-about' }],
    })
    const saved = async () =>
      ((await (await fetch(`${app.host.web.url}/__ap/user`)).json()) as { items: { text: string }[] }).items.map(
        (it) => it.text,
      )
    await openSettings(page)
    await openSection(page, 'About you')
    const about = page.locator('.ap-about-you')
    await about.locator('.ap-memory-item', { hasText: 'The user is called Wang' }).waitFor()
    expect(await about.textContent()).toContain('this layer takes at most 1000 of them')
    await about.getByLabel('A fact to remember long-term').fill('The user lives in Shanghai')
    await about.getByRole('button', { name: 'Add', exact: true }).click()
    await about.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(saved).toEqual(['The user is called Wang', 'The user lives in Shanghai'])
    // Saved elsewhere (the model, another tab): the push channel brings it to the open page.
    await command({ op: 'memory.add', target: { user: true }, items: [{ text: 'The user has a cat called Mochi' }] })
    await about.locator('.ap-memory-item', { hasText: 'The user has a cat called Mochi' }).waitFor()
    await screenshot(page, 'settings-about-you')
    await openSection(page, 'Import, export & maintenance')
    const link = page.getByRole('link', { name: 'Export file' })
    expect(await link.getAttribute('href')).toBe('/__ap/export')
    await page.getByLabel(/^Include "About you" in the export/).check()
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    const envelope = JSON.parse(readFileSync(await download.path(), 'utf8')) as Envelope
    expect(envelope.user?.items.map((it) => it.text)).toEqual([
      'The user is called Wang',
      'The user lives in Shanghai',
      'The user has a cat called Mochi',
    ])
  })

  it('threw no error in the page along the way', () => {
    expect(app.errors).toEqual([])
  })
})
