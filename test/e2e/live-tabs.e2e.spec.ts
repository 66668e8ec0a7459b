/**
 * Many tabs in one browser profile, in real Chromium against the real `dsh web`: a browser gives one host six HTTP/1.1
 * connections, shared by every tab of the profile. The host's development channel (`/plugins/events`, the client-hmr
 * row) holds one of them per page, so with the host as shipped five pages take five; the plugin's push channel is a
 * WebSocket, which takes none, so five pages of the app all load and follow each other's saves, as they do in dsh
 * without the plugin (six pages stall dsh alone; live-tabs-shipped.e2e.spec.ts has those five). This file's six pages
 * run with the host's development channel off (a user's own cordis.patch.yml can do the same). Across a context the plugin keeps one channel (counted from the
 * browser's own WebSocket events), which outlives the page holding it, and no HTTP request of the plugin stays open;
 * a draft typed in one page survives another page's save.
 *
 * No timing is asserted here (bench/tabs.bench.ts measures it): a save must answer and the others must show it
 * within bounds of a few seconds, far above the ~35 ms it takes and far below the 35 s a stalled save hung.
 */
import { expect, describe, it } from 'vitest'
import { screenshot } from '../support/browser.ts'
import { everySaveReachesEveryTab, OTHERS_SHOW_MS, plugins, tabsRig, watchConnections } from '../support/app-tabs.ts'

/** A cordis.patch.yml row turning the host's per-page development channel off. */
const NO_HMR = '- id: client-hmr\n  disabled: true\n'

const rig = tabsRig({ patch: NO_HMR })

describe('six pages of the app in one browser profile', () => {
  it('each save answers and every other page shows it; one push channel serves them all, and outlives its page', async () => {
    const context = await rig.context()
    const held = watchConnections(context)
    const tabs = await rig.open(context, [
      'settings',
      'conversation',
      'settings',
      'conversation',
      'settings',
      'conversation',
    ])
    await expect.poll(() => held.channels().length, { timeout: 10_000 }).toBe(1)

    await everySaveReachesEveryTab(tabs, rig.alpha.id, 'R')
    expect(held.mostChannels(), 'push channels open at once across the context').toBe(1)
    // No HTTP request of the plugin stays open: what the last save set off (heads, conversations) ends.
    await expect.poll(() => plugins(held.openRequests()), { timeout: 5_000 }).toEqual([])
    await screenshot(tabs[0]!.page, 'live-tabs-six-pages')

    // The page holding the channel goes; the next in line takes over, and the rest still follow.
    const holder = held.channels()[0]!
    const rest = tabs.filter((t) => t.page !== holder)
    await holder.close()
    await everySaveReachesEveryTab(rest, rig.alpha.id, 'H')
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
