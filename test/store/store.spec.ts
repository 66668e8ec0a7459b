import { afterEach, describe, expect, it } from 'vitest'
import { hasContent, LIMITS } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'
import { pngAvatar, webpAvatar } from '../support/store-fixtures.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())

describe('factory defaults', () => {
  it('a fresh store holds three profiles with the general assistant active, and no error', async () => {
    const store = await open()
    expect(store.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', 'writer'])
    expect(store.state.activeId).toBe('general')
    expect(store.lastError).toBeNull()
    expect(store.effective().profile.name).toBe('通用助手')
  })

  it('the default assistant carries the five ground rules', async () => {
    const rules = (await open()).state.profiles[0]!.rules
    expect(rules).toContain('实事求是')
    expect(rules).toContain('简洁直白')
    expect(rules).toContain('不猜想臆想')
    expect(rules).toMatch(/服从现行的 AI 内容规范与平台审核要求/)
    expect(rules).toContain('做没做好都如实说')
    expect(rules.split('\n')).toHaveLength(5)
  })

  it('clearing the four content fields leaves a profile with nothing to inject', async () => {
    const store = await open()
    const { state } = await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { role: '', personality: '', speakingStyle: '', rules: '' },
    })
    expect(hasContent(state.profiles[0]!)).toBe(false)
  })

  it('restoreDefaults brings the three profiles back and clears conversation settings', async () => {
    const store = await open()
    await store.command({ op: 'profile.create', profile: { name: '临时' } })
    await store.command({ op: 'session.set', sessionId: 's1', patch: { note: '只在这里' } })
    await store.command({ op: 'profile.delete', id: 'coder' })
    const { state } = await store.command({ op: 'state.restoreDefaults' })
    expect(state.profiles.map((p) => p.name)).toEqual(['通用助手', '编程搭档', '写作顾问'])
    expect(state.activeId).toBe('general')
    expect([...state.sessions.keys()]).toEqual([])
  })
})

describe('profile.create / update / duplicate / activate / delete', () => {
  it('create makes the new profile active, names it uniquely and returns it', async () => {
    const store = await open()
    const a = await store.command({ op: 'profile.create' })
    const b = await store.command({ op: 'profile.create', profile: { name: '翻译', role: '你是译者' } })
    expect(a.profile).toMatchObject({ name: '新配置', memoryEnabled: true })
    expect(b.state.activeId).toBe((b.profile as { id: string }).id)
    expect(b.profile).toMatchObject({ name: '翻译', role: '你是译者' })
    const c = await store.command({ op: 'profile.create' })
    expect((c.profile as { name: string }).name).toBe('新配置 2')
    expect(store.revision).toBe(3)
  })

  it('update saves the fields, bumps updatedAt and notifies subscribers once', async () => {
    const store = await open()
    const seen: number[] = []
    store.onChange((s) => seen.push(s.profiles[0]!.rules.length))
    const before = store.state.profiles[0]!
    const r = await store.command({
      op: 'profile.update',
      id: 'general',
      patch: { rules: '只说真话', memoryEnabled: false },
    })
    expect(r.state.profiles[0]).toMatchObject({ rules: '只说真话', memoryEnabled: false })
    expect(r.state.profiles[0]!.updatedAt).toBeGreaterThanOrEqual(before.updatedAt)
    expect(seen).toEqual([4])
    expect(Object.isFrozen(r.state.profiles[0])).toBe(true)
  })

  it('an update that changes nothing writes nothing', async () => {
    const store = await open()
    const name = store.state.profiles[0]!.name
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { name } })
    expect(r.notice.key).toBe('profile.unchanged')
    expect(store.revision).toBe(0)
  })

  it('a field an in-process caller passes as undefined is left as it was, as if left out', async () => {
    // Only the host's own parts can send undefined (JSON cannot): it once blanked the field, and the store refused to
    // load that profile back.
    const store = await open()
    const before = store.state.profiles[0]!
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { rules: undefined } })
    expect(r.notice.key).toBe('profile.unchanged')
    expect(store.state.profiles[0]).toBe(before)
    await store.command({ op: 'profile.update', id: 'general', patch: { rules: undefined, role: '新角色' } })
    expect(store.state.profiles[0]).toMatchObject({ rules: before.rules, role: '新角色' })
    await store.command({ op: 'session.set', sessionId: 'session-1', patch: { note: '笔记', profileId: undefined } })
    expect(store.state.sessions.get('session-1')).toMatchObject({ note: '笔记', profileId: null })
  })

  it.each([
    ['name', 'x'.repeat(LIMITS.name + 1), LIMITS.name],
    ['emoji', 'x'.repeat(LIMITS.emoji + 1), LIMITS.emoji],
    ['role', 'x'.repeat(LIMITS.role + 1), LIMITS.role],
    ['personality', 'x'.repeat(LIMITS.personality + 1), LIMITS.personality],
    ['speakingStyle', 'x'.repeat(LIMITS.speakingStyle + 1), LIMITS.speakingStyle],
    ['rules', 'x'.repeat(LIMITS.rules + 1), LIMITS.rules],
  ])('update refuses %s over its limit, naming field and limit', async (field, value, limit) => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { [field]: value } },
      { code: 'invalid', field: `patch.${field}`, limit },
    )
  })

  it('counts the emoji in graphemes, as the editor does: 16 joined emoji fit, a 17th or a long run of units does not', async () => {
    const store = await open()
    const sixteen = '👩‍🏫'.repeat(LIMITS.emoji)
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { emoji: sixteen } })
    expect(r.state.profiles[0]!.emoji).toBe(sixteen)
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { emoji: '👩‍🏫'.repeat(LIMITS.emoji + 1) } },
      { code: 'invalid', field: 'patch.emoji', limit: LIMITS.emoji },
    )
    // One "character" of 200 combining marks is one grapheme but no emoji: refused by the cap in units.
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { emoji: `e${'\u0301'.repeat(200)}` } },
      { code: 'invalid', field: 'patch.emoji', limit: LIMITS.emoji },
    )
  })

  it('a value exactly at the limit is accepted whole, never truncated', async () => {
    const store = await open()
    const rules = '规'.repeat(LIMITS.rules)
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { rules } })
    expect(r.state.profiles[0]!.rules).toBe(rules)
  })

  it('refuses the memory limits: summary length, item count, item length', async () => {
    const store = await open()
    const item = (i: number) => ({ text: `事实 ${i}` })
    await expectRefused(
      store,
      {
        op: 'profile.update',
        id: 'general',
        patch: { memory: { summary: 'x'.repeat(LIMITS.summary + 1), items: [] } },
      },
      { code: 'invalid', field: 'patch.memory.summary', limit: LIMITS.summary },
    )
    await expectRefused(
      store,
      {
        op: 'profile.update',
        id: 'general',
        patch: { memory: { summary: '', items: Array.from({ length: LIMITS.memoryItems + 1 }, (_, i) => item(i)) } },
      },
      { code: 'invalid', field: 'patch.memory.items', limit: LIMITS.memoryItems },
    )
    await expectRefused(
      store,
      {
        op: 'profile.update',
        id: 'general',
        patch: { memory: { summary: '', items: [{ text: 'x'.repeat(LIMITS.memoryItem + 1) }] } },
      },
      { code: 'invalid', field: 'patch.memory.items[0].text', limit: LIMITS.memoryItem },
    )
  })

  it.each([
    [{ name: '' }, 'patch.name'],
    [{ name: '两\n行' }, 'patch.name'],
    [{ role: 'bell\u0007' }, 'patch.role'],
    [{ role: 42 }, 'patch.role'],
    [{ memoryEnabled: 'yes' }, 'patch.memoryEnabled'],
    [{ id: 'other' }, 'patch.id'],
    [{ createdAt: 1 }, 'patch.createdAt'],
    [{ colour: 'red' }, 'patch.colour'],
    [{ memory: { summary: '', items: [{ text: 'a', source: 'magic' }] } }, 'patch.memory.items[0].source'],
  ])('update refuses %j naming %s', async (patch, field) => {
    const store = await open()
    await expectRefused(store, { op: 'profile.update', id: 'general', patch }, { code: 'invalid', field })
  })

  it('avatars: raster data URLs are stored, SVG, wrong bytes and oversize ones are refused, "" removes', async () => {
    const store = await open()
    const webp = webpAvatar(60_000)
    await store.command({ op: 'profile.update', id: 'general', patch: { avatar: webp } })
    expect(store.state.profiles[0]!.avatar).toBe(webp)
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { avatar: svg } },
      { code: 'invalid', field: 'patch.avatar' },
    )
    const fake = `data:image/png;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}`
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { avatar: fake } },
      { code: 'invalid', field: 'patch.avatar' },
    )
    await expectRefused(
      store,
      { op: 'profile.update', id: 'general', patch: { avatar: webpAvatar(LIMITS.avatar + 100) } },
      { code: 'invalid', field: 'patch.avatar', limit: LIMITS.avatar },
    )
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { avatar: '' } })
    expect(r.state.profiles[0]!.avatar).toBe('')
  })

  it('an avatar in non-canonical base64 is stored canonically (same image bytes)', async () => {
    const store = await open()
    const png = pngAvatar(10) // 10 bytes → base64 ends in "=="
    const unpadded = png.replace(/=+$/, '')
    const r = await store.command({ op: 'profile.update', id: 'general', patch: { avatar: unpadded } })
    expect(r.state.profiles[0]!.avatar).toBe(png)
  })

  it('update and friends refuse an unknown profile with not-found', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'profile.update', id: 'nope', patch: { name: 'x' } },
      { code: 'not-found', field: 'id' },
    )
    await expectRefused(store, { op: 'profile.activate', id: 'nope' }, { code: 'not-found', field: 'id' })
    await expectRefused(store, { op: 'profile.duplicate', id: 'nope' }, { code: 'not-found', field: 'id' })
    await expectRefused(store, { op: 'profile.delete', id: 'nope' }, { code: 'not-found', field: 'id' })
    await expectRefused(store, { op: 'profile.delete', id: '../etc' }, { code: 'invalid', field: 'id' })
  })

  it('duplicate copies everything including memories (with new ids) and the avatar, right after the source', async () => {
    const store = await open()
    const avatar = pngAvatar()
    await store.command({
      op: 'profile.update',
      id: 'coder',
      patch: { avatar, memory: { summary: '总结', items: [{ text: '用 Rust' }, { text: '用 Vim' }] } },
    })
    const source = store.state.profiles[1]!
    const r = await store.command({ op: 'profile.duplicate', id: 'coder' })
    const copy = r.profile as typeof source
    expect(r.state.profiles.map((p) => p.id)).toEqual(['general', 'coder', copy.id, 'writer'])
    expect(copy.name).toBe('编程搭档 副本')
    expect(copy).toMatchObject({ avatar, role: source.role, rules: source.rules, memory: { summary: '总结' } })
    expect(copy.memory.items.map((i) => i.text)).toEqual(['用 Rust', '用 Vim'])
    for (const [i, item] of copy.memory.items.entries()) expect(item.id).not.toBe(source.memory.items[i]!.id)
    expect(r.state.activeId).toBe('general')
    expect(store.avatarHash(copy.id)).toBe(store.avatarHash('coder'))
    const again = await store.command({ op: 'profile.duplicate', id: 'coder' })
    expect((again.profile as typeof source).name).toBe('编程搭档 副本 2')
  })

  it('activate switches the global profile; effective() follows it unless a conversation is pinned', async () => {
    const store = await open()
    await store.command({ op: 'session.set', sessionId: 's-pinned', patch: { profileId: 'writer' } })
    await store.command({ op: 'profile.activate', id: 'coder' })
    expect(store.effective().profile.id).toBe('coder')
    expect(store.effective('s-other')).toMatchObject({ pinned: false, profile: { id: 'coder' } })
    expect(store.effective('s-pinned')).toMatchObject({ pinned: true, profile: { id: 'writer' } })
    const same = await store.command({ op: 'profile.activate', id: 'coder' })
    expect(same.state).toBe(store.state)
    expect(store.revision).toBe(2)
  })

  it('delete keeps at least one profile', async () => {
    const store = await open()
    await store.command({ op: 'profile.delete', id: 'coder' })
    await store.command({ op: 'profile.delete', id: 'writer' })
    await expectRefused(store, { op: 'profile.delete', id: 'general' }, { code: 'conflict', field: 'id' })
  })

  it('deleting the active profile activates the first remaining one', async () => {
    const store = await open()
    await store.command({ op: 'profile.activate', id: 'writer' })
    const r = await store.command({ op: 'profile.delete', id: 'writer' })
    expect(r.state.activeId).toBe('general')
    await store.command({ op: 'profile.activate', id: 'coder' })
    const r2 = await store.command({ op: 'profile.delete', id: 'general' })
    expect(r2.state.activeId).toBe('coder')
  })

  it('delete unbinds the conversations pinned to it and the notice says how many', async () => {
    const store = await open()
    await store.command({ op: 'session.set', sessionId: 's1', patch: { profileId: 'coder' } })
    await store.command({ op: 'session.set', sessionId: 's2', patch: { profileId: 'coder', note: '保留这条补充' } })
    await store.command({ op: 'session.set', sessionId: 's3', patch: { profileId: 'coder' } })
    await store.command({ op: 'session.set', sessionId: 's4', patch: { profileId: 'writer' } })
    const r = await store.command({ op: 'profile.delete', id: 'coder' })
    expect(r.notice.params).toMatchObject({ unbound: 3 })
    expect([...r.state.sessions.keys()].sort()).toEqual(['s2', 's4'])
    expect(r.state.sessions.get('s2')).toEqual({ profileId: null, note: '保留这条补充', memories: [] })
    expect(store.effective('s1')).toMatchObject({ pinned: false, profile: { id: 'general' } })
  })

  it('refuses a profile past the count limit', async () => {
    const store = await open()
    const many = Array.from({ length: LIMITS.profiles - 3 }, (_, i) => ({ id: `bulk-${i}`, name: `批量 ${i}` }))
    await store.command({
      op: 'state.import',
      mode: 'merge',
      payload: { format: 'dsh-agent-profiles', version: 1, profiles: many },
    })
    expect(store.state.profiles).toHaveLength(LIMITS.profiles)
    await expectRefused(store, { op: 'profile.create' }, { code: 'invalid', field: 'profiles', limit: LIMITS.profiles })
    await expectRefused(
      store,
      { op: 'profile.duplicate', id: 'general' },
      { code: 'invalid', field: 'profiles', limit: LIMITS.profiles },
    )
  })
})
