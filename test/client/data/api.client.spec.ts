import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApiClient } from '../../../lib/client/data/api.ts'
import { ApiError } from '../../../lib/client/data/call.ts'
import { meta, profile, state, stubFetch } from '../../support/dom.tsx'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('api client', () => {
  it('loads the state and tells every subscriber, with a loading step in between', async () => {
    const s = state([profile({ id: 'a', name: 'A' })])
    const calls = stubFetch(() => ({ body: { state: s, meta: meta() } }))
    const client = createApiClient()
    const seen: string[] = []
    client.subscribe(() => {
      seen.push(client.getSnapshot().status)
    })
    expect(client.getSnapshot().status).toBe('idle')
    const snap = await client.refresh()
    expect(seen).toEqual(['loading', 'ready'])
    expect(snap.state?.profiles[0]?.name).toBe('A')
    expect(snap.meta?.compressThreshold).toBe(5000)
    expect(calls).toEqual([{ method: 'GET', path: '/__ap/state', body: undefined }])
  })

  it('shares one request between callers that load at the same time', async () => {
    const calls = stubFetch(() => ({ body: { state: state(), meta: meta() } }))
    const client = createApiClient()
    await Promise.all([client.refresh(), client.refresh(), client.refresh()])
    expect(calls).toHaveLength(1)
  })

  it('sends a command as same-origin JSON and adopts the new state it answers', async () => {
    const next = state([profile({ id: 'a' }), profile({ id: 'b', name: 'B' })])
    stubFetch(({ method }) =>
      method === 'GET'
        ? { body: { state: state(), meta: meta() } }
        : { body: { state: next, meta: meta(), notice: { key: 'x', text: '已新建' }, profile: next.profiles[1] } },
    )
    const client = createApiClient()
    await client.refresh()
    const reply = await client.command('profile.create', { profile: { name: 'B' } })
    expect(reply.profile).toEqual(next.profiles[1])
    expect(client.getSnapshot().state?.profiles.map((p) => p.name)).toEqual(['通用助手', 'B'])
    const fetchMock = vi.mocked(fetch)
    const [url, init] = fetchMock.mock.calls[1]!
    expect(url).toBe('/__ap/command')
    expect(init?.method).toBe('POST')
    expect(init?.credentials).toBe('same-origin')
    expect((init?.headers as Record<string, string> | undefined)?.['content-type']).toBe('application/json')
    expect(JSON.parse(String(init?.body))).toEqual({ op: 'profile.create', profile: { name: 'B' } })
  })

  it('turns a refusal into an ApiError naming the field and the limit, and keeps the state as it was', async () => {
    const before = state([profile({ id: 'a', name: 'A' })])
    stubFetch(({ method }) =>
      method === 'GET'
        ? { body: { state: before, meta: meta() } }
        : {
            status: 400,
            body: {
              error: { code: 'invalid', message: 'patch.name: has 41 characters', field: 'patch.name', limit: 40 },
            },
          },
    )
    const client = createApiClient()
    await client.refresh()
    const snapBefore = client.getSnapshot()
    const error = await client
      .command('profile.update', { id: 'a', patch: { name: 'x'.repeat(41) } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      code: 'invalid',
      status: 400,
      field: 'patch.name',
      limit: 40,
      message: 'patch.name: has 41 characters',
    })
    expect(client.getSnapshot()).toBe(snapBefore)
    expect(snapBefore.state).toEqual(before)
  })

  it('reports a failed first load in the snapshot instead of throwing', async () => {
    stubFetch(() => ({ status: 500, body: { error: { code: 'io', message: 'disk unreadable' } } }))
    const client = createApiClient()
    const snap = await client.refresh()
    expect(snap.status).toBe('error')
    expect(snap.error?.message).toBe('disk unreadable')
    expect(snap.state).toBeNull()
  })

  it('keeps showing loaded data when a later reload fails, with the error alongside', async () => {
    let fail = false
    stubFetch(() => (fail ? { status: 503, body: 'down' } : { body: { state: state(), meta: meta() } }))
    const client = createApiClient()
    await client.refresh()
    fail = true
    const snap = await client.refresh()
    expect(snap.status).toBe('ready')
    expect(snap.state).not.toBeNull()
    expect(snap.error?.message).toContain('HTTP 503')
  })

  it('reports a network failure as such', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch')
      }),
    )
    const snap = await createApiClient().refresh()
    expect(snap.error).toMatchObject({ code: 'network', message: 'Failed to fetch' })
  })

  it("posts a draft to the preview route and reads a conversation's turns", async () => {
    const calls = stubFetch(({ path }) =>
      path.startsWith('/__ap/turns/')
        ? { body: { turns: { 1: 'a', 2: 'b' } } }
        : { body: { text: '【身份】…', chars: 5, tokens: 3 } },
    )
    const client = createApiClient()
    expect(await client.preview({ name: 'A' })).toEqual({ text: '【身份】…', chars: 5, tokens: 3 })
    expect(calls[0]).toEqual({ method: 'POST', path: '/__ap/preview', body: { profile: { name: 'A' } } })
    expect(await client.turns('session-1/x')).toEqual({ turns: { 1: 'a', 2: 'b' }, memories: {}, models: {} })
    expect(calls[1]!.path).toBe('/__ap/turns/session-1%2Fx')
    expect(client.urlOf('export')).toBe('/__ap/export')
    expect(client.urlOf('export.profile', { param: 'a/b', query: { format: 'card-png' } })).toBe(
      '/__ap/export/a%2Fb?format=card-png',
    )
  })
})
