import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LiveBanner } from '../../../lib/client/common/LiveBanner.tsx'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { configureLive, useLive } from '../../../lib/client/data/live.ts'
import { bindLocale } from '../../../lib/client/copy/locales.ts'
import { cleanup, meta, render, settle, state, stubFetch, text, wireOf } from '../../support/dom.tsx'
import { simBrowser, type SimPage } from '../../support/tabs.ts'

let pages: SimPage[] = []
afterEach(async () => {
  await cleanup()
  for (const page of pages.splice(0)) page.close()
  configureLive({})
})

/** A page that holds the live channel (as the settings page does) and shows the banner. */
function Page(): React.ReactNode {
  useLive()
  return <LiveBanner />
}

describe('a page whose push channel is off', () => {
  it('says so, in the page’s language, once the channel gave up; nothing while it connects or is live', async () => {
    stubFetch(() => ({ body: { state: wireOf(state()), meta: meta({ revision: 3 }) } }))
    const client = createApiClient()
    await client.refresh()
    const page = simBrowser().page('page')
    pages.push(page)
    configureLive(page.options)
    const view = await render(
      <ApiContext.Provider value={client}>
        <Page />
      </ApiContext.Provider>,
    )
    await vi.waitFor(() => expect(page.sources).toHaveLength(1))
    const source = page.sources[0]!
    source.fail(0)
    await act(() => settle(10))
    expect(view.container.querySelector('[data-ap-live-off]')).toBeNull()
    source.fail(2)
    await vi.waitFor(() => expect(view.container.querySelector('[data-ap-live-off]')).not.toBeNull())
    expect(text(view.container)).toContain('此页面的实时更新已断开')
    expect(view.container.querySelector('[data-ap-live-off]')!.getAttribute('role')).toBe('status')

    const unbind = bindLocale({ getLocale: () => ({ active: 'en' }), subscribe: () => () => {} })
    try {
      await view.rerender(
        <ApiContext.Provider value={client}>
          <Page />
        </ApiContext.Provider>,
      )
      expect(text(view.container)).toContain('Live updates are off in this page')
      expect(text(view.container)).toContain('Saving works as usual')
    } finally {
      unbind()
    }
  })
})
