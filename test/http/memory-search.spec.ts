import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHandler } from '../../lib/http/routes.ts'
import type { MemorySearchReply, ProfileReply } from '../../lib/shared/wire-replies.ts'
import type { MemoryItem } from '../../lib/state/model.ts'
import { freshStore } from '../support/store-helpers.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'

let t: Awaited<ReturnType<typeof freshStore>>
let server: Server
let api: HttpClient
let profileId: string

beforeEach(async () => {
  t = await freshStore()
  server = createServer(
    createHandler({
      store: t.store,
      preview: () => ({ text: '', chars: 0, tokens: 0 }),
      meta: () => routeMeta(t.store),
      trustedHosts: () => [],
      log: { warn: () => {}, error: () => {} },
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api = httpClient((server.address() as AddressInfo).port)
  profileId = t.store.state.activeId
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await t.dispose()
})

/** Give the active profile `n` items (item i says "fact i", every 7th about Hangzhou), the last `archived` archived. */
async function fill(n: number, archived = 0): Promise<void> {
  const p = t.store.state.profiles.find((x) => x.id === profileId)!
  const items: MemoryItem[] = Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    text: i % 7 === 0 ? `第${i}条：我住在杭州西湖边` : `fact number ${i} about topic ${i % 13}`,
    source: i % 2 === 0 ? 'user' : 'auto',
    at: 1_700_000_000_000 + i * 60_000,
    ...(i >= n - archived ? { archived: true as const } : {}),
  }))
  await t.store.command({ op: 'profile.update', id: p.id, patch: { memory: { summary: '', items } } })
}

describe('GET /__ap/memory/search', () => {
  it('bounds a query of many words: letters alone and words another holds ask nothing more; past the limit, refused by rule', async () => {
    await fill(700)
    const search = async (q: string) =>
      api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&q=${encodeURIComponent(q)}&limit=200`)
    const ids = async (q: string) => ((await search(q)).json as MemorySearchReply).items.map((it) => it.id)
    const hangzhou = await ids('杭州')
    expect(hangzhou).toHaveLength(100)
    // 99 one-letter words beside a real one: the letters narrow nothing (and no longer cost a pass each).
    expect(await ids(`${'a '.repeat(60)}${'x '.repeat(39)}杭州`)).toEqual(hangzhou)
    // A word another word of the query holds is looked for once, inside the longer one.
    expect(await ids('西湖边 西湖 湖 杭州 州')).toEqual(await ids('西湖边 杭州'))
    // Letters alone are still a search of their own.
    expect((await ids('7')).length).toBeGreaterThan(0)
    // The probe's query: 100 one-character words (36 different ones).
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
    const many = await search(Array.from({ length: 100 }, (_, i) => alphabet[i % alphabet.length]).join(' '))
    expect(many.status).toBe(400)
    expect(many.json).toEqual({
      error: {
        code: 'invalid',
        message: expect.stringContaining('over the limit of 8'),
        field: 'q',
        limit: 8,
        rule: 'search.words',
      },
    })
    const nine = await search('一 二 三 四 五 六 七 八 九')
    expect(nine.status).toBe(400)
    expect((await search('一 二 三 四 五 六 七 八')).status).toBe(200)
  })

  it('pages 10,000 items newest first with the total, within 200 per reply', async () => {
    await fill(10_000)
    const r = await api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&offset=100&limit=200`)
    expect(r.status).toBe(200)
    const body = r.json as MemorySearchReply
    expect(body.total).toBe(10_000)
    expect(body.items).toHaveLength(200)
    expect(body.items[0]!.id).toBe('m9899')
    expect(r.body.length).toBeLessThan(64 * 1024)
    const over = await api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&limit=201`)
    expect(over.status).toBe(400)
    expect((over.json as { error: { field: string } }).error.field).toBe('limit')
  })

  it('finds Chinese substrings through the index, short queries too, and filters source and archived', async () => {
    await fill(700, 100)
    const long = (
      await api.get(
        `/__ap/memory/search?layer=profile&owner=${profileId}&q=${encodeURIComponent('住在杭州')}&limit=200`,
      )
    ).json as MemorySearchReply
    expect(long.total).toBe(100)
    expect(long.items.every((it) => it.text.includes('住在杭州'))).toBe(true)
    const short = (
      await api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&q=${encodeURIComponent('杭州')}&archived=1`)
    ).json as MemorySearchReply
    expect(short.total).toBe(14)
    expect(short.items.every((it) => it.archived === true && it.text.includes('杭州'))).toBe(true)
    // Two characters are found by a scan and listed newest first.
    expect(short.items.map((it) => it.at)).toEqual([...short.items.map((it) => it.at)].sort((a, b) => b - a))
    // Every word must occur (case-insensitively): "NUMBER" through the index, "12" by the short-query path.
    const words = (
      await api.get(
        `/__ap/memory/search?layer=profile&owner=${profileId}&q=${encodeURIComponent('NUMBER 12')}&source=user&limit=200`,
      )
    ).json as MemorySearchReply
    const expected = Array.from({ length: 700 }, (_, i) => i)
      .filter((i) => i % 7 !== 0 && i % 2 === 0 && `fact number ${i} about topic ${i % 13}`.includes('12'))
      .map((i) => `m${i}`)
    expect(words.items.map((it) => it.id).sort()).toEqual(expected.sort())
    expect(words.total).toBe(expected.length)
  })

  it('names the bad field and refuses another origin', async () => {
    expect(((await api.get('/__ap/memory/search?layer=nope')).json as { error: { field: string } }).error.field).toBe(
      'layer',
    )
    expect((await api.get('/__ap/memory/search?layer=profile&owner=ghost')).status).toBe(404)
    expect(
      (
        (await api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&archived=2`)).json as {
          error: { field: string }
        }
      ).error.field,
    ).toBe('archived')
    expect((await api.get(`/__ap/memory/search?layer=user`, { origin: 'https://evil.example' })).status).toBe(403)
    const empty = (await api.get('/__ap/memory/search?layer=conversation&owner=sess-none')).json as MemorySearchReply
    expect(empty).toMatchObject({ items: [], total: 0 })
  })

  it('the whole-profile reply carries only the core, with the counts', async () => {
    await fill(300, 250)
    const r = (await api.get(`/__ap/profile/${profileId}`)).json as Extract<ProfileReply, { profile: unknown }>
    expect(r.profile.memory.items).toHaveLength(50)
    expect(r.memoryCounts).toEqual({ items: 300, archived: 250, pending: 0 })
  })

  it("a save that asks for it answers with its list's first rows, as the search route: one request for the page", async () => {
    type Saved = Extract<ProfileReply, { profile: unknown }>
    const save = async (query: string) => {
      const patch = { rules: `规则 ${query}` }
      const r = await api.post(`/__ap/command${query}`, { op: 'profile.update', id: profileId, patch })
      return { status: r.status, saved: (r.json as { saved: Saved }).saved }
    }
    // Without an archive the core is the whole list: nothing more, asked or not.
    await fill(30)
    expect((await save('?window=100')).saved).not.toHaveProperty('window')
    await fill(300, 250)
    // Unasked (a client other than the page): the reply is as it was.
    expect((await save('')).saved).not.toHaveProperty('window')
    const asked = await save('?window=100')
    const route = await api.get(`/__ap/memory/search?layer=profile&owner=${profileId}&offset=0&limit=100`)
    expect(asked.saved.window).toEqual(route.json)
    expect(asked.saved.window).toMatchObject({ total: 300, offset: 0, limit: 100 })
    expect(asked.saved.window!.items[0]!.archived).toBe(true)
    const over = await save('?window=201')
    expect(over.status).toBe(400)
    expect(over.saved).toBeUndefined()
  })
})
