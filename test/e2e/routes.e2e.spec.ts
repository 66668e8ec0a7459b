/**
 * `/__ap/*` through the real `dsh web` (the pinned host, this plugin installed, offline model): the routes as the
 * browser reaches them, the fence on the host's own web server, a fuzz run and concurrent clients, and the data
 * surviving a restart of the host.
 */
import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { LIMITS, type Profile } from '../../lib/state/model.ts'
import { openStore } from '../../lib/store/open-store.ts'
import { state as validState } from '../../lib/validate/state.ts'
import { asStored, stateOf } from '../../lib/provenance/provenance.ts'
import { makeHome, startWeb, type Home, type Web } from '../support/dsh.ts'
import {
  avatarDataUrl,
  httpClient,
  isErrorShape,
  largeImport,
  randomRequest,
  type HttpClient,
} from '../support/http.ts'
import { fcParams, genRng } from '../support/fuzz.ts'
import { startModelServer, type ModelServer } from '../support/model-server.ts'

let model: ModelServer
let home: Home
let web: Web
let api: HttpClient

const TRUSTED = 'lan.example'

beforeAll(async () => {
  model = await startModelServer()
  home = makeHome(['web'])
  web = await startWeb(home, model, { args: ['--trusted-host', TRUSTED] })
  api = httpClient(web.port)
})

afterAll(async () => {
  await web?.stop()
  await model?.close()
  home?.cleanup()
})

/** A profile of a state (its head) or of an export file (whole). */
function profileIn(state: { profiles: Pick<Profile, 'id' | 'avatar'>[] }, id: string): Pick<Profile, 'id' | 'avatar'> {
  const p = state.profiles.find((x) => x.id === id)
  if (p === undefined) throw new Error(`no profile ${id}`)
  return p
}

describe('happy paths through the host web server', () => {
  it('serves the state with the factory profiles, and HEAD', async () => {
    const r = await api.get('/__ap/state')
    expect(r.status, web.output()).toBe(200)
    expect(r.json.state.profiles.length).toBeGreaterThanOrEqual(3)
    expect(r.json.state.profiles.map((p: Profile) => p.id)).toContain(r.json.state.activeId)
    expect(r.json.meta).toBeTypeOf('object')
    expect((await api.send({ method: 'HEAD', path: '/__ap/state' })).status).toBe(200)
  })

  it('creates and edits a profile, serves its avatar by URL with ETag and 304, previews and exports', async () => {
    const created = await api.command({ op: 'profile.create', profile: { name: '端到端', role: '测试角色' } })
    expect(created.status).toBe(200)
    const id = created.json.profile.id as string
    const dataUrl = avatarDataUrl(5000)
    const updated = await api.command({ op: 'profile.update', id, patch: { avatar: dataUrl, rules: '如实回答' } })
    expect(updated.status).toBe(200)
    const url = profileIn(updated.json.state, id).avatar
    expect(url).toMatch(new RegExp(`^/__ap/avatar/${id}\\?v=.+`))
    const img = await api.get(url)
    expect(img.status).toBe(200)
    expect(img.headers['content-type']).toBe('image/webp')
    expect(img.body.equals(Buffer.from(dataUrl.split(',')[1]!, 'base64'))).toBe(true)
    expect((await api.get(url, { 'if-none-match': img.headers.etag as string })).status).toBe(304)
    const unchanged = await api.command({ op: 'profile.update', id, patch: { avatar: url, name: '端到端二' } })
    expect(profileIn(unchanged.json.state, id).avatar).toBe(url)

    const preview = await api.post('/__ap/preview', { profile: { name: '草稿', role: '预览里的角色' } })
    expect(preview.status).toBe(200)
    expect(preview.json.text).toContain('预览里的角色')
    expect(preview.json.chars).toBe(preview.json.text.length)

    const file = await api.get('/__ap/export')
    expect(file.status).toBe(200)
    expect(file.headers['content-disposition']).toMatch(
      /^attachment; filename="dsh-agent-profiles-\d{4}-\d{2}-\d{2}\.json"$/,
    )
    expect(profileIn(file.json, id).avatar).toBe(dataUrl)

    const turns = await api.get('/__ap/turns/session-none')
    expect(turns.json).toEqual({ turns: {}, memories: {}, models: {} })
  })
})

describe('the fence on the host web server', () => {
  const cmd = (): Record<string, unknown> => ({
    op: 'session.set',
    sessionId: 'session-fence',
    patch: { note: 'fenced' },
  })

  it('refuses each rule with 403 in the error shape and leaves the data alone', async () => {
    const refused: Record<string, string>[] = [
      { host: `evil.example:${web.port}` },
      { host: `${TRUSTED}.evil:${web.port}` },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { referer: 'http://evil.example/x.html' },
    ]
    for (const headers of refused) {
      const r = await api.post('/__ap/command', cmd(), headers)
      expect(r.status, JSON.stringify(headers)).toBe(403)
      expect(isErrorShape(r.json)).toBe(true)
    }
    expect((await api.get('/__ap/state', { host: `rebound.example:${web.port}` })).status).toBe(403)
    expect((await api.get('/__ap/session/session-fence')).json.setting).toBeNull()
  })

  it('passes loopback, the configured trusted host, and same-origin browser markers', async () => {
    const own = web.url
    const passing: Record<string, string>[] = [
      {},
      { host: `localhost:${web.port}`, origin: `http://localhost:${web.port}` },
      { host: `${TRUSTED}:${web.port}` },
      { origin: own, 'sec-fetch-site': 'same-origin', referer: `${own}/` },
    ]
    for (const headers of passing) {
      const r = await api.post('/__ap/command', cmd(), headers)
      expect(r.status, JSON.stringify(headers)).toBe(200)
    }
  })

  it('answers 405 with Allow, 415, 413 and 400 bad-json', async () => {
    const wrong = await api.get('/__ap/command')
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'POST'])
    const text = await api.send({
      method: 'POST',
      path: '/__ap/command',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    const big = await api.send({
      method: 'POST',
      path: '/__ap/preview',
      headers: { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) },
      body: '{',
    })
    expect(big.status).toBe(413)
    const bad = await api.post('/__ap/command', '{"op":')
    expect([bad.status, bad.json.error.code]).toEqual([400, 'bad-json'])
  })
})

describe('a large import through the host web server', () => {
  it('takes an export of 100 profiles with 400,000-character avatars (over 40 MB) in one request; avatars stay out of the state', async () => {
    const { body, profiles } = largeImport(100, LIMITS.avatar)
    expect(body.length).toBeGreaterThan(40_000_000)
    const r = await api.post('/__ap/command', body)
    expect(r.status, r.text.slice(0, 300)).toBe(200)
    expect(r.json.imported).toBe(100)
    expect(r.text).not.toContain('data:image')
    const state = (await api.get('/__ap/state')).json.state
    expect(state.profiles.map((p: Profile) => p.id)).toEqual(profiles.map((p) => p.id))
    const img = await api.get(profileIn(state, 'imp-42').avatar)
    expect(img.body.equals(Buffer.from(profiles[42]!.avatar.split(',')[1]!, 'base64'))).toBe(true)
    expect((await api.command({ op: 'state.restoreDefaults' })).status).toBe(200)
  })
})

describe('robustness', () => {
  it('answers a fuzz run without a 5xx and 200 concurrent commands without losing one; the data survives a restart', async () => {
    // One run of 3000 requests against the one host; fast-check prints its seed on a failure (FC_SEED replays it).
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const rng = genRng(g)
        const agent = new Agent({ keepAlive: true, maxSockets: 4 })
        let ids = ((await api.get('/__ap/state')).json.state.profiles as Profile[]).map((p) => p.id)
        const statuses = new Set<number>()
        for (let i = 0; i < 3000; i++) {
          if (i % 100 === 0) ids = ((await api.get('/__ap/state')).json.state.profiles as Profile[]).map((p) => p.id)
          const req = randomRequest(rng, ids, api.authority)
          const r = await api.send({ ...req, agent })
          const what = `${req.method} ${req.path} ${String(req.body).slice(0, 200)} → ${r.status} ${r.text.slice(0, 200)}`
          expect(r.status, what).toBeLessThan(500)
          statuses.add(r.status)
          if (r.status >= 400 && req.method !== 'HEAD') expect(isErrorShape(r.json), what).toBe(true)
        }
        agent.destroy()
        // The run reached every kind of answer: saved, bad input, fenced off, no route, wrong method, too large, wrong type.
        expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 403, 404, 405, 413, 415]))
      }),
      fcParams(1, { endOnFailure: true }),
    )

    await api.command({ op: 'state.restoreDefaults' })
    const target = (await api.get('/__ap/state')).json.state.activeId as string
    const clients = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 4 }))
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? api.command(
              { op: 'memory.add', target: { profileId: target }, items: [{ text: `并发事实 ${i}` }] },
              clients[i % 8],
            )
          : api.command(
              { op: 'session.set', sessionId: `session-e${i}`, patch: { note: `并发备注 ${i}` } },
              clients[i % 8],
            ),
      ),
    )
    for (const c of clients) c.destroy()
    expect(replies.map((r) => r.status)).toEqual(Array(200).fill(200))
    const before = (await api.get('/__ap/state')).json.state
    const whole = (await api.get(`/__ap/profile/${target}`)).json.profile as Profile
    const texts = whole.memory.items.map((m) => m.text)
    for (let i = 0; i < 200; i += 2) expect(texts).toContain(`并发事实 ${i}`)
    expect(before.conversations).toBe(100)
    for (let i = 1; i < 200; i += 2)
      expect((await api.get(`/__ap/session/session-e${i}`)).json.setting?.note).toBe(`并发备注 ${i}`)

    await web.stop()
    const store = await openStore({ file: home.dataFile })
    try {
      expect(store.lastError).toBeNull()
      expect(() =>
        stateOf(validState(JSON.parse(JSON.stringify(store.state)), 'state'), 'state', asStored(0)),
      ).not.toThrow()
    } finally {
      await store.close()
    }
    web = await startWeb(home, model, { args: ['--trusted-host', TRUSTED] })
    api = httpClient(web.port)
    const after = (await api.get('/__ap/state')).json.state
    expect(after).toEqual(before)
    expect((await api.get(`/__ap/profile/${target}`)).json.profile).toEqual(whole)
  })
})
