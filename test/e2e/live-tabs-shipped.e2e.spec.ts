/**
 * Five pages of the app in one browser profile, in real Chromium against the real `dsh web` as shipped: the host's
 * development channel (`/plugins/events`, the client-hmr row) holds one of the browser's six HTTP/1.1 connections per
 * page, and the plugin's push channel (a WebSocket) takes none, so five pages all load, each one's save answers and
 * shows in the others, and what stays open over HTTP is the host's channel alone. live-tabs.e2e.spec.ts has six pages
 * with that channel off. No timing is asserted (bench/tabs.bench.ts measures it).
 */
import { expect, describe, it } from 'vitest'
import { screenshot } from '../support/browser.ts'
import { everySaveReachesEveryTab, plugins, tabsRig, watchConnections } from '../support/app-tabs.ts'

const rig = tabsRig()

describe('the host as shipped (its development channel on)', () => {
  it("five pages load, each one's save answers and shows in the others, and the long-lived HTTP requests are the host's alone", async () => {
    const context = await rig.context()
    const held = watchConnections(context)
    const tabs = await rig.open(context, ['settings', 'conversation', 'settings', 'conversation', 'settings'])
    await expect.poll(() => held.channels().length, { timeout: 10_000 }).toBe(1)
    await everySaveReachesEveryTab(tabs, rig.alpha.id, 'S')
    expect(held.mostChannels()).toBe(1)
    // Once the saves' fetches end, what stays open over HTTP is the host's development channel, one per page.
    await expect.poll(() => plugins(held.openRequests()), { timeout: 5_000 }).toEqual([])
    expect(held.openRequests().sort()).toEqual(tabs.map(() => '/plugins/events'))
    for (const tab of tabs) expect(await tab.page.locator('[data-ap-live-off]').count()).toBe(0)
    await screenshot(tabs[4]!.page, 'live-tabs-five-pages')
  })
})
