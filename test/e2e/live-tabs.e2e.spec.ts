/**
 * Many tabs in one browser profile, in real Chromium against the real `dsh web`: a browser gives one host six HTTP/1.1
 * connections, shared by every tab of the profile. The host's development channel (`/plugins/events`, the client-hmr
 * row) holds one of them per page, so with the host as shipped five pages take five; the plugin's push channel is a
 * WebSocket, which takes none, so five pages of the app all load and follow each other's saves, as they do in dsh
 * without the plugin (six pages stall dsh alone). The six-page spec runs with the host's development channel off (a
 * user's own cordis.patch.yml can do the same). Across a context the plugin keeps one channel (counted from the
 * browser's own WebSocket events), which outlives the page holding it, and no HTTP request of the plugin stays open;
 * a draft typed in one page survives another page's save.
 *
 * No timing is asserted here (bench/tabs.bench.ts measures it): a save must answer and the others must show it
 * within bounds of a few seconds, far above the ~35 ms it takes and far below the 35 s a stalled save hung.
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
/** How long a save may take to answer and the others to show it before the spec calls it stalled (not a timing). */
const SAVE_ANSWERS_MS = 5_000
const OTHERS_SHOW_MS = 5_000

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

/**
 * What the pages of `context` hold, as the browser reports it: the plugin's push channels (WebSockets on
 * `/__ap/events`) open now and from which page, the most open at once among pages still open, and every HTTP request
 * not finished yet.
 */
function watchConnections(context: BrowserContext): {
  channels(): Page[]
  mostChannels(): number
  openRequests(): string[]
} {
  // Each channel's life in the order the browser reported its events (a counter, not a clock).
  const spans: Array<{ page: Page; opened: number; closed?: number }> = []
  const requests = new Set<Request>()
  let tick = 0
  context.on('page', (page) =>
    page.on('websocket', (ws) => {
      if (new URL(ws.url()).pathname !== '/__ap/events') return
      const span: (typeof spans)[number] = { page, opened: ++tick }
      spans.push(span)
      ws.on('close', () => (span.closed = ++tick))
    }),
  )
  context.on('request', (r) => {
    if (!r.frame().page().isClosed()) requests.add(r)
  })
  context.on('requestfinished', (r) => requests.delete(r))
  context.on('requestfailed', (r) => requests.delete(r))
  const alive = () => spans.filter((s) => !s.page.isClosed())
  return {
    channels: () => alive().flatMap((s) => (s.closed === undefined ? [s.page] : [])),
    // A closed page's channel is left out: the browser hands the lock on as the page goes, and may report the next
    // page's channel before that page's close, which is no second channel held by a page anyone sees.
    mostChannels: () =>
      Math.max(
        0,
        ...alive().map(
          (s, _, all) =>
            all.filter((o) => o.opened <= s.opened && (o.closed === undefined || o.closed > s.opened)).length,
        ),
      ),
    openRequests: () => [...requests].filter((r) => !r.frame().page().isClosed()).map((r) => new URL(r.url()).pathname),
  }
}

/** The plugin's HTTP requests among `paths` (its routes are all under `/__ap`). */
const plugins = (paths: string[]): string[] => paths.filter((p) => p === '/__ap' || p.startsWith('/__ap/'))

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
 * field) the same command sent from that page. Fails when the save has not answered within SAVE_ANSWERS_MS.
 */
async function saveFrom(tab: Tab, id: string, name: string): Promise<void> {
  if (tab.kind === 'conversation') {
    await tab.page.evaluate(
      async ({ id, name, bound }) => {
        const reply = await fetch('/__ap/command', {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify({ op: 'profile.update', id, patch: { name } }),
          signal: AbortSignal.timeout(bound),
        })
        const text = await reply.text()
        if (!reply.ok) throw new Error(text)
      },
      { id, name, bound: SAVE_ANSWERS_MS },
    )
    return
  }
  const editor = tab.page.locator('.ap-editor')
  await editor.getByLabel(/^Name/).fill(name)
  const answered = tab.page.waitForResponse((r) => new URL(r.url()).pathname === '/__ap/command', {
    timeout: SAVE_ANSWERS_MS,
  })
  await editor.getByRole('button', { name: 'Save', exact: true }).click()
  const reply = await answered
  expect(reply.status()).toBe(200)
}

/** Each tab saves in turn: it answers, and every other tab shows the new name. */
async function everySaveReachesEveryTab(tabs: Tab[], id: string, round: string): Promise<void> {
  for (const [i, tab] of tabs.entries()) {
    const name = `Alpha ${round}${i + 1}`
    await saveFrom(tab, id, name)
    await Promise.all(tabs.filter((t) => t !== tab).map((t) => nameShown(t, id, name, OTHERS_SHOW_MS)))
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

  it('each save answers and every other page shows it; one push channel serves them all, and outlives its page', async () => {
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
    const held = watchConnections(context)
    const tabs = await openTabs(
      context,
      host,
      ['settings', 'conversation', 'settings', 'conversation', 'settings', 'conversation'],
      alpha,
    )
    await expect.poll(() => held.channels().length, { timeout: 10_000 }).toBe(1)

    await everySaveReachesEveryTab(tabs, alpha.id, 'R')
    expect(held.mostChannels(), 'push channels open at once across the context').toBe(1)
    // No HTTP request of the plugin stays open: what the last save set off (heads, conversations) ends.
    await expect.poll(() => plugins(held.openRequests()), { timeout: 5_000 }).toEqual([])
    await screenshot(tabs[0]!.page, 'live-tabs-six-pages')

    // The page holding the channel goes; the next in line takes over, and the rest still follow.
    const holder = held.channels()[0]!
    const rest = tabs.filter((t) => t.page !== holder)
    await holder.close()
    await everySaveReachesEveryTab(rest, alpha.id, 'H')
    expect(held.channels()).toHaveLength(1)
    expect(held.channels()[0]).not.toBe(holder)
    expect(held.mostChannels()).toBe(1)

    // A draft typed in one settings page survives a save of the same field from another, relayed or not.
    const [mine, theirs] = rest.filter((t) => t.kind === 'settings')
    const role = mine!.page.locator('.ap-editor').getByLabel(/^Role/)
    await role.fill('我在这一页改的角色 DRAFT-T')
    await theirs!.page.locator('.ap-editor').getByLabel(/^Role/).fill('另一页保存的角色 THEIRS-T')
    await theirs!.page.locator('.ap-editor').getByRole('button', { name: 'Save', exact: true }).click()
    await mine!.page.locator('.ap-settings [data-ap-conflict="role"]').waitFor({ timeout: OTHERS_SHOW_MS })
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

  it("five pages load, each one's save answers and shows in the others, and the long-lived HTTP requests are the host's alone", async () => {
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
    const held = watchConnections(context)
    const tabs = await openTabs(
      context,
      host,
      ['settings', 'conversation', 'settings', 'conversation', 'settings'],
      alpha,
    )
    await expect.poll(() => held.channels().length, { timeout: 10_000 }).toBe(1)
    await everySaveReachesEveryTab(tabs, alpha.id, 'S')
    expect(held.mostChannels()).toBe(1)
    // Once the saves' fetches end, what stays open over HTTP is the host's development channel, one per page.
    await expect.poll(() => plugins(held.openRequests()), { timeout: 5_000 }).toEqual([])
    expect(held.openRequests().sort()).toEqual(tabs.map(() => '/plugins/events'))
    for (const tab of tabs) expect(await tab.page.locator('[data-ap-live-off]').count()).toBe(0)
    await screenshot(tabs[4]!.page, 'live-tabs-five-pages')
  })
})
