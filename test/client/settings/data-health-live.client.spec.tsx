/**
 * An open Diagnostics page shows the integrity check's end as it comes (#44): the host's push channel says the meta
 * changed (`meta`, no saved change), the page fetches the meta alone and the "Integrity check" row turns from "not
 * run yet" to what the check found, without Refresh and without loading the state again. Real React in jsdom, the
 * page's own channel over a simulated browser.
 */
import { expect, it, vi } from 'vitest'
import { formatTime } from '../../../lib/client/common/feedback.ts'
import { openLive } from '../../../lib/client/data/live.ts'
import type { DataHealth } from '../../../lib/shared/meta.ts'
import { click, meta, profile, settle, state, stubFetch, tab, wireOf } from '../../support/dom.tsx'
import { cleanPageEachTest, mountPage } from '../../support/settings-page.tsx'
import { simBrowser } from '../../support/tabs.ts'

cleanPageEachTest()

it('turns the integrity check row from pending to its finding when the channel says the meta changed', async () => {
  let check: DataHealth['check'] = { state: 'pending' }
  const at = Date.UTC(2026, 11, 4, 6, 30)
  const metaNow = () => meta({ revision: 7, data: { setAside: [], check } })
  const calls = stubFetch((call) => {
    if (call.path === '/__ap/state') return { body: { state: wireOf(state([profile({ id: 'a' })])), meta: metaNow() } }
    if (call.path === '/__ap/meta') return { body: { meta: metaNow() } }
    return { status: 404, body: { error: { code: 'not-found', message: call.path } } }
  })
  const { container, client } = await mountPage()
  await click(tab('诊断', container))
  await settle(5)
  const row = () => container.querySelector<HTMLElement>('.ap-integrity-check')!
  expect(row().dataset.apCheck).toBe('pending')
  const page = simBrowser().page('settings')
  const live = openLive(client, { ...page.options, window: undefined })
  await vi.waitFor(() => expect(page.sources).toHaveLength(1))
  page.sources[0]!.open()
  await settle(5)
  expect(live.mode).toBe('live')
  calls.length = 0

  check = { state: 'sound', at }
  page.sources[0]!.emit({ kind: 'meta', revision: 7 })
  await settle(10)
  expect(row().dataset.apCheck).toBe('sound')
  expect(row().textContent).toBe(`${formatTime('zh', at)} 已检查：数据文件完好。`)
  // The meta alone was fetched: nothing saved, so no state, no profile.
  expect(calls.map((c) => c.path)).toEqual(['/__ap/meta'])

  check = { state: 'damaged', at: at + 1 }
  page.sources[0]!.emit({ kind: 'meta', revision: 7 })
  await settle(10)
  expect(row().dataset.apCheck).toBe('damaged')
  live.close()
  page.close()
})
