import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApiClient, type ApiClient } from '../../lib/client/api.ts'
import { configureLive, liveChannelOf, openLive, shareLive, type EventSourceLike } from '../../lib/client/live.ts'
import type { LiveEvent } from '../../lib/shared/contract.ts'
import { meta, profile, profileAnswer, settle, state, stubFetch, wireOf, type Call } from '../support/dom.tsx'

/** A stand-in EventSource: records what was opened and lets the spec deliver events. */
class FakeSource {
  static opened: FakeSource[] = []
  readyState = 0
  closed = false
  onerror: ((e: Event) => void) | null = null
  readonly #listeners = new Map<string, Array<(e: Event) => void>>()
  constructor(readonly url: string) {
    FakeSource.opened.push(this)
  }
  addEventListener(type: string, fn: (e: Event) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), fn])
  }
  close(): void {
    this.closed = true
    this.readyState = 2
  }
  emit(event: LiveEvent): void {
    for (const fn of this.#listeners.get(event.kind) ?? []) fn(new MessageEvent(event.kind, { data: JSON.stringify(event) }))
  }
  open(): void {
    this.readyState = 1
    for (const fn of this.#listeners.get('open') ?? []) fn(new Event('open'))
  }
  fail(readyState: number): void {
    this.readyState = readyState
    this.onerror?.(new Event('error'))
  }
}
const ES = FakeSource as unknown as EventSourceLike

afterEach(() => {
  FakeSource.opened = []
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
    return profileAnswer(Object.values(saved), call) ?? { status: 404, body: { error: { code: 'not-found', message: call.path } } }
  })
}

async function loaded(): Promise<ApiClient> {
  const client = createApiClient()
  await client.refresh()
  return client
}

describe('the page\'s live channel', () => {
  it('opens once the state is loaded, resuming from its revision', async () => {
    host({})
    const client = createApiClient()
    const channel = openLive(client, { EventSource: ES })
    await act(settle)
    expect(FakeSource.opened.map((s) => s.url)).toEqual(['/__ap/events?since=7'])
    channel.close()
    expect(FakeSource.opened[0]!.closed).toBe(true)
  })

  it('applies a change by fetching only the heads of the profiles it names (and the meta), never the whole state', async () => {
    const renamed = { ...b, name: '写作教练 改' }
    const created = profile({ id: 'c', name: '新来的' })
    const calls = host({ b: renamed, c: created })
    const client = await loaded()
    calls.length = 0
    const channel = openLive(client, { EventSource: ES })
    const source = FakeSource.opened[0]!
    source.open()
    expect(channel.mode).toBe('live')
    await act(async () => {
      source.emit({ kind: 'change', revision: 9, change: { profiles: ['b', 'c'], memory: ['c'], removed: ['a'], order: ['c', 'b'], activeId: 'c', sessions: [] } })
      await settle()
    })
    expect(calls.map((c) => c.path).sort()).toEqual(['/__ap/meta', '/__ap/profile/b?head', '/__ap/profile/c?head'])
    const snap = client.getSnapshot()
    expect(snap.state?.profiles.map((p) => [p.id, p.name])).toEqual([['c', '新来的'], ['b', '写作教练 改']])
    expect(snap.state?.activeId).toBe('c')
    expect(snap.meta?.revision).toBe(9)
    expect(channel.applied).toBe(1)
    channel.close()
  })

  it('a change of conversation settings brings the new pin counts and fetches no conversation itself', async () => {
    const calls = host({})
    const client = await loaded()
    const channel = openLive(client, { EventSource: ES })
    calls.length = 0
    const before = client.getSnapshot().state
    await act(async () => {
      FakeSource.opened[0]!.emit({ kind: 'change', revision: 8, change: { profiles: [], memory: [], removed: [], sessions: ['s1'], pins: { b: 1 }, conversations: 1 } })
      await settle()
    })
    // A conversation the page shows asks for its own settings when the state changes (useConversation).
    expect(calls.map((c) => c.path)).toEqual(['/__ap/meta'])
    expect(client.getSnapshot().state).not.toBe(before)
    expect(client.getSnapshot().state).toMatchObject({ pins: { b: 1 }, conversations: 1 })
    channel.close()
  })

  it('"reload" loads the state afresh', async () => {
    const calls = host({})
    const client = await loaded()
    const channel = openLive(client, { EventSource: ES })
    calls.length = 0
    await act(async () => {
      FakeSource.opened[0]!.emit({ kind: 'reload', revision: 40 })
      await settle()
    })
    expect(calls.map((c) => c.path)).toEqual(['/__ap/state'])
    channel.close()
  })

  it('without a channel refreshes when the page regains focus, quietly', async () => {
    const calls = host({})
    const client = await loaded()
    const warn = vi.spyOn(console, 'warn')
    const channel = openLive(client, { EventSource: undefined, window })
    expect(channel.mode).toBe('fallback')
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
    const channel = openLive(client, { EventSource: ES, window })
    FakeSource.opened[0]!.fail(0)
    expect(channel.mode).toBe('connecting')
    FakeSource.opened[0]!.fail(2)
    expect(channel.mode).toBe('fallback')
    channel.close()
  })

  it('one channel per page: every entry shares it, and the last to go closes it', async () => {
    host({})
    const client = await loaded()
    configureLive({ EventSource: ES })
    const give = [shareLive(client), shareLive(client), shareLive(client)]
    expect(FakeSource.opened).toHaveLength(1)
    give[0]!()
    give[0]!()
    give[1]!()
    expect(FakeSource.opened[0]!.closed).toBe(false)
    give[2]!()
    expect(FakeSource.opened[0]!.closed).toBe(true)
    expect(liveChannelOf(client)?.mode).toBe('closed')
    shareLive(client)()
    expect(FakeSource.opened).toHaveLength(2)
  })
})
