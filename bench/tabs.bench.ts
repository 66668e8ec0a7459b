/**
 * Benchmark of many tabs in one browser profile (issues #27, #43). Real Chromium, ONE browser context, against the real
 * `dsh web` with the plugin of this checkout ("after") and of another checkout given in TABS_BEFORE ("before", e.g.
 * /work/wt/base, built), side by side in one run. For 1, 3, 5 and 6 open settings pages, RUNS renames from the first
 * page:
 *  - save: a `profile.update` sent from the page, from its `fetch` to the answer (waiting for a free connection
 *    included), p50 and the worst;
 *  - ack → other pages: from that answer until each other page's DOM shows the new name (a MutationObserver stamps
 *    it; both clocks are this machine's epoch), p50 over every page and save, and the p50 of each save's slowest page;
 *  - the plugin's push channels open across the context: HTTP streams (the browser's request events) and WebSockets
 *    (its WebSocket events), as `http+ws`.
 * A save or a page that does not answer within STALL_MS counts as stalled; after two stalls a level stops.
 * Twice: with the host's own per-page development channel (`/plugins/events`) off, which is the plugin's own effect,
 * and with the host as shipped (1, 3 and 5 pages: six pages of the host's channel alone take all six connections).
 * Run: `TABS_BEFORE=/work/wt/base npm run bench -- tabs`.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../test/support/browser.ts'
import { startModelServer } from '../test/support/model-server.ts'
import { median } from '../test/support/stats.ts'
import { armed } from './shown.ts'

const AFTER = join(fileURLToPath(import.meta.url), '..', '..')
const BEFORE = process.env.TABS_BEFORE
const RUNS = 10
const STALL_MS = 8_000
const NO_HMR = '- id: client-hmr\n  disabled: true\n'
const LEVELS = { 'host channel off': [1, 3, 6], 'host as shipped': [1, 3, 5] } as const

type Support = {
  bootHost: typeof import('../test/support/host-api.ts').bootHost
  openPage: typeof import('../test/support/browser.ts').openPage
  openSettings: typeof import('../test/support/browser.ts').openSettings
}

/** The support helpers of the checkout at `root`: its bootHost installs that checkout's plugin. */
async function supportOf(root: string): Promise<Support> {
  const host = (await import(join(root, 'test/support/host-api.ts'))) as typeof import('../test/support/host-api.ts')
  const browser = (await import(join(root, 'test/support/browser.ts'))) as typeof import('../test/support/browser.ts')
  // The before checkout has no openPage: the same steps, written for it here.
  const openPage =
    browser.openPage ??
    (async (context: BrowserContext, url: string) => {
      const page = await context.newPage()
      await page.goto(url, { waitUntil: 'domcontentloaded' })
      await page.locator('textarea').first().waitFor({ timeout: STALL_MS })
      return { page, errors: [] }
    })
  return { bootHost: host.bootHost, openPage, openSettings: browser.openSettings }
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'stalled'> =>
  Promise.race([p, new Promise<'stalled'>((r) => setTimeout(() => r('stalled'), ms))])

/** One rename from `page`: how long the answer took, and the epoch moment it came. */
function saveFrom(page: Page, id: string, name: string): Promise<{ took: number; ackAt: number }> {
  return page.evaluate(
    async ({ id, name }) => {
      const started = performance.now()
      const reply = await fetch('/__ap/command', {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ op: 'profile.update', id, patch: { name } }),
      })
      await reply.text()
      const done = performance.now()
      if (!reply.ok) throw new Error(`save failed: ${reply.status}`)
      return { took: done - started, ackAt: performance.timeOrigin + done }
    },
    { id, name },
  )
}

interface Level {
  pages: number
  save: number[]
  others: number[]
  slowest: number[]
  stalled: number
  streams: string
  note?: string
}

/** The push channels the context's pages hold open now, as `<http streams>+<websockets>`, kept as they come and go. */
function watchChannels(context: BrowserContext): () => string {
  const open = new Set<unknown>()
  const sockets = new Set<unknown>()
  const isChannel = (url: string): boolean => new URL(url).pathname === '/__ap/events'
  context.on('request', (r) => {
    if (isChannel(r.url())) open.add(r)
  })
  context.on('page', (page) =>
    page.on('websocket', (ws) => {
      if (!isChannel(ws.url())) return
      sockets.add(ws)
      ws.on('close', () => sockets.delete(ws))
    }),
  )
  const gone = (r: unknown): void => {
    open.delete(r)
  }
  context.on('requestfinished', gone)
  context.on('requestfailed', gone)
  return () => `${open.size}+${sockets.size}`
}

/**
 * One rename saved from the first page: its save time, and when each other page showed it after the save was
 * acknowledged, into `level`; a save or a page that takes over the stall limit counts as a stall instead.
 */
async function rename(pages: Page[], id: string, name: string, level: Level): Promise<void> {
  const stamps: Array<Promise<number>> = []
  for (const page of pages.slice(1)) stamps.push((await armed(page, id, name)).seen)
  // A stamp still waiting when the level gives up ends with its page; that is a stall, already counted.
  for (const stamp of stamps) stamp.catch(() => undefined)
  const saving = saveFrom(pages[0]!, id, name)
  saving.catch(() => undefined)
  const save = await withTimeout(saving, STALL_MS)
  if (save === 'stalled') {
    level.stalled++
    return
  }
  level.save.push(save.took)
  const shown = await withTimeout(Promise.all(stamps), STALL_MS)
  if (shown === 'stalled') {
    level.stalled++
    return
  }
  const delays = shown.map((t) => t - save.ackAt)
  level.others.push(...delays)
  if (delays.length > 0) level.slowest.push(Math.max(...delays))
}

async function measure(
  support: Support,
  context: BrowserContext,
  patch: string | undefined,
  levels: readonly number[],
): Promise<Level[]> {
  const model = await startModelServer()
  const host = await support.bootHost(model, patch === undefined ? {} : { patch })
  const results: Level[] = []
  const streams = watchChannels(context)
  try {
    const { profile } = await host.command<{ profile: { id: string } }>({
      op: 'profile.create',
      profile: { name: 'Bench 0' },
    })
    const pages: Page[] = []
    let counter = 0
    for (const n of levels) {
      const level: Level = { pages: n, save: [], others: [], slowest: [], stalled: 0, streams: '' }
      results.push(level)
      while (pages.length < n) {
        const opened = await withTimeout(
          (async () => {
            const { page } = await support.openPage(context, host.web.url)
            await support.openSettings(page, { reload: false })
            return page
          })(),
          STALL_MS * 2,
        )
        if (opened === 'stalled') break
        pages.push(opened)
      }
      if (pages.length < n) {
        level.note = `page ${pages.length + 1} did not load within ${(STALL_MS * 2) / 1000} s`
        break
      }
      await new Promise((r) => setTimeout(r, 1_000))
      level.streams = streams()
      for (let i = 0; i < RUNS && level.stalled < 2; i++) await rename(pages, profile.id, `Bench ${++counter}`, level)
    }
  } finally {
    for (const page of context.pages()) await page.close().catch(() => undefined)
    await host.stop()
    await model.close()
  }
  return results
}

const fmt = (xs: number[]): string => (xs.length === 0 ? '—' : `${median(xs).toFixed(1)} ms`)
const worst = (xs: number[]): string => (xs.length === 0 ? '—' : `${Math.max(...xs).toFixed(1)} ms`)

if (BEFORE === undefined || !existsSync(join(BEFORE, 'dist', 'client.js'))) {
  throw new Error(
    'set TABS_BEFORE to a built checkout of the code before (e.g. /work/wt/base after npm run build there)',
  )
}
const browser = await launchBrowser()
try {
  const versions = { before: await supportOf(BEFORE), after: await supportOf(AFTER) }
  for (const [config, levels] of Object.entries(LEVELS)) {
    const rows: Record<string, Level[]> = {}
    // Before and after in turn, each in a fresh browser context (its own connection pool).
    for (const [version, support] of Object.entries(versions)) {
      const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })
      rows[version] = await measure(support, context, config === 'host channel off' ? NO_HMR : undefined, levels)
      await context.close()
    }
    console.log(`\n${config}: ${RUNS} renames from the first page per level`)
    console.log('pages  version  save p50   save worst   ack→others p50   slowest page p50   stalled  push http+ws')
    for (const n of levels) {
      for (const version of Object.keys(versions)) {
        const level = rows[version]!.find((l) => l.pages === n)
        if (level === undefined) {
          console.log(`${String(n).padEnd(6)} ${version.padEnd(8)} (not reached)`)
          continue
        }
        console.log(
          `${String(n).padEnd(6)} ${version.padEnd(8)} ${fmt(level.save).padEnd(10)} ${worst(level.save).padEnd(12)} ${fmt(level.others).padEnd(16)} ${fmt(level.slowest).padEnd(18)} ${String(level.stalled).padEnd(8)} ${level.streams}${level.note === undefined ? '' : `  (${level.note})`}`,
        )
      }
    }
  }
} finally {
  await browser.close()
}
