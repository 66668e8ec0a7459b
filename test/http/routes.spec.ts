import { spawn } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DatabaseSync } from 'node:sqlite'
import { Agent, createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { LIMITS, type Profile } from '../../lib/state/model.ts'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import type { RouteDeps } from '../../lib/http/route-kit.ts'
import { BODY_DEPTH_LIMIT, COMMAND_BODY_LIMIT, COMMAND_SHAPE, PREVIEW_BODY_LIMIT } from '../../lib/http/caps.ts'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { state as validState } from '../../lib/validate/state.ts'
import { asStored, stateOf } from '../../lib/commands/provenance.ts'
import { HOST_ONLY_OPS, type ArgsOf, type BrowserOp, type ReplyOf } from '../../lib/shared/commands.ts'
import {
  avatarDataUrl,
  httpClient,
  isErrorShape,
  largeImport,
  pngDataUrl,
  randomRequest,
  routeMeta,
  type HttpClient,
} from '../support/http.ts'
import { fcParams, genRng } from '../support/fuzz.ts'
import type { CommandReply } from '../../lib/shared/contract.ts'
import { WIRE } from '../../lib/shared/wire-table.ts'

const ROUTES_CHILD = fileURLToPath(new URL('../support/routes-child.ts', import.meta.url))

let dir: string
let store: ProfileStore
let server: Server
let api: HttpClient
let logs: { warn: string[]; error: string[] }
let previewImpl: RouteDeps['preview']
let metaImpl: RouteDeps['meta']

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-routes-'))
  store = await openStore({ file: join(dir, 'profiles.json') })
  logs = { warn: [], error: [] }
  previewImpl = (p, s) => renderProfile(p, s)
  metaImpl = () => routeMeta(store)
  const deps: RouteDeps = {
    store,
    preview: (p, s) => previewImpl(p, s),
    meta: () => metaImpl(),
    trustedHosts: () => ['lan.example'],
    log: { warn: (m) => logs.warn.push(m), error: (m) => logs.error.push(m) },
  }
  server = createServer(createHandler(deps))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api = httpClient((server.address() as AddressInfo).port)
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The state is valid by the store's own rules, and what is on disk is exactly what is in memory. */
async function expectSoundState(): Promise<void> {
  expect(() =>
    stateOf(validState(JSON.parse(JSON.stringify(store.state)), 'state'), 'state', asStored(0)),
  ).not.toThrow()
  const again = await openStore({ file: store.file })
  try {
    expect(again.lastError).toBeNull()
    expect(again.state).toEqual(store.state)
  } finally {
    await again.close()
  }
}

function profileById(id: string): Profile {
  const p = store.state.profiles.find((x) => x.id === id)
  if (p === undefined) throw new Error(`no profile ${id}`)
  return p
}

describe('GET /__ap/state', () => {
  it('answers the whole state and the meta, and HEAD answers the same headers without a body', async () => {
    const r = await api.get('/__ap/state')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(r.headers['cache-control']).toBe('no-store')
    expect(r.json.state.activeId).toBe(store.state.activeId)
    expect(r.json.state.profiles.map((p: Profile) => p.id)).toEqual(store.state.profiles.map((p) => p.id))
    expect(r.json.meta).toEqual({ ...routeMeta(store), lastError: null })
    const head = await api.send({ method: 'HEAD', path: '/__ap/state' })
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
    expect(head.headers['content-length']).toBe(r.headers['content-length'])
  })

  it('still answers when the diagnostics provider throws, with an empty meta and a warning', async () => {
    metaImpl = () => {
      throw new Error('diagnostics broke')
    }
    const r = await api.get('/__ap/state')
    expect(r.status).toBe(200)
    expect(r.json.meta).toEqual({})
    expect(logs.warn.join('\n')).toContain('diagnostics broke')
  })
})

describe('POST /__ap/command', () => {
  it('applies a command and answers the new state, meta, notice and extra fields', async () => {
    const r = await api.command({ op: 'profile.create', profile: { name: '翻译官', role: '把中文译成英文' } })
    expect(r.status).toBe(200)
    // The new profile comes back as its head, like the profiles of the state.
    expect(r.json.profile).toMatchObject({ name: '翻译官', updatedAt: expect.any(Number) })
    expect(r.json.profile).not.toHaveProperty('role')
    expect(r.json.state.profiles.find((p: { id: string }) => p.id === r.json.profile.id)).toEqual(r.json.profile)
    expect(r.json.state.activeId).toBe(r.json.profile.id)
    expect(r.json.notice).toMatchObject({ key: expect.any(String) })
    expect(r.json.notice).not.toHaveProperty('text')
    expect(r.json.meta.counts.profiles).toBe(4)
    expect(profileById(r.json.profile.id)).toMatchObject({ name: '翻译官', role: '把中文译成英文' })
  })

  it('refuses bad input with the field and the limit, and changes nothing', async () => {
    const before = store.state
    const id = store.state.activeId
    const r = await api.command({ op: 'profile.update', id, patch: { rules: 'x'.repeat(LIMITS.rules + 1) } })
    expect(r.status).toBe(400)
    expect(r.json).toEqual({
      error: {
        code: 'invalid',
        message: expect.stringContaining(String(LIMITS.rules)),
        field: 'patch.rules',
        limit: LIMITS.rules,
      },
    })
    expect(store.state).toBe(before)
  })

  it('maps not-found to 404 and conflict to 409', async () => {
    const missing = await api.command({ op: 'profile.activate', id: 'no-such-profile' })
    expect(missing.status).toBe(404)
    expect(missing.json.error).toMatchObject({ code: 'not-found', field: 'id' })
    const ids = store.state.profiles.map((p) => p.id)
    for (const id of ids.slice(1)) expect((await api.command({ op: 'profile.delete', id })).status).toBe(200)
    const last = await api.command({ op: 'profile.delete', id: ids[0] })
    expect(last.status).toBe(409)
    expect(isErrorShape(last.json)).toBe(true)
    expect(last.json.error.code).toBe('conflict')
  })

  it('refuses a body that is not an object, a missing op, an unknown op and the host-only turn ledger', async () => {
    for (const [body, field] of [
      ['[1]', 'body'],
      ['"x"', 'body'],
      ['{}', 'op'],
      ['{"op":7}', 'op'],
      ['{"op":"nope"}', 'op'],
      ['{"op":"turn.record","sessionId":"s-1","turn":1,"profileId":"general"}', 'op'],
    ] as const) {
      const r = await api.post('/__ap/command', body)
      expect(r.status, body).toBe(400)
      expect(r.json.error, body).toMatchObject({ code: 'invalid', field })
    }
    expect(store.turnsOf('s-1')).toEqual({})
  })
})

describe('avatars travel as cacheable URLs', () => {
  async function setAvatar(id: string, dataUrl: string) {
    const r = await api.command({ op: 'profile.update', id, patch: { avatar: dataUrl } })
    expect(r.status).toBe(200)
    return r.json.state.profiles.find((p: Profile) => p.id === id).avatar as string
  }

  it('serves the bytes under a hashed URL with an ETag, a long cache, and 304 on revalidation', async () => {
    const id = store.state.activeId
    const dataUrl = avatarDataUrl(6000)
    const url = await setAvatar(id, dataUrl)
    expect(url).toBe(`/__ap/avatar/${id}?v=${store.avatarHash(id)}`)
    const state = await api.get('/__ap/state')
    expect(state.text).not.toContain('data:image')
    const img = await api.get(url)
    expect(img.status).toBe(200)
    expect(img.headers['content-type']).toBe('image/webp')
    expect(img.headers['x-content-type-options']).toBe('nosniff')
    expect(img.body.equals(Buffer.from(dataUrl.split(',')[1]!, 'base64'))).toBe(true)
    expect(img.headers['cache-control']).toBe('private, max-age=31536000, immutable')
    const etag = img.headers.etag as string
    expect(etag).toBe(`"${store.avatarHash(id)}"`)
    const again = await api.get(url, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    const stale = await api.get(`/__ap/avatar/${id}?v=old`)
    expect(stale.status).toBe(200)
    expect(stale.headers['cache-control']).toBe('no-cache')
  })

  it('gives a new URL and new bytes when the avatar changes, and 404 once it is removed', async () => {
    const id = store.state.activeId
    const first = await setAvatar(id, avatarDataUrl(3000))
    const png = pngDataUrl('second image')
    const second = await setAvatar(id, png)
    expect(second).not.toBe(first)
    const img = await api.get(second)
    expect(img.headers['content-type']).toBe('image/png')
    expect(img.body.subarray(8).toString()).toBe('second image')
    expect(
      (await api.get(first, { 'if-none-match': `"${new URL(first, 'http://x').searchParams.get('v')}"` })).status,
    ).toBe(200)
    expect(await setAvatar(id, '')).toBe('')
    const gone = await api.get(second)
    expect(gone.status).toBe(404)
    expect(gone.json.error).toMatchObject({ code: 'not-found', field: 'id' })
  })

  it('reads a patch whose avatar is the current URL as "unchanged", even when the URL is stale', async () => {
    const id = store.state.activeId
    const url = await setAvatar(id, avatarDataUrl(3000))
    const bytes = profileById(id).avatar
    const r = await api.command({ op: 'profile.update', id, patch: { avatar: url, role: '新的角色' } })
    expect(r.status).toBe(200)
    expect(profileById(id)).toMatchObject({ avatar: bytes, role: '新的角色' })
    const newer = avatarDataUrl(3000)
    await setAvatar(id, newer)
    expect((await api.command({ op: 'profile.update', id, patch: { avatar: url, name: '改名' } })).status).toBe(200)
    expect(profileById(id)).toMatchObject({ avatar: newer, name: '改名' })
  })

  it("copies another profile's current avatar onto a new profile, refuses a stale one, and answers the new profile with a URL", async () => {
    const source = store.state.activeId
    const url = await setAvatar(source, avatarDataUrl(3000))
    const r = await api.command({ op: 'profile.create', profile: { name: '副本', avatar: url } })
    expect(r.status).toBe(200)
    expect(r.json.profile.avatar).toMatch(/^\/__ap\/avatar\//)
    expect(profileById(r.json.profile.id).avatar).toBe(profileById(source).avatar)
    const stale = await api.command({
      op: 'profile.create',
      profile: { name: '另一个', avatar: `/__ap/avatar/${source}?v=old` },
    })
    expect(stale.status).toBe(400)
    expect(stale.json.error).toMatchObject({ code: 'invalid', field: 'profile.avatar' })
  })

  it('refuses an SVG avatar', async () => {
    const r = await api.command({
      op: 'profile.update',
      id: store.state.activeId,
      patch: { avatar: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=' },
    })
    expect(r.status).toBe(400)
    expect(r.json.error.field).toBe('patch.avatar')
  })
})

describe('POST /__ap/preview', () => {
  it('renders an unsaved draft exactly as the renderer does, without saving it', async () => {
    const revision = store.revision
    const draft = {
      id: 'whatever',
      name: '草稿',
      avatar: '/__ap/avatar/x?v=1',
      role: '一位耐心的数学老师',
      rules: '只讲思路',
      memory: { summary: '用户在备考', items: [{ text: '喜欢例题' }] },
    }
    const setting = { profileId: 'ignored', note: '本对话用英文回答' }
    const r = await api.post('/__ap/preview', { profile: draft, setting })
    expect(r.status).toBe(200)
    const expected = renderProfile(
      {
        name: '草稿',
        role: draft.role,
        rules: draft.rules,
        memory: { summary: '用户在备考', items: [{ id: 'draft-0', text: '喜欢例题', source: 'user', at: 0 }] },
      },
      { note: setting.note, memories: [] },
    )
    expect(r.json).toEqual({ text: expected.text, chars: expected.chars, tokens: expected.tokens })
    expect(r.json.text).toContain('一位耐心的数学老师')
    expect(r.json.text).toContain('本对话用英文回答')
    expect(store.revision).toBe(revision)
  })

  it('refuses an over-limit draft field with its path and limit, as a save would', async () => {
    const r = await api.post('/__ap/preview', { profile: { role: 'x'.repeat(LIMITS.role + 1) } })
    expect(r.status).toBe(400)
    expect(r.json.error).toMatchObject({ code: 'invalid', field: 'profile.role', limit: LIMITS.role })
    const bad = await api.post('/__ap/preview', { profile: { role: 1 } })
    expect(bad.json.error).toMatchObject({ code: 'invalid', field: 'profile.role' })
  })

  it('answers an unexpected fault with a 500 that carries no stack, and logs the stack', async () => {
    previewImpl = () => {
      throw new Error('renderer exploded')
    }
    const r = await api.post('/__ap/preview', { profile: { role: 'x' } })
    expect(r.status).toBe(500)
    expect(isErrorShape(r.json)).toBe(true)
    expect(r.json.error.code).toBe('internal')
    expect(r.text).not.toContain('renderer exploded')
    expect(r.text).not.toMatch(/\bat .*\.ts:\d+/)
    expect(logs.error.join('\n')).toMatch(/renderer exploded[\s\S]*routes\.ts/)
  })
})

describe('GET /__ap/export', () => {
  it('downloads the envelope under a dated file name, avatars included, conversations not', async () => {
    const id = store.state.activeId
    const dataUrl = avatarDataUrl(2000)
    await api.command({ op: 'profile.update', id, patch: { avatar: dataUrl } })
    await api.command({ op: 'session.set', sessionId: 'session-x', patch: { note: '只在这里' } })
    const r = await api.get('/__ap/export')
    expect(r.status).toBe(200)
    const d = new Date()
    const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
    expect(r.headers['content-disposition']).toBe(`attachment; filename="dsh-agent-profiles-${day}.json"`)
    expect(r.json).toMatchObject({ format: 'dsh-agent-profiles', version: 1, activeId: id })
    expect(r.json.profiles.find((p: Profile) => p.id === id).avatar).toBe(dataUrl)
    expect(r.text).not.toContain('只在这里')
  })

  it('exports a chosen subset, and 404s an unknown id', async () => {
    const id = store.state.profiles[1]!.id
    const r = await api.get(`/__ap/export?id=${id}`)
    expect(r.json.profiles.map((p: Profile) => p.id)).toEqual([id])
    const missing = await api.get('/__ap/export?id=nope')
    expect(missing.status).toBe(404)
    expect(isErrorShape(missing.json)).toBe(true)
  })

  it('round-trips: the downloaded file imported in replace mode gives the same profiles back', async () => {
    await api.command({
      op: 'profile.update',
      id: store.state.activeId,
      patch: { avatar: avatarDataUrl(2000), rules: '导出再导入' },
    })
    const file = (await api.get('/__ap/export')).json
    await api.command({ op: 'state.restoreDefaults' })
    const r = await api.command({ op: 'state.import', payload: file, mode: 'replace' })
    expect(r.status).toBe(200)
    expect(store.state.profiles.map(({ id, name, avatar, rules }) => ({ id, name, avatar, rules }))).toEqual(
      file.profiles.map(({ id, name, avatar, rules }: Profile) => ({ id, name, avatar, rules })),
    )
  })
})

describe('the user layer over HTTP', () => {
  it('GET /__ap/user answers its items and budget share; the state carries only the count', async () => {
    await api.command({
      op: 'memory.add',
      target: { user: true },
      items: [{ text: '用户叫小王' }, { text: '用户住在上海' }],
    })
    const r = await api.get('/__ap/user')
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({
      items: [{ text: '用户叫小王' }, { text: '用户住在上海' }],
      share: 1000,
      budget: 3000,
    })
    const state = await api.get('/__ap/state')
    expect(state.json.state.userItems).toBe(2)
    expect(state.text).not.toContain('用户叫小王')
    expect((await api.get('/__ap/user', { host: 'rebound.example' })).status).toBe(403)
    expect((await api.post('/__ap/user', {})).status).toBe(405)
  })

  it('exports it only when asked, and importing restores it; merging a second time adds nothing', async () => {
    await api.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户叫小王' }] })
    expect((await api.get('/__ap/export')).json.user).toBeUndefined()
    const file = (await api.get('/__ap/export?user=1')).json
    expect(file.user).toMatchObject({ items: [{ text: '用户叫小王', source: 'user' }] })
    await api.command({ op: 'memory.clear', target: { user: true } })
    await api.command({ op: 'state.import', payload: file, mode: 'merge' })
    expect(store.state.user?.items.map((it) => it.text)).toEqual(['用户叫小王'])
    await api.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户养猫' }] })
    await api.command({ op: 'state.import', payload: file, mode: 'merge' })
    expect(store.state.user?.items.map((it) => it.text)).toEqual(['用户叫小王', '用户养猫'])
    await api.command({ op: 'state.import', payload: file, mode: 'replace' })
    expect(store.state.user?.items.map((it) => it.text)).toEqual(['用户叫小王'])
    const bare = (await api.get('/__ap/export')).json
    await api.command({ op: 'state.import', payload: bare, mode: 'replace' })
    expect(store.state.user?.items.map((it) => it.text)).toEqual(['用户叫小王'])
  })
})

describe('whether a memory list has a history', () => {
  it('a profile, a conversation and the user layer say they have one only once a write is recorded', async () => {
    const id = store.state.profiles[0]!.id
    const reads = async () => [
      (await api.get(`/__ap/profile/${id}`)).json.history,
      (await api.get('/__ap/session/s-hist')).json.history,
      (await api.get('/__ap/user')).json.history,
    ]
    expect(await reads()).toEqual([undefined, undefined, undefined])
    for (const target of [{ profileId: id }, { sessionId: 's-hist' }, { user: true }])
      await api.command({ op: 'memory.add', target, items: [{ text: '用户叫小王' }] })
    expect(await reads()).toEqual([true, true, true])
    // The state's heads do not carry it: every head field is paid once per profile in every reply.
    expect((await api.get('/__ap/state')).json.state.profiles[0].history).toBeUndefined()
  })
})

describe('GET /__ap/turns/<sessionId>', () => {
  it('answers which profile answered each turn, and refuses a malformed session id', async () => {
    await store.command({
      op: 'turn.record',
      sessionId: 'session-abc',
      turn: 1,
      profileId: store.state.activeId,
    } as never)
    await store.command({
      op: 'turn.record',
      sessionId: 'session-abc',
      turn: 2,
      profileId: store.state.activeId,
    } as never)
    const r = await api.get('/__ap/turns/session-abc')
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ turns: { 1: store.state.activeId, 2: store.state.activeId }, memories: {} })
    expect((await api.get('/__ap/turns/session-none')).json).toEqual({ turns: {}, memories: {} })
    for (const bad of ['__proto__', '%20space', 'x'.repeat(300), '%E0%A4%A']) {
      const e = await api.get(`/__ap/turns/${bad}`)
      expect(e.status, bad).toBe(400)
      expect(isErrorShape(e.json), bad).toBe(true)
    }
  })
})

describe('GET /__ap/turns/<sessionId>?turn=N', () => {
  it("answers the ledger with a count per turn, and one turn's memory items only when asked for that turn", async () => {
    const used = [
      { id: 'm-1', text: '用户叫小林', layer: 'profile' },
      { id: 'm-2', text: '本对话在准备面试', layer: 'conversation' },
    ]
    await store.command({
      op: 'turn.record',
      sessionId: 'session-mem',
      turn: 1,
      profileId: store.state.activeId,
      memories: used,
    } as never)
    await store.command({
      op: 'turn.record',
      sessionId: 'session-mem',
      turn: 2,
      profileId: store.state.activeId,
    } as never)
    const ledger = await api.get('/__ap/turns/session-mem')
    expect(ledger.json).toEqual({ turns: { 1: store.state.activeId, 2: store.state.activeId }, memories: { 1: 2 } })
    expect(JSON.stringify(ledger.json)).not.toContain('用户叫小林')
    expect((await api.get('/__ap/turns/session-mem?turn=1')).json).toEqual({ turn: 1, memories: used })
    expect((await api.get('/__ap/turns/session-mem?turn=2')).json).toEqual({ turn: 2, memories: null })
    for (const bad of ['-1', 'x', '1.5', '']) {
      const e = await api.get(`/__ap/turns/session-mem?turn=${bad}`)
      expect(e.status, bad).toBe(400)
      expect((e.json as { error: { field: string } }).error.field, bad).toBe('turn')
    }
  })
})

describe('large imports fit under the body limit', () => {
  it('imports 100 profiles with 400,000-character avatars, and the state stays small', async () => {
    const { body, profiles } = largeImport(100, LIMITS.avatar)
    expect(profiles[0]!.avatar.length).toBeGreaterThan(LIMITS.avatar - 4)
    expect(body.length).toBeGreaterThan(40_000_000)
    expect(body.length).toBeLessThan(COMMAND_BODY_LIMIT)
    const r = await api.post('/__ap/command', body)
    expect(r.status).toBe(200)
    expect(r.json.imported).toBe(100)
    expect(r.text).not.toContain('data:image')
    expect(r.json.state.profiles.every((p: Profile) => p.avatar.startsWith('/__ap/avatar/imp-'))).toBe(true)
    const img = await api.get(r.json.state.profiles[57].avatar)
    expect(img.body.equals(Buffer.from(profiles[57]!.avatar.split(',')[1]!, 'base64'))).toBe(true)
  })
})

describe('the fence on the real handler', () => {
  it('refuses each rule with 403 and changes nothing, and passes the same request when it is ours', async () => {
    const cmd = { op: 'profile.update', id: store.state.activeId, patch: { role: '被篡改' } }
    const own = `http://${api.authority}`
    const refused: Record<string, string>[] = [
      { host: 'evil.example:1234' },
      { host: 'lan.example.evil:80' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { referer: 'http://evil.example/attack.html' },
    ]
    for (const headers of refused) {
      const r = await api.post('/__ap/command', cmd, headers)
      expect(r.status, JSON.stringify(headers)).toBe(403)
      expect(r.json.error.code).toBe('forbidden')
    }
    expect(profileById(store.state.activeId).role).not.toBe('被篡改')
    const passing: Record<string, string>[] = [
      {},
      { host: 'lan.example:9999' },
      { 'sec-fetch-site': 'same-origin', origin: own },
      { referer: `${own}/settings` },
    ]
    for (const headers of passing) {
      const r = await api.post('/__ap/command', cmd, headers)
      expect(r.status, JSON.stringify(headers)).toBe(200)
    }
    expect(profileById(store.state.activeId).role).toBe('被篡改')
  })

  it('fences GETs too: a rebound page cannot read the state or an avatar', async () => {
    expect((await api.get('/__ap/state', { host: 'rebound.example:3092' })).status).toBe(403)
    expect((await api.get('/__ap/export', { host: 'rebound.example' })).status).toBe(403)
    expect((await api.get('/__ap/state', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
  })

  it('answers 404 for unknown paths, 405 with Allow for wrong methods, 415 for non-JSON posts', async () => {
    for (const path of ['/__ap', '/__ap/', '/__ap/nope', '/__ap/state/', '/__ap/avatar/', '/__ap/turns/a/b']) {
      const r = await api.get(path)
      expect(r.status, path).toBe(404)
      expect(isErrorShape(r.json), path).toBe(true)
    }
    const get = await api.get('/__ap/command')
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('POST')
    const del = await api.send({ method: 'DELETE', path: '/__ap/state' })
    expect(del.status).toBe(405)
    expect(del.headers.allow).toBe('GET, HEAD')
    const text = await api.send({
      method: 'POST',
      path: '/__ap/command',
      body: '{"op":"sessions.clearAll"}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    expect(text.json.error.field).toBe('content-type')
  })

  it('answers 413 for a declared body over the limit and for a streamed preview over its limit; 400 for malformed JSON', async () => {
    const declared = await api.send({
      method: 'POST',
      path: '/__ap/command',
      headers: { 'content-type': 'application/json', 'content-length': String(COMMAND_BODY_LIMIT + 1) },
      body: '{',
    })
    expect(declared.status).toBe(413)
    expect(declared.json.error).toMatchObject({ code: 'too-large', limit: COMMAND_BODY_LIMIT })
    const big = JSON.stringify({ profile: { role: 'x'.repeat(PREVIEW_BODY_LIMIT) } })
    const streamed = await api.send({
      method: 'POST',
      path: '/__ap/preview',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    })
    expect(streamed.status).toBe(413)
    expect(streamed.json.error.limit).toBe(PREVIEW_BODY_LIMIT)
    const bad = await api.post('/__ap/command', '{"op": "profile.create",')
    expect(bad.status).toBe(400)
    expect(bad.json.error.code).toBe('bad-json')
  })
})

describe('body structure caps', () => {
  it('refuses a body of 1.5 million {} by its count of values, as it arrives, and the state answers meanwhile', async () => {
    // 4.5 MB, under the byte cap: parsed and walked, it held the event loop 13 s.
    const body = `{"op":"profiles.importFiles","files":[${'{},'.repeat(1_500_000)}{}]}`
    const before = store.revision
    const [refused, probe] = await Promise.all([api.post('/__ap/command', body), api.send({ path: '/__ap/state' })])
    expect(refused.status).toBe(413)
    expect(refused.json.error).toMatchObject({ code: 'too-large', field: 'body.values', limit: COMMAND_SHAPE.values })
    expect(refused.json.error.message).toContain(String(COMMAND_SHAPE.values))
    expect(probe.status).toBe(200)
    expect(probe.json.state.profiles.length).toBe(store.state.profiles.length)
    expect(store.revision).toBe(before)
  })

  it('refuses a body nested deeper than the limit on every route with a body, naming the limit', async () => {
    const deep = (n: number) => `{"op":"sessions.clearAll","x":${'['.repeat(n)}${']'.repeat(n)}}`
    for (const path of ['/__ap/command', '/__ap/preview']) {
      const r = await api.post(path, deep(BODY_DEPTH_LIMIT + 5))
      expect(r.status).toBe(413)
      expect(r.json.error).toMatchObject({ code: 'too-large', field: 'body.depth', limit: BODY_DEPTH_LIMIT })
    }
    const restore = await api.post(WIRE['backups.restore'].path, `{"name":${'['.repeat(10)}${']'.repeat(10)}}`)
    expect(restore.status).toBe(413)
    expect(restore.json.error.field).toBe('body.depth')
    // Brackets inside strings are text, not nesting; a body within the limit is read as before.
    const text = await api.post('/__ap/command', JSON.stringify({ op: 'sessions.clearAll', x: '['.repeat(500) }))
    expect(text.status).not.toBe(413)
  })

  it('refuses a deep body sent in chunks, with the rest of it unread', async () => {
    const body = `{"op":"sessions.clearAll","x":${'[{"a":'.repeat(20_000)}1${'}]'.repeat(20_000)}}`
    const r = await api.send({
      method: 'POST',
      path: '/__ap/command',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body,
    })
    expect(r.status).toBe(413)
    expect(r.json.error.limit).toBe(BODY_DEPTH_LIMIT)
  })
})

describe('fuzz', () => {
  it('answers thousands of random and malformed requests without a 5xx, always in the error shape, and keeps a valid state', async () => {
    // One run of 3000 requests against one server; fast-check prints its seed on a failure (FC_SEED replays it).
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const rng = genRng(g)
        const agent = new Agent({ keepAlive: true, maxSockets: 8 })
        const statuses = new Map<number, number>()
        let ids = store.state.profiles.map((p) => p.id)
        let sent = 0
        const worker = async (): Promise<void> => {
          while (sent < 3000) {
            sent++
            if (sent % 100 === 0) ids = store.state.profiles.map((p) => p.id)
            const req = randomRequest(rng, ids, api.authority)
            const r = await api.send({ ...req, agent })
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
            const what = `${req.method} ${req.path} ${JSON.stringify(req.headers)} ${String(req.body).slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`
            expect(r.status, what).toBeLessThan(500)
            if (req.method === 'HEAD') expect(r.body.length, what).toBe(0)
            else if (r.status >= 400) expect(isErrorShape(r.json), what).toBe(true)
            else if (String(r.headers['content-type']).startsWith('application/json'))
              expect(r.json, what).toBeTypeOf('object')
          }
        }
        await Promise.all(Array.from({ length: 8 }, worker))
        agent.destroy()
        expect(statuses.get(200) ?? 0).toBeGreaterThan(400)
        expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThan(4)
        expect(logs.error).toEqual([])
        expect((await api.get('/__ap/state')).status).toBe(200)
        await expectSoundState()
      }),
      fcParams(1, { endOnFailure: true }),
    )
  })
})

describe('concurrency', () => {
  it('loses none of 200 concurrent commands from 8 clients', async () => {
    const target = store.state.activeId
    const clients = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 4 }))
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const agent = clients[i % clients.length]!
        return i % 2 === 0
          ? api.command({ op: 'memory.add', target: { profileId: target }, items: [{ text: `事实 ${i}` }] }, agent)
          : api.command({ op: 'session.set', sessionId: `session-c${i}`, patch: { note: `备注 ${i}` } }, agent)
      }),
    )
    for (const c of clients) c.destroy()
    expect(replies.map((r) => r.status)).toEqual(Array(200).fill(200))
    const texts = profileById(target).memory.items.map((m) => m.text)
    for (let i = 0; i < 200; i += 2) expect(texts).toContain(`事实 ${i}`)
    for (let i = 1; i < 200; i += 2) expect(store.state.sessions.get(`session-c${i}`)?.note).toBe(`备注 ${i}`)
    await expectSoundState()
  })
})

describe('GET /__ap/session/<sessionId>', () => {
  it("answers one conversation's own settings and the profile it uses; commands on a conversation answer with it", async () => {
    const none = await api.get('/__ap/session/session-new')
    expect(none.status).toBe(200)
    expect(none.json).toEqual({
      sessionId: 'session-new',
      setting: null,
      profileId: store.state.activeId,
      pinned: false,
    })
    const set = await api.post('/__ap/command', {
      op: 'session.set',
      sessionId: 'session-a',
      patch: { profileId: 'coder', note: '只谈代码' },
    })
    expect(set.json.session).toEqual({
      sessionId: 'session-a',
      setting: { profileId: 'coder', note: '只谈代码', memories: [] },
      profileId: 'coder',
      pinned: true,
    })
    expect(set.json.state).not.toHaveProperty('sessions')
    expect(set.json.state.pins).toEqual({ coder: 1 })
    const added = await api.post('/__ap/command', {
      op: 'memory.add',
      target: { sessionId: 'session-a' },
      items: [{ text: '本对话的事实' }],
    })
    expect(added.json.session.setting.memories.map((m: { text: string }) => m.text)).toEqual(['本对话的事实'])
    expect((await api.get('/__ap/session/session-a')).json).toEqual(added.json.session)
    await api.post('/__ap/command', { op: 'profile.delete', id: 'coder' })
    expect((await api.get('/__ap/session/session-a')).json).toMatchObject({
      setting: { profileId: null },
      pinned: false,
    })
    for (const bad of ['__proto__', '%20space', 'x'.repeat(300)]) {
      const e = await api.get(`/__ap/session/${bad}`)
      expect(e.status, bad).toBe(400)
      expect(isErrorShape(e.json), bad).toBe(true)
    }
  })
})

describe('replies stay small whatever the number of conversations', () => {
  it('with 100,000 conversation settings, the state, every command and a conversation answer under 64 KB', async () => {
    const big = mkdtempSync(join(tmpdir(), 'ap-routes-big-'))
    try {
      const sessions = Object.fromEntries(
        Array.from({ length: LIMITS.sessions }, (_, i) => [
          `s${i}`,
          { profileId: i % 2 ? 'coder' : null, note: `第 ${i} 个对话`, memories: [] },
        ]),
      )
      writeFileSync(
        join(big, 'profiles.json'),
        JSON.stringify({
          version: 1,
          activeId: 'general',
          profiles: stateOf(
            validState({ version: 1, activeId: 'general', profiles: store.state.profiles }, 's'),
            's',
            asStored(0),
          ).profiles,
          sessions,
        }),
      )
      const many = await openStore({ file: join(big, 'profiles.json') })
      expect(many.state.sessions.size).toBe(LIMITS.sessions)
      const srv = createServer(
        createHandler({
          store: many,
          preview: renderProfile,
          meta: () => ({
            dataFile: '',
            counts: { profiles: 0, sessions: 0, memories: 0 },
            lastError: null,
            compressThreshold: 0,
            memoryBudget: 0,
          }),
          trustedHosts: () => [],
          log: { warn() {}, error() {} },
        }),
      )
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
      const client = httpClient((srv.address() as AddressInfo).port)
      try {
        const replies = [
          await client.get('/__ap/state'),
          await client.post('/__ap/command', { op: 'session.set', sessionId: 's7', patch: { note: '改过' } }),
          await client.post('/__ap/command', { op: 'profile.update', id: 'general', patch: { rules: '新的准则' } }),
          await client.post('/__ap/command', {
            op: 'memory.add',
            target: { sessionId: 's8' },
            items: [{ text: '事实' }],
          }),
          await client.get('/__ap/session/s9'),
        ]
        for (const r of replies) {
          expect(r.status).toBe(200)
          expect(Buffer.byteLength(r.text)).toBeLessThan(64 * 1024)
        }
        expect(replies[0]!.json.state.pins).toEqual({ coder: LIMITS.sessions / 2 })
        expect(replies[0]!.json.state.conversations).toBe(LIMITS.sessions)
        expect(replies[4]!.json).toMatchObject({ setting: { note: '第 9 个对话', profileId: 'coder' }, pinned: true })
        const refused = await client.post('/__ap/command', {
          op: 'session.set',
          sessionId: 'one-more',
          patch: { note: 'x' },
        })
        expect(refused.status).toBe(400)
        expect(refused.json.error).toMatchObject({ field: 'sessions', limit: LIMITS.sessions })
      } finally {
        srv.closeAllConnections()
        await new Promise<void>((resolve) => srv.close(() => resolve()))
        await many.close()
      }
    } finally {
      rmSync(big, { recursive: true, force: true })
    }
  })
})

describe('backups: GET /__ap/backups and POST /__ap/backups/restore', () => {
  it("lists the day's backup with what it holds, restores it answering the state, and refuses a name that is none", async () => {
    expect((await api.get('/__ap/backups')).json).toEqual({ backups: [] })
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '备份里的' } })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const list = (await api.get('/__ap/backups')).json.backups as { name: string; profiles: { name: string }[] }[]
    expect(list).toHaveLength(1)
    expect(list[0]!.profiles.map((p) => p.name)).toEqual(['通用助手', '编程搭档', '写作顾问'])
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '之后改的' } })

    const refused = await api.post('/__ap/backups/restore', { name: '../profiles' })
    expect(refused.status).toBe(404)
    expect(refused.json).toEqual({
      error: { code: 'not-found', message: expect.stringContaining('no backup'), field: 'name' },
    })
    expect((await api.post('/__ap/backups/restore', { name: 7 })).json.error).toMatchObject({
      code: 'invalid',
      field: 'name',
    })
    expect(profileById('general').rules).toBe('之后改的')

    const r = await api.post('/__ap/backups/restore', { name: list[0]!.name })
    expect(r.status).toBe(200)
    expect(r.json.state.profiles).toHaveLength(3)
    expect(r.json.meta).toBeDefined()
    expect(profileById('general').rules).toBe('备份里的')
    await expectSoundState()
  })
})

describe('a restore never costs a backup', () => {
  it('with seven daily backups the oldest is restored and all seven stay; one holding no profile is refused 409 by rule, changing none', async () => {
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '那一周的' } })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const root = join(dir, 'profiles.backups')
    const [today] = readdirSync(root)
    // Six earlier days, as a week of use leaves them.
    for (let day = 1; day <= 6; day++) cpSync(join(root, today!), join(root, `2020-01-0${day}`), { recursive: true })
    const empty = new DatabaseSync(join(root, '2020-01-02', 'profiles.sqlite'))
    empty.exec('DELETE FROM profiles')
    empty.close()
    const names = async () =>
      ((await api.get('/__ap/backups')).json.backups as { name: string; kind: string }[]).map(
        (b) => `${b.kind} ${b.name}`,
      )
    const week = await names()
    expect(week).toHaveLength(7)
    await api.command({ op: 'profile.update', id: 'general', patch: { rules: '后来改的' } })

    const refused = await api.post('/__ap/backups/restore', { name: '2020-01-02' })
    expect(refused.status).toBe(409)
    expect(refused.json).toEqual({
      error: { code: 'conflict', message: expect.stringContaining('no profile'), field: 'name', rule: 'backup.empty' },
    })
    expect(await names()).toEqual(week)
    expect(readdirSync(root)).toHaveLength(7)
    expect(profileById('general').rules).toBe('后来改的')

    const r = await api.post('/__ap/backups/restore', { name: '2020-01-01' })
    expect(r.status).toBe(200)
    expect(profileById('general').rules).toBe('那一周的')
    const after = await names()
    expect(after.filter((n) => n.startsWith('daily'))).toEqual(week)
    expect(after.filter((n) => n.startsWith('before-restore'))).toHaveLength(1)
  })
})

describe('a read-only data directory (the routes as an unprivileged user)', () => {
  it("answers a write 503 `unwritable`, not the request's fault, without the directory's path; nothing changes", async () => {
    const seed = await openStore({ file: join(dir, 'ro', 'profiles.sqlite') })
    await seed.command({ op: 'profile.update', id: 'general', patch: { rules: '原样' } })
    await seed.close()
    const data = join(dir, 'ro')
    // Readable by the user who now runs the routes; writable by nobody but root.
    for (const f of readdirSync(data, { recursive: true }) as string[]) chmodSync(join(data, f), 0o644)
    chmodSync(dir, 0o755)
    chmodSync(data, 0o555)
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    const child = spawn(
      process.execPath,
      ['--experimental-strip-types', '--no-warnings', ROUTES_CHILD, join(data, 'profiles.sqlite')],
      { ...asNobody, stdio: ['pipe', 'pipe', 'inherit'] },
    )
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          const m = /port (\d+)/.exec(out)
          if (m) resolve(Number(m[1]))
        })
        child.on('exit', (code) => reject(new Error(`the routes child exited (${code})`)))
      })
      const nobody = httpClient(port)
      const before = (await nobody.get('/__ap/state')).json.state.profiles
      const r = await nobody.command({ op: 'profile.update', id: 'general', patch: { rules: '不该存进去' } })
      expect(r.status).toBe(503)
      expect(r.json.error).toMatchObject({ code: 'unwritable', message: expect.stringContaining('the data directory') })
      expect(r.text).not.toContain(data)
      expect(r.text).not.toContain(dir)
      expect((await nobody.get('/__ap/state')).json.state.profiles).toEqual(before)
    } finally {
      child.stdin.end()
      chmodSync(data, 0o755)
    }
  })
})

/** Every key any member of a union has (`keyof` of a union names only the keys all members share). */
type KeysOf<T> = T extends unknown ? keyof T : never

/** The fields op `O`'s reply type names besides state, meta and notice, each said to come always or only sometimes;
 * the compiler holds the list to exactly those keys. */
type Fields<O extends BrowserOp> = { [K in Exclude<KeysOf<ReplyOf<O>>, keyof CommandReply>]: 'always' | 'sometimes' }

/** Each op once, so a browser op this spec does not send fails the typecheck. */
const SENT: { [O in BrowserOp]: true } = {
  'profile.create': true,
  'profile.update': true,
  'profile.duplicate': true,
  'profile.delete': true,
  'profile.activate': true,
  'memory.add': true,
  'memory.update': true,
  'memory.remove': true,
  'memory.clear': true,
  'memory.undo': true,
  'memory.history': true,
  'memory.approve': true,
  'memory.paste': true,
  'memory.unlearn': true,
  'memory.revert': true,
  'session.set': true,
  'user.set': true,
  'session.clear': true,
  'session.refreshMemory': true,
  'sessions.clearAll': true,
  'state.import': true,
  'profiles.importFiles': true,
  'state.restoreDefaults': true,
}

describe('the reply of every op the browser sends', () => {
  it('carries exactly the fields its reply type names (lib/shared/commands.ts), over the real routes', async () => {
    const sent = new Set<string>()
    const send = async <O extends BrowserOp>(
      op: O,
      args: ArgsOf<O>,
      fields: Fields<O>,
    ): Promise<Record<string, unknown>> => {
      const r = await api.command({ ...args, op })
      expect(r.status, `${op}: ${r.text.slice(0, 200)}`).toBe(200)
      const reply = r.json as Record<string, unknown>
      const named: Record<string, string> = { state: 'always', meta: 'always', notice: 'always', ...fields }
      expect(
        Object.keys(reply).filter((k) => named[k] === undefined),
        op,
      ).toEqual([])
      expect(
        Object.keys(named).filter((k) => named[k] === 'always' && !(k in reply)),
        op,
      ).toEqual([])
      sent.add(op)
      return reply
    }
    const list = { session: 'sometimes' } as const
    const general = { profileId: 'general' }
    const item = (pick: (text: string) => boolean) =>
      store.state.profiles.find((p) => p.id === 'general')!.memory.items.find((it) => pick(it.text))!.id

    const created = await send('profile.create', { profile: { name: '甲' } }, { profile: 'always' })
    await send('profile.update', { id: 'general', patch: { memoryMode: 'ask' } }, { saved: 'always' })
    await send('profile.duplicate', { id: 'coder' }, { profile: 'always' })
    await send('profile.activate', { id: 'general' }, {})
    const fourLists = {
      ...list,
      added: 'always',
      duplicates: 'always',
      replaced: 'always',
      unresolved: 'always',
    } as const
    await send(
      'memory.add',
      { target: general, items: [{ text: '用户住在杭州', source: 'tool', sessionId: 'session-1' }] },
      fourLists,
    )
    await send(
      'memory.approve',
      { target: general, itemId: item((t) => t === '用户住在杭州') },
      { ...list, replaced: 'always' },
    )
    const own = await send(
      'memory.add',
      { target: { sessionId: 'session-1' }, items: [{ text: '只谈第三章' }] },
      fourLists,
    )
    expect(own.session).toMatchObject({ sessionId: 'session-1' })
    const ownId = (own.added as { id: string }[])[0]!.id
    await send('memory.update', { target: { sessionId: 'session-1' }, itemId: ownId, text: '只谈第四章' }, list)
    await send('memory.remove', { target: { sessionId: 'session-1' }, itemId: ownId }, list)
    const history = await send('memory.history', { target: general }, { ...list, entries: 'always' })
    await send(
      'memory.revert',
      { target: general, entryId: (history.entries as { id: string }[])[0]!.id },
      { ...list, reverted: 'always' },
    )
    // Compression is the host's (no page sends it); undoing it is the page's.
    await store.command({ op: 'memory.compress', profileId: 'general', memory: { summary: '压缩后', items: [] } })
    await send('memory.undo', general, {})
    await send('session.set', { sessionId: 'session-1', patch: { note: '笔记' } }, { session: 'always' })
    await send('session.refreshMemory', { sessionId: 'session-1' }, { session: 'always' })
    await send('session.clear', { sessionId: 'session-1' }, { session: 'always' })
    await send('user.set', { items: [{ text: '用户叫小王' }] }, {})
    const pasted = await send(
      'memory.paste',
      { target: { user: true }, text: '• 用户叫小王\n• 用户住在青岛', origin: '粘贴，ChatGPT' },
      fourLists,
    )
    expect(pasted).toMatchObject({
      added: [{ text: '用户住在青岛', origin: '粘贴，ChatGPT' }],
      duplicates: ['用户叫小王'],
    })
    await store.command({
      op: 'memory.learn',
      target: { user: true },
      importId: 'run1',
      items: [{ text: '用户养了一只猫', origin: 'ChatGPT, 2025-03-14' }],
    })
    await send('memory.unlearn', { target: { user: true }, importId: 'run1' }, { ...list, removed: 'always' })
    await send('memory.clear', { target: { user: true } }, list)
    const importFields = {
      imported: 'always',
      userAdded: 'sometimes',
      renamed: 'sometimes',
      unchanged: 'sometimes',
      replaced: 'sometimes',
      conflicts: 'sometimes',
      unbound: 'sometimes',
      names: 'sometimes',
    } as const
    await send('state.import', { payload: store.exportEnvelope(), mode: 'merge' }, importFields)
    await send('state.import', { payload: store.exportEnvelope(), mode: 'replace' }, importFields)
    await send(
      'profiles.importFiles',
      { files: [{ name: 'b.md', format: 'markdown', text: '# 乙\n## Role\nB\n' }] },
      { imported: 'always', files: 'always', userAdded: 'always' },
    )
    await send(
      'profile.delete',
      { id: (created.profile as { id: string }).id },
      { unbound: 'always', uncast: 'always' },
    )
    await send('sessions.clearAll', {}, { cleared: 'always' })
    await send('state.restoreDefaults', {}, {})
    expect([...sent].sort()).toEqual(Object.keys(SENT).sort())
  })
})

describe('ops only the host sends', () => {
  it('are refused over HTTP, naming the op, and change nothing', async () => {
    const before = { state: store.state, revision: store.revision }
    const bodies = {
      'turn.record': { sessionId: 'session-1', turn: 1, profileId: 'general' },
      'sessions.forget': { sessionIds: ['session-1'] },
      'memory.compress': { profileId: 'general', memory: { summary: '被网页压缩', items: [] } },
      'sync.apply': { profiles: [{ id: 'general', delete: true }] },
      'library.apply': { library: { id: 'lib1', name: '网页' }, profiles: [], remove: true },
      'memory.learn': { target: { user: true }, importId: 'run1', items: [{ text: '网页写的' }] },
    } satisfies Record<(typeof HOST_ONLY_OPS)[number], object>
    for (const op of HOST_ONLY_OPS) {
      const r = await api.command({ op, ...bodies[op] })
      expect(r.status, op).toBe(400)
      expect(r.json.error, op).toEqual({
        code: 'invalid',
        message: `op: ${op} is written by the host, not over HTTP`,
        field: 'op',
      })
    }
    expect(store.state).toBe(before.state)
    expect(store.revision).toBe(before.revision)
    expect(store.turnsOf('session-1')).toEqual({})
  })
})
