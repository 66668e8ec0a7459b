/**
 * What the page's own save costs on the wire: one request. The reply to `profile.update` carries the state, the meta
 * (with the revision) and the profile as saved, so the editor shows the saved version without reading it again, and
 * the push channel's event for that save (a revision the page already holds) fetches nothing. About you's save takes
 * the user layer from its reply too (its list reads its window of facts again, as after any change of the layer).
 */
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { configureLive, openLive } from '../../../lib/client/data/live.ts'
import { profilesOf } from '../../../lib/client/data/profiles.ts'
import { keepDraft } from '../../../lib/client/common/editing.ts'
import { SettingsPage } from '../../../lib/client/settings/SettingsPage.tsx'
import {
  button,
  cleanup,
  click,
  field,
  memoryItem,
  meta,
  profile,
  profileAnswer,
  render,
  settle,
  state,
  stubFetch,
  tab,
  type,
  wireOf,
} from '../../support/dom.tsx'
import { opsHost } from '../../support/ops-host.ts'
import { simBrowser, type SimPage } from '../../support/tabs.ts'

const pages: SimPage[] = []

afterEach(async () => {
  for (const page of pages.splice(0)) page.close()
  configureLive({})
  await cleanup()
  keepDraft(null)
  vi.unstubAllGlobals()
})

describe("the page's own save", () => {
  it('is one request: the editor shows the saved profile from the reply, without reading it again', async () => {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手', rules: '实事求是' })]))
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    await settle(5)
    await type(field('行为准则', container), '不编造引用')
    const before = host.calls.length
    await click(button('保存', container))
    await settle(5)
    expect(host.calls.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual(['POST /__ap/command'])
    expect(field('行为准则', container).value).toBe('不编造引用')
    expect(button('保存', container).disabled).toBe(true)
  })

  it("in About you, takes the layer from the reply: only the list's own window is read again", async () => {
    const host = opsHost({
      ...state([profile({ id: 'a', name: '通用助手' })]),
      user: { items: [memoryItem('u1', '用户叫小王')] },
    })
    const { container } = await render(
      <ApiContext.Provider value={createApiClient()}>
        <SettingsPage />
      </ApiContext.Provider>,
    )
    await settle(5)
    await click(tab('关于你', container))
    await settle(5)
    await type(field('写下一条要长期记住的事实', container), '用户住在上海')
    await click(button('添加', container))
    // The model saves a fact as the save arrives: only a layer read after the save can show it.
    host.state = {
      ...host.state,
      user: { items: [...host.state.user!.items, memoryItem('u9', '用户在学日语', { source: 'tool' })] },
    }
    const before = host.calls.length
    await click(button('保存', container.querySelector('.ap-about-you')!))
    await settle(5)
    // The layer (its items for the suggestions, its share of the budget) comes with the reply; the list of up to
    // 1,000 facts reads its first window from the search route, as it does whenever the layer changes.
    expect(host.calls.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /__ap/command',
      'GET /__ap/memory/search?layer=user&offset=0&limit=100',
    ])
    const shown = [...container.querySelectorAll<HTMLElement>('.ap-about-you .ap-memory-item .ap-memory-text')]
    expect(shown.map((el) => el.textContent)).toEqual(['用户住在上海', '用户在学日语', '用户叫小王'])
  })

  it('costs nothing more when the push channel tells of it: the page holds that revision already', async () => {
    const a = profile({ id: 'a', name: '通用助手' })
    const saved = { ...a, rules: '不编造引用', updatedAt: a.updatedAt + 1 }
    let revision = 7
    const calls = stubFetch((call) => {
      const now = call.path === '/__ap/command' ? [saved] : [a]
      if (call.path === '/__ap/command') revision = 8
      if (call.path === '/__ap/state' || call.path === '/__ap/command') {
        const whole = profileAnswer(now, { method: 'GET', path: '/__ap/profile/a', body: undefined }, revision)!.body
        return {
          body: {
            state: wireOf(state(now)),
            meta: meta({ revision }),
            notice: { key: 'profile.updated', params: { name: a.name } },
            saved: whole,
          },
        }
      }
      return { status: 500, body: { error: { code: 'internal', message: `not expected: ${call.path}` } } }
    })
    const client = createApiClient()
    await client.refresh()
    const page = simBrowser().page('settings')
    pages.push(page)
    const channel = openLive(client, page.options)
    await vi.waitFor(() => expect(page.sources).toHaveLength(1))
    const source = page.sources[0]!
    source.open()
    await vi.waitFor(() => expect(channel.mode).toBe('live'))
    calls.length = 0
    const reply = await act(() => client.command('profile.update', { id: 'a', patch: { rules: '不编造引用' } }))
    profilesOf(client).take(reply.saved)
    source.emit({ kind: 'change', revision: 8, change: { profiles: ['a'], memory: [], removed: [], sessions: [] } })
    await vi.waitFor(() => expect(channel.applied).toBe(1))
    await settle()
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /__ap/command'])
    expect(await profilesOf(client).current('a')).toMatchObject({ rules: '不编造引用' })
    expect(calls).toHaveLength(1)
    channel.close()
  })
})
