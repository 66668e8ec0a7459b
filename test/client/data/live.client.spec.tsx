import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApiClient, type ApiClient } from '../../../lib/client/data/api.ts'
import { configureLive, liveChannelOf, openLive, shareLive } from '../../../lib/client/data/live.ts'
import { meta, profile, profileAnswer, settle, state, stubFetch, wireOf, type Call } from '../../support/dom.tsx'
import type { LiveEvent } from '../../../lib/shared/wire-state.ts'
import { simBrowser, type FakeSource, type SimPage } from '../../support/tabs.ts'

let pages: SimPage[] = []
/** A page of its own simulated browser: it leads at once, so its stream is the channel. */
function onePage(): SimPage {
  const page = simBrowser().page('page')
  pages.push(page)
  return page
}
/** The page's stream, once it opened. */
async function sourceOf(page: SimPage): Promise<FakeSource> {
  await vi.waitFor(() => expect(page.sources).toHaveLength(1))
  return page.sources[0]!
}

afterEach(() => {
  for (const page of pages.splice(0)) page.close()
  configureLive({})
  vi.unstubAllGlobals()
})

const a = profile({ id: 'a', name: '通用助手' })
const b = profile({ id: 'b', name: '写作教练' })

/** A fake host over `s`; `/profile/<id>` answers from `saved`. */
function host(saved: Record<string, ReturnType<typeof profile>>): Call[] {
  return stubFetch((call) => {
    if (call.path === '/__ap/state') return { body: { state: wireOf(state([a, b])), meta: meta({ revision: 7 }) } }
    if (call.path === '/__ap/meta') return { body: { meta: meta({ revision: 9 }) } }
    return (
      profileAnswer(Object.values(saved), call) ?? {
        status: 404,
        body: { error: { code: 'not-found', message: call.path } },
      }
    )
  })
}

async function loaded(): Promise<ApiClient> {
  const client = createApiClient()
  await client.refresh()
  return client
}

describe("the page's live channel", () => {
  it('opens once the state is loaded, resuming from its revision', async () => {
    host({})
    const client = createApiClient()
    const page = onePage()
    const channel = openLive(client, page.options)
    const source = await sourceOf(page)
    expect(source.url).toBe('/__ap/events?since=7')
    channel.close()
    expect(source.closed).toBe(true)
  })

  it('applies a change by fetching only the heads of the profiles it names (and the meta), never the whole state', async () => {
    const renamed = { ...b, name: '写作教练 改' }
    const created = profile({ id: 'c', name: '新来的' })
    const calls = host({ b: renamed, c: created })
    const client = await loaded()
    calls.length = 0
    const page = onePage()
    const channel = openLive(client, page.options)
    const source = await sourceOf(page)
    source.open()
    await vi.waitFor(() => expect(channel.mode).toBe('live'))
    source.emit({
      kind: 'change',
      revision: 9,
      change: { profiles: ['b', 'c'], memory: ['c'], removed: ['a'], order: ['c', 'b'], activeId: 'c', sessions: [] },
    })
    await vi.waitFor(() => expect(channel.applied).toBe(1))
    await settle()
    expect(calls.map((c) => c.path).sort()).toEqual(['/__ap/meta', '/__ap/profile/b?head', '/__ap/profile/c?head'])
    const snap = client.getSnapshot()
    expect(snap.state?.profiles.map((p) => [p.id, p.name])).toEqual([
      ['c', '新来的'],
      ['b', '写作教练 改'],
    ])
    expect(snap.state?.activeId).toBe('c')
    expect(snap.meta?.revision).toBe(9)
    channel.close()
  })

  it('a change of conversation settings brings the new pin counts and fetches no conversation itself', async () => {
    const calls = host({})
    const client = await loaded()
    const page = onePage()
    const channel = openLive(client, page.options)
    const source = await sourceOf(page)
    calls.length = 0
    const before = client.getSnapshot().state
    source.emit({
      kind: 'change',
      revision: 8,
      change: { profiles: [], memory: [], removed: [], sessions: ['s1'], pins: { b: 1 }, conversations: 1 },
    })
    await vi.waitFor(() => expect(channel.applied).toBe(1))
    await settle()
    // A conversation the page shows asks for its own settings when the state changes (useConversation).
    expect(calls.map((c) => c.path)).toEqual(['/__ap/meta'])
    expect(client.getSnapshot().state).not.toBe(before)
    expect(client.getSnapshot().state).toMatchObject({ pins: { b: 1 }, conversations: 1 })
    channel.close()
  })

  /**
   * A fake host at revision 7 whose state loads at revision 6 (the page has a change to apply), and whose save of
   * revision 8 (b renamed) lands after the page's
   * `before`-th request since: a save from another tab made just before, or while, this page fetches.
   */
  function hostSavingAfter(before: number): void {
    let [revision, saved, requests] = [7, b, 0]
    const save = () => ([revision, saved] = [8, { ...b, name: '写作教练 新' }])
    stubFetch((call) => {
      if (call.path === '/__ap/state') return { body: { state: wireOf(state([a, b])), meta: meta({ revision: 6 }) } }
      if (requests++ === before) save()
      if (call.path === '/__ap/meta') return { body: { meta: meta({ revision }) } }
      return profileAnswer([a, saved], call, revision) ?? { status: 404, body: {} }
    })
  }

  const renameOf = (revision: number): LiveEvent => ({
    kind: 'change',
    revision,
    change: { profiles: ['b'], memory: [], removed: [], sessions: [] },
  })

  /** The name of b the page shows once its channel applied `events`, in order, over {@link hostSavingAfter}. */
  async function nameAfter(before: number, events: LiveEvent[]): Promise<string | undefined> {
    hostSavingAfter(before)
    const client = await loaded()
    const page = onePage()
    const channel = openLive(client, page.options)
    const source = await sourceOf(page)
    for (const event of events) source.emit(event)
    await vi.waitFor(() => expect(channel.applied).toBe(events.length))
    channel.close()
    return client.getSnapshot().state?.profiles.find((p) => p.id === 'b')?.name
  }

  it('a save landing while a change is applied still reaches the page when its own event comes', async () => {
    // Revision 7's change is applied while b is saved again.
    expect(await nameAfter(1, [renameOf(7), renameOf(8)])).toBe('写作教练 新')
  })

  it('a meta event does not let the page pass over a change it has not applied', async () => {
    expect(await nameAfter(0, [{ kind: 'meta', revision: 7 }, renameOf(8)])).toBe('写作教练 新')
  })

  it('"reload" loads the state afresh', async () => {
    const calls = host({})
    const client = await loaded()
    const page = onePage()
    const channel = openLive(client, page.options)
    const source = await sourceOf(page)
    calls.length = 0
    source.emit({ kind: 'reload', revision: 40 })
    await vi.waitFor(() => expect(channel.applied).toBe(1))
    expect(calls.map((c) => c.path)).toEqual(['/__ap/state'])
    channel.close()
  })

  it('a save seen in one page reaches the page of another tab, through the one stream', async () => {
    const calls = host({ b: { ...b, name: '写作教练 改' } })
    const browser = simBrowser()
    const [one, two] = [browser.page('settings'), browser.page('chat')]
    pages.push(one, two)
    const clients = [await loaded(), await loaded()]
    const channels = [openLive(clients[0]!, one.options), openLive(clients[1]!, two.options)]
    await vi.waitFor(() => expect(browser.openSources()).toHaveLength(1))
    calls.length = 0
    browser
      .openSources()[0]!
      .emit({ kind: 'change', revision: 8, change: { profiles: ['b'], memory: [], removed: [], sessions: [] } })
    await vi.waitFor(() => {
      for (const c of channels) expect(c.applied).toBe(1)
    })
    for (const client of clients)
      expect(client.getSnapshot().state?.profiles.find((p) => p.id === 'b')?.name).toBe('写作教练 改')
    // Each page fetches what it shows; the stream itself is one.
    expect(calls.filter((c) => c.path === '/__ap/profile/b?head')).toHaveLength(2)
    expect(browser.openSources()).toHaveLength(1)
    for (const c of channels) c.close()
  })

  it('without a shared channel (no Web Locks or BroadcastChannel) refreshes when the page regains focus, quietly', async () => {
    const calls = host({})
    const client = await loaded()
    const warn = vi.spyOn(console, 'warn')
    const page = onePage()
    const channel = openLive(client, { ...page.options, BroadcastChannel: undefined, window })
    expect(channel.mode).toBe('fallback')
    expect(page.sources).toHaveLength(0)
    calls.length = 0
    await act(async () => {
      window.dispatchEvent(new Event('focus'))
      await settle()
    })
    expect(calls.map((c) => c.path)).toEqual(['/__ap/state'])
    expect(warn).not.toHaveBeenCalled()
    channel.close()
  })

  it('falls back when the channel is refused for good, and keeps waiting while the browser retries', async () => {
    host({})
    const client = await loaded()
    const page = onePage()
    const channel = openLive(client, { ...page.options, window })
    const source = await sourceOf(page)
    source.fail(0)
    await vi.waitFor(() => expect(channel.mode).toBe('connecting'))
    source.fail(2)
    await vi.waitFor(() => expect(channel.mode).toBe('fallback'))
    channel.close()
  })

  it('one channel per page: every entry shares it, and the last to go closes it', async () => {
    host({})
    const client = await loaded()
    const page = onePage()
    configureLive(page.options)
    const give = [shareLive(client), shareLive(client), shareLive(client)]
    const source = await sourceOf(page)
    give[0]!()
    give[0]!()
    give[1]!()
    expect(source.closed).toBe(false)
    give[2]!()
    expect(source.closed).toBe(true)
    expect(liveChannelOf(client)?.mode).toBe('closed')
    const again = shareLive(client)
    await vi.waitFor(() => expect(page.sources).toHaveLength(2))
    again()
    expect(page.sources[1]!.closed).toBe(true)
  })
})
