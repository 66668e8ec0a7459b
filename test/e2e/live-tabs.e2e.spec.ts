/**
 * Many tabs in one browser profile, in real Chromium against the real `dsh web`: a browser gives one host six HTTP/1.1
 * connections, shared by every tab of the profile, and a push stream holds one for the page's life. Six pages of the
 * app (three settings pages, three of a conversation) in ONE browser context: a save from each answers at once and
 * every other page shows it, the plugin holds one push stream for the whole context (counted from the browser's own
 * request events), and when the page holding it closes the others still follow; a
 * draft typed in one page survives another page's save.
 *
 * The host's own development channel (`/plugins/events`, the client-hmr row) is one EventSource per page as well: six
 * pages of it alone take all six connections, whatever a plugin does. The six-page spec therefore runs with that row
 * off (a user's own cordis.patch.yml can do the same); the spec after it keeps the host as shipped and opens four pages,
 * which with one stream per page would have stalled every save (4 + 4 streams) and now leaves room (4 + 1).
 */
import type { BrowserContext, Browser, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../lib/state/model.ts'
import {
  chooseProfile,
  launchBrowser,
  openPage,
  openSettings,
  openWorkspace,
  screenshot,
  send,
} from '../support/browser.ts'
import { bootHost, type Host } from '../support/host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer } from '../support/model-server.ts'

/** A cordis.patch.yml row turning the host's per-page development channel off. */
const NO_HMR = '- id: client-hmr\n  disabled: true\n'
/** The acceptance bounds of the issue (functional here; the benchmark measures the figures). */
const SAVE_ANSWERS_MS = 1_000
const OTHERS_SHOW_MS = 1_000
const AFTER_HANDOVER_MS = 2_000

let model: ModelServer
let browser: Browser

beforeAll(async () => {
  model = await startModelServer()
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await model?.close()
})

/** Every request of the plugin's routes in `context`, as the browser reports them: which are open now, from which page. */
function watchRequests(context: BrowserContext): { streams(): Page[]; mostStreams(): number; otherOpen(): string[] } {
  const open = new Map<Request, Page>()
  const isStream = (r: Request): boolean => new URL(r.url()).pathname === '/__ap/events'
  const streams = (): Page[] => [...open].filter(([r, p]) => isStream(r) && !p.isClosed()).map(([, p]) => p)
  let most = 0
  context.on('request', (r) => {
    if (!new URL(r.url()).pathname.startsWith('/__ap/')) return
    open.set(r, r.frame().page())
    if (isStream(r)) most = Math.max(most, streams().length)
  })
  context.on('requestfinished', (r) => open.delete(r))
  context.on('requestfailed', (r) => open.delete(r))
  return {
    streams,
    mostStreams: () => most,
    otherOpen: () => [...open].filter(([r, p]) => !isStream(r) && !p.isClosed()).map(([r]) => r.url()),
  }
}

/** A page of the app as the user has it: the settings page on Alpha, or the conversation. */
interface Tab {
  page: Page
  kind: 'settings' | 'conversation'
}

async function openTabs(
  context: BrowserContext,
  host: Host,
  kinds: Array<Tab['kind']>,
  alpha: Profile,
): Promise<Tab[]> {
  const tabs: Tab[] = []
  for (const kind of kinds) {
    const { page } = await openPage(context, host.web.url)
    if (kind === 'settings') {
      await openSettings(page, { reload: false })
      await chooseProfile(page, alpha.name)
    } else if (!tabs.some((t) => t.kind === 'conversation')) {
      // The first conversation page starts the conversation, as a user does; the others open it from the sidebar.
      await openWorkspace(page)
      await send(page, 'TB1 hello')
      await model.waitFor((r) => !isTitleRequest(r) && r.lastUser.includes('TB1'), 1, 60_000)
      await page.locator('.ap-switcher-trigger').filter({ hasText: alpha.name }).waitFor({ timeout: 30_000 })
    } else {
      await page.getByText('TB1 hello').first().click({ timeout: 30_000 })
      await page.locator('.ap-switcher-trigger').filter({ hasText: alpha.name }).waitFor({ timeout: 30_000 })
    }
    tabs.push({ page, kind })
  }
  return tabs
}

/**
 * Alpha's name as `tab` shows it: the settings list (in the page, though a narrow dialog folds the list away while a
 * profile is open), or the conversation's switcher.
 */
const nameShown = (tab: Tab, id: string, name: string, timeout: number) =>
  tab.kind === 'settings'
    ? tab.page
        .locator(`.ap-settings .ap-list-item[data-profile-id="${id}"]`)
        .filter({ hasText: name })
        .waitFor({ state: 'attached', timeout })
    : tab.page.locator('.ap-switcher-trigger').filter({ hasText: name }).waitFor({ timeout })

/**
 * Rename Alpha from `tab` as its user would save: the settings editor's Save, or (a conversation page has no name
 * field) the same command sent from that page. Resolves with how long the save took to answer (ms).
 */
async function saveFrom(tab: Tab, id: string, name: string): Promise<number> {
  if (tab.kind === 'conversation') {
    return tab.page.evaluate(
      async ({ id, name }) => {
        const started = performance.now()
        const reply = await fetch('/__ap/command', {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify({ op: 'profile.update', id, patch: { name } }),
        })
        const text = await reply.text()
        if (!reply.ok) throw new Error(text)
        return performance.now() - started
      },
      { id, name },
    )
  }
  const editor = tab.page.locator('.ap-editor')
  await editor.getByLabel(/^Name/).fill(name)
  const answered = tab.page.waitForResponse((r) => new URL(r.url()).pathname === '/__ap/command', { timeout: 30_000 })
  await editor.getByRole('button', { name: 'Save', exact: true }).click()
  const reply = await answered
  expect(reply.status()).toBe(200)
  await reply.finished()
  // The browser's own clock, from the moment the page asked (waiting for a free connection included) to the answer.
  return reply.request().timing().responseEnd
}

/** Each tab saves in turn: it answers within the bound, and every other tab shows the new name within its bound. */
async function everySaveReachesEveryTab(tabs: Tab[], id: string, round: string, showsMs: number): Promise<void> {
  for (const [i, tab] of tabs.entries()) {
    const name = `Alpha ${round}${i + 1}`
    const took = await saveFrom(tab, id, name)
    expect(took, `save from tab ${i + 1} (${tab.kind})`).toBeLessThan(SAVE_ANSWERS_MS)
    await Promise.all(tabs.filter((t) => t !== tab).map((t) => nameShown(t, id, name, showsMs)))
  }
}

describe('six pages of the app in one browser profile', () => {
  let host: Host
  let context: BrowserContext
  let alpha: Profile

  beforeAll(async () => {
    host = await bootHost(model, { patch: NO_HMR })
    alpha = (
      await host.command<{ profile: Profile }>({ op: 'profile.create', profile: { name: 'Alpha 搭档', emoji: '🦊' } })
    ).profile
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await host?.stop()
  })

  it('each save answers at once and every other page shows it; one push stream serves them all, and outlives its page', async () => {
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
    const requests = watchRequests(context)
    const tabs = await openTabs(
      context,
      host,
      ['settings', 'conversation', 'settings', 'conversation', 'settings', 'conversation'],
      alpha,
    )
    await expect.poll(() => requests.streams().length, { timeout: 10_000 }).toBe(1)

    await everySaveReachesEveryTab(tabs, alpha.id, 'R', OTHERS_SHOW_MS)
    expect(requests.mostStreams(), 'push streams open at once across the context').toBe(1)
    // Nothing else of the plugin stays open: what the last save set off (heads, conversations) ends.
    await expect.poll(() => requests.otherOpen(), { timeout: 5_000 }).toEqual([])
    await screenshot(tabs[0]!.page, 'live-tabs-six-pages')

    // The page holding the stream goes; the next in line takes over, and the rest still follow.
    const holder = requests.streams()[0]!
    const rest = tabs.filter((t) => t.page !== holder)
    await holder.close()
    await everySaveReachesEveryTab(rest, alpha.id, 'H', AFTER_HANDOVER_MS)
    expect(requests.streams()).toHaveLength(1)
    expect(requests.streams()[0]).not.toBe(holder)
    expect(requests.mostStreams()).toBe(1)

    // A draft typed in one settings page survives a save of the same field from another, relayed or not.
    const [mine, theirs] = rest.filter((t) => t.kind === 'settings')
    const role = mine!.page.locator('.ap-editor').getByLabel(/^Role/)
    await role.fill('我在这一页改的角色 DRAFT-T')
    await theirs!.page.locator('.ap-editor').getByLabel(/^Role/).fill('另一页保存的角色 THEIRS-T')
    await theirs!.page.locator('.ap-editor').getByRole('button', { name: 'Save', exact: true }).click()
    await mine!.page.locator('.ap-settings [data-ap-conflict="role"]').waitFor({ timeout: AFTER_HANDOVER_MS })
    expect(await role.inputValue()).toBe('我在这一页改的角色 DRAFT-T')
  })
})

describe('the host as shipped (its development channel on)', () => {
  let host: Host
  let context: BrowserContext
  let alpha: Profile

  beforeAll(async () => {
    host = await bootHost(model)
    alpha = (
      await host.command<{ profile: Profile }>({ op: 'profile.create', profile: { name: 'Alpha 搭档', emoji: '🦊' } })
    ).profile
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await host?.stop()
  })

  it("four pages load, and each one's save answers at once and shows in the others", async () => {
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
    const requests = watchRequests(context)
    const tabs = await openTabs(context, host, ['settings', 'conversation', 'settings', 'conversation'], alpha)
    await expect.poll(() => requests.streams().length, { timeout: 10_000 }).toBe(1)
    await everySaveReachesEveryTab(tabs, alpha.id, 'S', OTHERS_SHOW_MS)
    expect(requests.mostStreams()).toBe(1)
  })
})
