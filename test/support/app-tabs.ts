/**
 * Pages of the app in one real browser context against one real `dsh web`, for the live-tabs e2e specs: a rig that
 * boots the offline model, Chromium and a host with profile Alpha around a spec file; pages opened as the user has
 * them (the settings page on Alpha, or the conversation); what the context holds open, from the browser's own events;
 * saves from each page that every other page must show.
 */
import { expect, beforeAll, afterAll } from 'vitest'
import type { BrowserContext, Browser, Page, Request } from 'playwright-core'
import type { Profile } from '../../lib/state/model.ts'
import { chooseProfile, launchBrowser, openPage, openSettings, openWorkspace, send } from './browser.ts'
import { bootHost, type Host } from './host-api.ts'
import { isTitleRequest, startModelServer, type ModelServer } from './model-server.ts'

/** How long a save may take to answer and the others to show it before the spec calls it stalled (not a timing). */
const SAVE_ANSWERS_MS = 5_000
export const OTHERS_SHOW_MS = 5_000

/** What a live-tabs spec file works with: the offline model, Chromium, and a host with profile Alpha. */
export class TabsRig {
  /** The host, set before the file's first test. */
  host!: Host
  /** Profile Alpha, set before the file's first test. */
  alpha!: Profile
  #model?: ModelServer
  #browser?: Browser
  readonly #contexts: BrowserContext[] = []

  async start(patch: string | undefined): Promise<void> {
    this.#model = await startModelServer()
    this.#browser = await launchBrowser()
    this.host = await bootHost(this.#model, patch === undefined ? {} : { patch })
    const created = await this.host.command<{ profile: Profile }>({
      op: 'profile.create',
      profile: { name: 'Alpha 搭档', emoji: '🦊' },
    })
    this.alpha = created.profile
  }

  async stop(): Promise<void> {
    for (const context of this.#contexts) await context.close()
    await this.host?.stop()
    await this.#browser?.close()
    await this.#model?.close()
  }

  /** A new browser context at the page size the specs use; closed after the file. */
  async context(): Promise<BrowserContext> {
    const context = await this.#browser!.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
    this.#contexts.push(context)
    return context
  }

  /** Open one page of `kinds` each, in order, in `context`. */
  open(context: BrowserContext, kinds: Array<Tab['kind']>): Promise<Tab[]> {
    return openTabs(context, this.host, this.#model!, kinds, this.alpha)
  }
}

/** Boot the model, Chromium and a host (with cordis.patch.yml rows `patch`) around the calling spec file. */
export function tabsRig({ patch }: { patch?: string } = {}): TabsRig {
  const rig = new TabsRig()
  beforeAll(() => rig.start(patch), 120_000)
  afterAll(() => rig.stop())
  return rig
}

/**
 * What the pages of `context` hold, as the browser reports it: the plugin's push channels (WebSockets on
 * `/__ap/events`) open now and from which page, the most open at once among pages still open, and every HTTP request
 * not finished yet.
 */
export function watchConnections(context: BrowserContext): {
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
export const plugins = (paths: string[]): string[] => paths.filter((p) => p === '/__ap' || p.startsWith('/__ap/'))

/** A page of the app as the user has it: the settings page on Alpha, or the conversation. */
export interface Tab {
  page: Page
  kind: 'settings' | 'conversation'
}

async function openTabs(
  context: BrowserContext,
  host: Host,
  model: ModelServer,
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
export async function everySaveReachesEveryTab(tabs: Tab[], id: string, round: string): Promise<void> {
  for (const [i, tab] of tabs.entries()) {
    const name = `Alpha ${round}${i + 1}`
    await saveFrom(tab, id, name)
    await Promise.all(tabs.filter((t) => t !== tab).map((t) => nameShown(t, id, name, OTHERS_SHOW_MS)))
  }
}
