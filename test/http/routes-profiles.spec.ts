/**
 * The routes that read profiles and conversations (lib/http/routes-profiles.ts) on the real handler and a real store:
 * avatars as cacheable URLs, the exports, the user layer, whether a memory list has a history, the turn ledger and
 * one conversation.
 */
import { describe, expect, it } from 'vitest'
import { type Profile } from '../../lib/state/model.ts'
import { avatarDataUrl, isErrorShape, pngDataUrl } from '../support/http.ts'
import { api, store, profileById, serveRoutesEachTest } from '../support/routes-rig.ts'

serveRoutesEachTest()

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

  it('a command that changes it answers with it, as GET /__ap/user does; one that leaves it alone, without', async () => {
    const added = await api.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户叫小王' }] })
    expect(added.json.user).toMatchObject({ items: [{ text: '用户叫小王' }], share: 1000, budget: 3000, history: true })
    expect(added.json.user).toEqual((await api.get('/__ap/user')).json)
    const id = added.json.user.items[0].id as string
    const removed = await api.command({ op: 'memory.remove', target: { user: true }, itemId: id })
    expect(removed.json.user).toMatchObject({ items: [], history: true })
    const other = await api.command({ op: 'profile.update', id: store.state.activeId, patch: { rules: '实事求是' } })
    expect(other.status).toBe(200)
    expect(other.json.user).toBeUndefined()
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
