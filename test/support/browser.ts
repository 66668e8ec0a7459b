/**
 * Drives Debian's Chromium (headless, through playwright-core) against the real `dsh web`: boots the host with one
 * page on it for a browser spec, opens the app (past the first-run notice), our settings page, and a workspace so a
 * message can be sent. Screenshots go to `test-artifacts/` (review shots only when asked, a failed test's always); the
 * README's pictures to `docs/images/`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { ROOT } from './dsh.ts'
import { bootHost, type Host } from './host-api.ts'
import { startModelServer, type ModelServer } from './model-server.ts'
import type { TestContext } from 'vitest'
import { decodePng } from './png.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = join(ROOT, 'test-artifacts')
/** Where the pictures README.md shows are written; committed, so the README shows what the suite last saw. */
const DOC_IMAGES = join(ROOT, 'docs', 'images')

/** Flags that keep Chromium from reaching for the network this machine does not have. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium), or set CHROMIUM_PATH`,
    )
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })
}

/**
 * Open the app at `url` in a fresh page (language `lang`) and wait for the composer. A home made with the notice
 * acknowledged (the default of `makeHome`) never shows the host's first-run notice; for a brand-new home pass
 * `firstRun: true`, and the notice — which may come up after the composer — is waited for and dismissed as a new user
 * would. Collects page errors.
 */
export async function openApp(
  browser: Browser,
  url: string,
  options: { lang?: 'en' | 'zh'; firstRun?: boolean } = {},
): Promise<{ page: Page; errors: string[] }> {
  const lang = options.lang ?? 'en'
  const context = await browser.newContext({
    locale: lang === 'zh' ? 'zh-CN' : 'en-US',
    viewport: { width: 1400, height: 900 },
  })
  return openPage(context, url, options)
}

/** Open the app at `url` in another page of `context` (tabs of one browser profile share its connections), as openApp. */
export async function openPage(
  context: BrowserContext,
  url: string,
  options: { firstRun?: boolean } = {},
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(String(e)))
  await page.goto(url, { waitUntil: 'domcontentloaded' })
  if (options.firstRun) {
    const notice = page.getByRole('button', { name: /^(Continue|继续)$/ })
    await notice.click({ timeout: 30_000 })
    await notice.waitFor({ state: 'detached', timeout: 30_000 })
  }
  await page.locator('textarea').first().waitFor({ timeout: 30_000 })
  return { page, errors }
}

/** The real `dsh web` on a fresh home (offline model) with one Chromium page open on the app. */
export interface BrowserApp {
  model: ModelServer
  host: Host
  browser: Browser
  page: Page
  /** Errors the page threw so far. */
  errors: string[]
  /** Close the browser, stop the host and the model, remove the home. */
  close(): Promise<void>
}

/**
 * Boot the offline model, `dsh web` on a fresh home with the plugin (its config `patch` rows when given), and Chromium;
 * `prepare` runs on the host before the page opens (profiles the page must find); open the app in language `lang`.
 */
export async function startBrowserApp(
  options: { lang?: 'en' | 'zh'; patch?: string; prepare?: (host: Host) => Promise<void> } = {},
): Promise<BrowserApp> {
  const model = await startModelServer()
  let host: Host | undefined
  let browser: Browser | undefined
  const close = async (): Promise<void> => {
    await browser?.close()
    await host?.stop()
    await model.close()
  }
  try {
    host = await bootHost(model, options.patch === undefined ? {} : { patch: options.patch })
    await options.prepare?.(host)
    browser = await launchBrowser()
    const { page, errors } = await openApp(
      browser,
      host.web.url,
      options.lang === undefined ? {} : { lang: options.lang },
    )
    return { model, host, browser, page, errors, close }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * Reload the app (unless `reload` is false: a page that must keep what it shows), then open Settings and our page
 * through the navigation, as a user does.
 */
export async function openSettings(page: Page, { reload = true }: { reload?: boolean } = {}): Promise<void> {
  if (reload) await page.reload()
  await page.locator('textarea').first().waitFor({ timeout: 30_000 })
  // Found by its slot, not its name: in a narrow window the host folds the sidebar into a rail whose settings
  // trigger is a gear icon without any text.
  await page.locator('button:has(> [data-slot="settings.trigger"])').click({ timeout: 30_000 })
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /^(Agent profiles|智能体配置)$/ })
    .click()
  await page.locator('.ap-settings').waitFor()
}

/** Unfold the profile list where the page is narrow enough to fold it behind the selector button. */
export async function showProfileList(page: Page): Promise<void> {
  const toggle = page.locator('.ap-settings .ap-list-toggle')
  await page.locator('.ap-settings .ap-list-item').first().waitFor()
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
}

/** Choose the profile called `name` in the list, as a user does. */
export async function chooseProfile(page: Page, name: string): Promise<void> {
  await showProfileList(page)
  await page.locator('.ap-settings .ap-list-item[data-profile-id]', { hasText: name }).click()
}

/** Open a section of the page or of the profile editor by clicking its tab (named with or without its unsaved mark). */
export async function openSection(page: Page, name: string): Promise<void> {
  const label = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(.*\\))?$`)
  await page.locator('.ap-settings').getByRole('tab', { name: label }).click()
}

/**
 * Switch the host language from the settings dialog's General section, then come back to this plugin's page (named
 * `back` in the new language).
 */
export async function switchLanguage(page: Page, from: string, to: string, back: string): Promise<void> {
  await page
    .getByRole('dialog')
    .getByRole('button', { name: from === 'English' ? 'General' : '通用设置' })
    .click()
  await page.getByRole('button', { name: from }).click()
  await page.getByRole('menuitem', { name: to }).click()
  await page.getByRole('dialog').getByRole('button', { name: back }).click()
}

/** Choose the current folder as the workspace so the composer accepts input. */
export async function openWorkspace(page: Page): Promise<void> {
  await page.locator('textarea').first().click({ timeout: 30_000 })
  await page.getByRole('button', { name: /^(Open|打开)$/ }).click({ timeout: 30_000 })
}

/** Type a message into the composer and send it. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.locator('textarea').first()
  await box.click()
  await box.fill(text)
  await box.press('Enter')
}

/**
 * Wait until the conversation's turn is over: the composer's primary button is the host's Send again, not its Stop
 * (the host shows Stop while the session runs, tool calls and later steps included). A message sent before then
 * joins the running turn instead of starting the next one.
 */
export async function turnOver(page: Page): Promise<void> {
  await page
    .locator('button[aria-label="Stop generating"], button[aria-label="停止生成"]')
    .first()
    .waitFor({ state: 'detached', timeout: 60_000 })
}

/**
 * A full-page picture of where a spec stands, into `test-artifacts/`, for a person reviewing the pages the suite walks
 * through. Taken only with `AP_SCREENSHOTS=1`: nothing asserts on them, and each costs Chromium a full-page capture
 * and encode (1–4 s on a loaded machine, about 75 of them a run).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.AP_SCREENSHOTS === '1') await shoot(page, name)
}

/** The picture of a test that failed, always taken: it is what a red run leaves to look at. */
export async function screenshotOnFailure(page: Page, context: TestContext, prefix: string): Promise<void> {
  if (context.task.result?.state !== 'fail') return
  await shoot(page, `${prefix}-failed-${context.task.name.slice(0, 40).replace(/[^\w]+/g, '-')}`).catch(() => undefined)
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
}

/**
 * Whether two screenshots show the same picture: the same size, and no sample more than a few levels apart (Chromium
 * draws a soft shadow a level or six differently from one run to the next, which no reader can see).
 */
function samePicture(a: Buffer, b: Buffer): boolean {
  const x = decodePng(a)
  const y = decodePng(b)
  if (x.width !== y.width || x.height !== y.height || x.channels !== y.channels) return false
  for (let i = 0; i < x.samples.length; i++) if (Math.abs(x.samples[i] - y.samples[i]) > 8) return false
  return true
}

/**
 * Write one of README.md's pictures, `docs/images/<name>.png`: the window as the user sees it (not the full page, so
 * the picture's size is the window's), or only the element `of` (a dialog, without the page dimmed behind it). The
 * caret is hidden, animations stopped, and what differs on every run left blank: the host's run figures under the
 * composer (timings, token rates) and every `<time>` (when a memory was saved). A picture that matches the file
 * already there (samePicture) leaves the file as it is, so a test run leaves the committed pictures alone unless the
 * page itself changed.
 */
export async function docImage(page: Page, name: string, { of }: { of?: Locator } = {}): Promise<string> {
  mkdirSync(DOC_IMAGES, { recursive: true })
  const file = join(DOC_IMAGES, `${name}.png`)
  const figures = page
    .locator('[data-slot="conversation.composer.dock"] > div', { hasText: /tok\/s/ })
    .or(page.locator('time'))
  // The elements run in the page; this file is typed without the DOM, so they are seen only as far as this needs.
  type Styled = { style: { visibility: string } }
  const hidden = await figures.evaluateAll((els) =>
    els.map((el) => {
      const { style } = el as unknown as Styled
      const before = style.visibility
      style.visibility = 'hidden'
      return before
    }),
  )
  // The pointer stays where the spec last clicked, and a control under it would be drawn hovered in one run and not
  // in another: it rests on the empty middle of the top bar, over nothing that reacts.
  await page.mouse.move(800, 12)
  try {
    // A control still settling after the last reply draws differently from one frame to the next: the picture is
    // the first that two shots in a row agree on.
    const shoot = (): Promise<Buffer> => (of ?? page).screenshot({ caret: 'hide', animations: 'disabled' })
    let last = await shoot()
    for (let shot = 0; shot < 10; shot++) {
      await new Promise((r) => setTimeout(r, 100))
      const next = await shoot()
      if (next.equals(last)) break
      last = next
    }
    if (!existsSync(file) || !samePicture(readFileSync(file), last)) writeFileSync(file, last)
  } finally {
    await figures.evaluateAll(
      (els, before) =>
        els.forEach((el, i) => {
          ;(el as unknown as Styled).style.visibility = before[i] ?? ''
        }),
      hidden,
    )
  }
  return file
}
