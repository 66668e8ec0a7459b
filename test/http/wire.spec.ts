import { afterEach, expect, it } from 'vitest'
import { LIMITS, type State } from '../../lib/state/model.ts'
import { profileHead } from '../../lib/http/profile-head.ts'
import { avatarUrl, wireStateBytes } from '../../lib/http/wire.ts'
import { pngDataUrl } from '../support/http.ts'
import { freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>> | undefined
afterEach(async () => ctx?.dispose())

it('the wire state says which profiles have a compression to undo and when it ran, never the memory it would restore', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const facts = Array.from({ length: 40 }, (_, i) => ({ text: `用户提过的第 ${i} 件事：${'细节'.repeat(20)}` }))
  const empty = wireStateBytes(store).length
  await store.command({ op: 'memory.add', target: { profileId: 'general' }, items: facts })
  const grown = JSON.parse(wireStateBytes(store).toString()) as { profiles: Record<string, unknown>[] }
  expect(grown.profiles[0]).toMatchObject({ id: 'general', updatedAt: store.state.profiles[0]!.updatedAt })
  expect(grown.profiles[0]).not.toHaveProperty('memory')
  await store.command({
    op: 'memory.compress',
    profileId: 'general',
    memory: { summary: '用户提过四十件事。', items: [{ text: '细节很多' }] },
  })
  const compressed = JSON.parse(wireStateBytes(store).toString()) as Record<string, unknown>
  expect(compressed).not.toHaveProperty('memoryUndo')
  expect(compressed.undo).toEqual({ general: store.state.memoryUndo!.general!.at })
  // Neither the items nor the copy kept for the undo travel: the reply is the size it was with no memory at all,
  // give or take the undo time.
  expect(Math.abs(wireStateBytes(store).length - empty)).toBeLessThan(40)
  await store.command({ op: 'memory.undo', profileId: 'general' })
  expect((JSON.parse(wireStateBytes(store).toString()) as Record<string, unknown>).undo).toEqual({})
})

it('the wire state is always the saved state (avatars as URLs), though unchanged profiles are reused from the previous reply, and carries pin counts instead of conversation settings', async () => {
  ctx = await freshStore()
  const { store } = ctx
  // The wire form written out directly from the saved state, with nothing cached.
  const expected = (state: State) => {
    const { memoryUndo: _undo, history: _history, sessions, user, ...rest } = state
    const pins: Record<string, number> = {}
    for (const s of sessions.values()) if (s.profileId !== null) pins[s.profileId] = (pins[s.profileId] ?? 0) + 1
    return {
      ...rest,
      profiles: state.profiles.map((p) => profileHead(p, avatarUrl(store, p.id))),
      undo: Object.fromEntries(Object.entries(state.memoryUndo ?? {}).map(([id, e]) => [id, e.at])),
      // No conversation settings: how many conversations pin each profile, and how many have settings at all.
      pins,
      conversations: sessions.size,
      // Only the user layer's count: its items come from their own route.
      userItems: user?.items.length ?? 0,
    }
  }
  const wire = () => JSON.parse(wireStateBytes(store).toString()) as unknown
  expect(wire()).toEqual(expected(store.state))
  const { profile } = (await store.command({
    op: 'profile.create',
    profile: { name: '画师', avatar: pngDataUrl('first') },
  })) as unknown as { profile: { id: string } }
  const edits = [
    { op: 'profile.update', id: 'general', patch: { role: '改过的角色' } },
    { op: 'session.set', sessionId: 's-1', patch: { note: '这次只聊诗' } },
    { op: 'profile.update', id: profile.id, patch: { avatar: pngDataUrl('second') } },
    { op: 'session.set', sessionId: 's-2', patch: { profileId: profile.id } },
    { op: 'user.set', items: [{ text: '用户叫小王，住在上海' }] },
    { op: 'session.set', sessionId: 's-3', patch: { profileId: profile.id, note: '也钉住' } },
    { op: 'profile.activate', id: 'general' },
    { op: 'session.clear', sessionId: 's-1' },
    { op: 'profile.delete', id: profile.id },
  ] as const
  for (const cmd of edits) {
    await store.command(cmd as never)
    expect(wire(), cmd.op).toEqual(expected(store.state))
  }
  expect(wire()).toMatchObject({ userItems: 1 })
  expect(wireStateBytes(store).toString()).not.toContain('用户叫小王')
})

it('carries each profile as its head: what lists and switchers show and how many suggestions wait, never its texts or memory', async () => {
  ctx = await freshStore()
  const { store } = ctx
  const long = (n: number) => '长'.repeat(n)
  await store.command({
    op: 'profile.update',
    id: 'general',
    patch: {
      name: '名'.repeat(LIMITS.name),
      role: long(LIMITS.role),
      personality: long(LIMITS.personality),
      speakingStyle: long(LIMITS.speakingStyle),
      rules: long(LIMITS.rules),
      memoryMode: 'ask',
      tools: { profile: 'read-only', add: [], remove: [] },
      avatar: pngDataUrl('face'),
      memory: {
        summary: long(LIMITS.summary),
        items: Array.from({ length: 30 }, (_, i) => ({ text: `${i}${long(900)}` })),
      },
    },
  })
  await store.command({
    op: 'memory.add',
    target: { profileId: 'general' },
    items: [{ text: '待确认的事', source: 'tool' }],
  })
  const [head] = (JSON.parse(wireStateBytes(store).toString()) as { profiles: Record<string, unknown>[] }).profiles
  const saved = store.state.profiles[0]!
  expect(head).toEqual({
    id: 'general',
    name: saved.name,
    emoji: saved.emoji,
    avatar: avatarUrl(store, 'general'),
    updatedAt: saved.updatedAt,
    pending: 1,
  })
  expect(Buffer.byteLength(JSON.stringify(head))).toBeLessThan(300)
})
