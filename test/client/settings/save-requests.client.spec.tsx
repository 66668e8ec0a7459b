/**
 * What the page's own save costs on the wire: one request. The reply to `profile.update` carries the state, the meta
 * (with the revision) and the profile as saved, so the editor shows the saved version without reading it again, and
 * the push channel's event for that save (a revision the page already holds) fetches nothing. About you's save takes
 * the user layer from its reply too, and its list shows the layer from there.
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
import { opsHost, type OpsHost } from '../../support/ops-host.ts'
import { memorySearchAnswer } from '../../support/memory-search.ts'
import { coreOnly, memoryCounts } from '../../../lib/http/wire.ts'
import type { WireProfile } from '../../../lib/shared/wire-state.ts'
import { simBrowser, type SimPage } from '../../support/tabs.ts'

const pages: SimPage[] = []

/** The requests `host` received since the `from`th, as method and path. */
const paths = (host: OpsHost, from: number) => host.calls.slice(from).map((c) => `${c.method} ${c.path}`)
/** The memory texts the list shows, top to bottom. */
const shown = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('.ap-memory-item .ap-memory-text')].map((el) => el.textContent)

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value
    select.dispatchEvent(new Event('change', { bubbles: true }))
  })
}

/**
 * What the real routes answer that the fake host leaves out, laid over its answers (every request still reaches it
 * and is counted): a whole profile's memory as its core with its counts (lib/http/wire.ts's own functions), a saved
 * profile's first rows of a memory with an archive when the save asked for them (`?window=N`, the search route's own
 * function), one model, and the sync settings. Returns the requests as the page sent them, query and all.
 */
function withCounts(host: OpsHost): string[] {
  const inner = globalThis.fetch
  const sent: string[] = []
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    const asked = new URL(String(url), 'http://host')
    sent.push(`${init?.method ?? 'GET'} ${asked.pathname}${asked.search}`)
    const window = asked.pathname === '/__ap/command' ? Number(asked.searchParams.get('window') ?? 0) : 0
    // The fake knows the command route by its path alone.
    const answer = await inner(asked.pathname === '/__ap/command' ? asked.pathname : url, init)
    const body = (await answer.json()) as Record<string, unknown>
    const path = String(url)
    const whole = (path.startsWith('/__ap/profile/') ? body : body.saved) as Record<string, unknown> | undefined
    if (whole?.profile !== undefined) {
      const id = (whole.profile as WireProfile).id
      const counts = memoryCounts(host.state.profiles.find((p) => p.id === id)!)
      whole.memoryCounts = counts
      whole.profile = coreOnly(whole.profile as WireProfile)
      const rows = `/__ap/memory/search?layer=profile&owner=${id}&offset=0&limit=${window}`
      if (window > 0 && counts.archived > 0)
        whole.window = memorySearchAnswer(host.state, { method: 'GET', path: rows })!.body
    }
    const sync = { settings: null, status: { running: false, notes: [], failures: 0 } }
    const replaced: Record<string, unknown> = {
      '/__ap/models': {
        providers: [{ id: 'deepseek', name: 'DeepSeek', models: [{ id: 'deepseek-chat', name: 'V3', efforts: [] }] }],
        failures: [],
      },
      '/__ap/sync': sync,
      '/__ap/sync/settings': { ...sync, settings: { remote: 'git@example.com:me/profiles.git', branch: 'main' } },
    }
    return new Response(JSON.stringify(replaced[path] ?? body), {
      status: path in replaced ? 200 : answer.status,
      headers: { 'content-type': 'application/json' },
    })
  })
  return sent
}

afterEach(async () => {
  for (const page of pages.splice(0)) page.close()
  configureLive({})
  await cleanup()
  keepDraft(null)
  vi.unstubAllGlobals()
})

/** The settings page over the stubbed host, once its reads have settled; on its tab `label` when given. */
async function mountAt(label?: string): Promise<HTMLElement> {
  const { container } = await render(
    <ApiContext.Provider value={createApiClient()}>
      <SettingsPage />
    </ApiContext.Provider>,
  )
  await settle(5)
  if (label !== undefined) {
    await click(tab(label, container))
    await settle(5)
  }
  return container
}

describe("the page's own save", () => {
  it('is one request: the editor shows the saved profile from the reply, without reading it again', async () => {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手', rules: '实事求是' })]))
    const container = await mountAt()
    await type(field('行为准则', container), '不编造引用')
    const before = host.calls.length
    await click(button('保存', container))
    await settle(5)
    expect(host.calls.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual(['POST /__ap/command'])
    expect(field('行为准则', container).value).toBe('不编造引用')
    expect(button('保存', container).disabled).toBe(true)
  })

  it('in About you, is one request too: the list shows the layer its reply brought', async () => {
    const host = opsHost({
      ...state([profile({ id: 'a', name: '通用助手' })]),
      user: { items: [memoryItem('u1', '用户叫小王')] },
    })
    const container = await mountAt('关于你')
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
    // The layer (its items for the list and the suggestions, its share of the budget) comes with the reply; the
    // list orders it as the search route would, so it reads nothing again.
    expect(host.calls.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual(['POST /__ap/command'])
    const shown = [...container.querySelectorAll<HTMLElement>('.ap-about-you .ap-memory-item .ap-memory-text')]
    expect(shown.map((el) => el.textContent)).toEqual(['用户住在上海', '用户在学日语', '用户叫小王'])
  })

  it("in a profile's memory (no archive) is one request: the list shows the items the reply brought", async () => {
    const host = opsHost(
      state([profile({ id: 'a', name: '通用助手', memory: { summary: '', items: [memoryItem('m1', '喜欢咖啡')] } })]),
    )
    withCounts(host)
    const container = await mountAt('记忆')
    await type(field('写下一条要长期记住的事实', container), '用户住在上海')
    await click(button('添加', container))
    // The model saves a fact as the save arrives: only the list as the reply brought it can show it.
    host.hostCommand({
      op: 'memory.add',
      target: { profileId: 'a' },
      items: [{ text: '用户在学日语', source: 'auto' }],
    })
    const before = host.calls.length
    await click(button('保存', container.querySelector('.ap-editor-actions')!))
    await settle(5)
    expect(paths(host, before)).toEqual(['POST /__ap/command'])
    expect(shown(container)).toEqual(['用户住在上海', '用户在学日语', '喜欢咖啡'])
  })

  it("in a profile's memory with an archive is one request: the reply brings the list's first rows", async () => {
    const host = opsHost(
      state([
        profile({
          id: 'a',
          name: '通用助手',
          memory: {
            summary: '',
            items: [
              memoryItem('m1', '喜欢咖啡', { at: 1_700_000_000_000 }),
              memoryItem('m2', '去过杭州', { at: 1_700_000_050_000, archived: true }),
            ],
          },
        }),
      ]),
    )
    const sent = withCounts(host)
    const container = await mountAt('记忆')
    // Opening it reads the window: the profile whole carries its core only.
    expect(shown(container)).toEqual(['去过杭州', '喜欢咖啡'])
    await type(field('写下一条要长期记住的事实', container), '用户住在上海')
    await click(button('添加', container))
    // The model saves a fact as the save arrives: only the list as the reply brought it can show it.
    host.hostCommand({
      op: 'memory.add',
      target: { profileId: 'a' },
      items: [{ text: '用户在学日语', source: 'auto' }],
    })
    const before = sent.length
    await click(button('保存', container.querySelector('.ap-editor-actions')!))
    await settle(5)
    expect(sent.slice(before)).toEqual(['POST /__ap/command?window=100'])
    expect(shown(container)).toEqual(['用户住在上海', '用户在学日语', '去过杭州', '喜欢咖啡'])
  })

  it('is one request in every other section that saves: tools, model, sync', async () => {
    const host = opsHost(state([profile({ id: 'a', name: '通用助手' })]))
    withCounts(host)
    const container = await mountAt()
    const save = async (): Promise<string[]> => {
      const before = host.calls.length
      await click(button('保存', container.querySelector('.ap-editor-actions')!))
      await settle(5)
      return paths(host, before)
    }
    await click(tab('工具', container))
    await choose(container.querySelector('[data-panel="tools"] select')!, 'minimal')
    expect(await save()).toEqual(['POST /__ap/command'])
    await click(tab('模型', container))
    await settle(5)
    await choose(container.querySelector('[data-ap-model-editor] select')!, 'deepseek\u0000deepseek-chat')
    expect(await save()).toEqual(['POST /__ap/command'])
    await click(tab('导入导出与维护', container))
    await settle(5)
    await type(field('Git 仓库', container), 'git@example.com:me/profiles.git')
    const before = host.calls.length
    await click(button('保存', container.querySelector('.ap-sync')!))
    await settle(5)
    expect(paths(host, before)).toEqual(['POST /__ap/sync/settings'])
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
