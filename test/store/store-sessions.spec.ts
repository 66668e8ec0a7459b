/**
 * Conversation settings (pin, note, memories; cleared one by one or all; the count limit) and commands in general
 * (unknown ops refused, close finishing what is queued, the data file's place).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS } from '../../lib/state/model.ts'
import { factoryState } from '../../lib/state/defaults.ts'
import { defaultDataFile } from '../../lib/store/store.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
const open = async () => (ctx = await freshStore()).store
afterEach(async () => ctx?.dispose())

describe('conversation settings', () => {
  it('session.set pins, notes and remembers; an empty setting is deleted', async () => {
    const store = await open()
    await store.command({
      op: 'session.set',
      sessionId: 'session-1',
      patch: { profileId: 'writer', note: '用英文回答' },
    })
    await store.command({ op: 'session.set', sessionId: 'session-1', patch: { memories: [{ text: '读者是学生' }] } })
    const s = store.state.sessions.get('session-1')!
    expect(s).toMatchObject({ profileId: 'writer', note: '用英文回答' })
    expect(s.memories[0]).toMatchObject({ text: '读者是学生', source: 'user', sessionId: 'session-1' })
    expect(store.effective('session-1').setting).toBe(s)
    const r = await store.command({
      op: 'session.set',
      sessionId: 'session-1',
      patch: { profileId: null, note: '', memories: [] },
    })
    expect(r.state.sessions.has('session-1')).toBe(false)
    expect(r.notice.key).toBe('session.cleared')
  })

  it('a setting that would be empty from the start is not created', async () => {
    const store = await open()
    const r = await store.command({ op: 'session.set', sessionId: 's1', patch: { profileId: null, note: '' } })
    expect([...r.state.sessions.keys()]).toEqual([])
    expect(store.revision).toBe(0)
  })

  it('session.set refuses bad input naming the field', async () => {
    const store = await open()
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's1', patch: { profileId: 'ghost' } },
      { code: 'not-found', field: 'patch.profileId' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's1', patch: { note: 'x'.repeat(LIMITS.note + 1) } },
      { code: 'invalid', field: 'patch.note', limit: LIMITS.note },
    )
    await expectRefused(
      store,
      {
        op: 'session.set',
        sessionId: 's1',
        patch: { memories: Array.from({ length: LIMITS.sessionMemories + 1 }, (_, i) => ({ text: `m${i}` })) },
      },
      { code: 'invalid', field: 'patch.memories', limit: LIMITS.sessionMemories },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's1', patch: { pinned: true } },
      { code: 'invalid', field: 'patch.pinned' },
    )
    for (const bad of ['__proto__', 'constructor', '', 'a b', 42]) {
      await expectRefused(
        store,
        { op: 'session.set', sessionId: bad, patch: { note: 'x' } },
        { code: 'invalid', field: 'sessionId' },
      )
    }
  })

  it('session.clear and sessions.clearAll remove settings and leave profiles alone', async () => {
    const store = await open()
    for (const id of ['a', 'b', 'c']) await store.command({ op: 'session.set', sessionId: id, patch: { note: id } })
    await store.command({ op: 'session.clear', sessionId: 'a' })
    expect([...store.state.sessions.keys()].sort()).toEqual(['b', 'c'])
    const profiles = store.state.profiles
    const r = await store.command({ op: 'sessions.clearAll' })
    expect(r.notice.params).toEqual({ count: 2 })
    expect([...r.state.sessions.keys()]).toEqual([])
    expect(r.state.profiles).toBe(profiles)
  })

  it('refuses a new conversation setting past the limit, still allows editing existing ones', async () => {
    const { profiles } = factoryState(1)
    const sessions = Object.fromEntries(
      Array.from({ length: LIMITS.sessions }, (_, i) => [`s${i}`, { profileId: null, note: 'n', memories: [] }]),
    )
    ctx = await freshStore(JSON.stringify({ version: 1, activeId: 'general', profiles, sessions }))
    const store = ctx.store
    expect(store.lastError).toBeNull()
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 'one-more', patch: { note: 'x' } },
      { code: 'invalid', field: 'sessions', limit: LIMITS.sessions },
    )
    await store.command({ op: 'session.set', sessionId: 's5', patch: { note: 'changed' } })
    expect(store.state.sessions.get('s5')!.note).toBe('changed')
  })
})

describe('commands in general', () => {
  it('refuses unknown ops, stray arguments and non-objects', async () => {
    const store = await open()
    await expectRefused(store, { op: 'profile.explode' }, { code: 'invalid', field: 'op' })
    await expectRefused(
      store,
      { op: 'profile.activate', id: 'coder', force: true },
      { code: 'invalid', field: 'command.force' },
    )
    await expectRefused(store, null, { code: 'invalid', field: 'command' })
    await expectRefused(store, 'profile.create', { code: 'invalid', field: 'command' })
  })

  it('close finishes queued commands, then refuses new ones', async () => {
    const store = await open()
    const pending = store.command({ op: 'profile.create', profile: { name: '最后一个' } })
    await store.close()
    await expect(pending).resolves.toMatchObject({ notice: { key: 'profile.created' } })
    await expect(store.command({ op: 'profile.create' })).rejects.toMatchObject({ code: 'io' })
  })

  it('defaultDataFile honours DSH_AGENT_PROFILES_DATA as a directory, else lives under the Harness home', () => {
    expect(defaultDataFile('/home/u/.dsh', {})).toBe('/home/u/.dsh/agent-profiles/profiles.sqlite')
    expect(defaultDataFile('/home/u/.dsh', { DSH_AGENT_PROFILES_DATA: '/data/ap' })).toBe('/data/ap/profiles.sqlite')
    expect(defaultDataFile('/home/u/.dsh', { DSH_AGENT_PROFILES_DATA: '  ' })).toBe(
      '/home/u/.dsh/agent-profiles/profiles.sqlite',
    )
  })
})
