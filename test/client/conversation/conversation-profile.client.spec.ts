import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApiClient } from '../../../lib/client/data/api.ts'
import { effectiveProfile, TurnLedgerCache } from '../../../lib/client/conversation/conversation-profile.ts'
import { profile, state, stubFetch, wireOf } from '../../support/dom.tsx'

afterEach(() => {
  vi.unstubAllGlobals()
})

const a = profile({ id: 'a', name: '通用助手' })
const b = profile({ id: 'b', name: '写作教练' })

describe('effectiveProfile', () => {
  it('uses the global default for a conversation without settings', () => {
    const e = effectiveProfile(wireOf(state([a, b])), undefined)!
    expect(e.profile.id).toBe('a')
    expect(e.pinned).toBe(false)
    expect(e.setting).toBeUndefined()
  })

  it('uses the pinned profile and says so', () => {
    const s = state([a, b], { 'session-1': { profileId: 'b', note: '', memories: [] } })
    const e = effectiveProfile(wireOf(s), s.sessions['session-1'])!
    expect(e.profile.id).toBe('b')
    expect(e.pinned).toBe(true)
    expect(e.fallback.id).toBe('a')
    // Another conversation is not affected by that pin.
    expect(effectiveProfile(wireOf(s), s.sessions['session-2'])!.profile.id).toBe('a')
  })

  it('follows the default when the conversation only has a note, or pins a profile that no longer exists', () => {
    const s = state([a, b], {
      'session-1': { profileId: null, note: '只用中文', memories: [] },
      'session-2': { profileId: 'gone', note: '', memories: [] },
    })
    expect(effectiveProfile(wireOf(s), s.sessions['session-1'])).toMatchObject({ profile: { id: 'a' }, pinned: false })
    expect(effectiveProfile(wireOf(s), s.sessions['session-2'])).toMatchObject({ profile: { id: 'a' }, pinned: false })
  })

  it('follows a changed global default', () => {
    const s = { ...state([a, b]), activeId: 'b' }
    expect(effectiveProfile(wireOf(s), s.sessions['session-1'])!.profile.id).toBe('b')
  })
})

describe('TurnLedgerCache', () => {
  it('answers from one request for every turn asked about in the same moment', async () => {
    const calls = stubFetch(() => ({ body: { turns: { 1: 'a', 2: 'b', 3: 'a' } } }))
    const cache = new TurnLedgerCache(createApiClient())
    const changed = vi.fn()
    cache.subscribe(changed)
    cache.ask('session-1', 1, 'settled')
    cache.ask('session-1', 2, 'settled')
    cache.ask('session-1', 3, 'settled')
    await vi.waitFor(() => {
      expect(changed).toHaveBeenCalled()
    })
    expect(calls.map((c) => c.path)).toEqual(['/__ap/turns/session-1'])
    expect([1, 2, 3].map((turn) => cache.profileOf('session-1', turn))).toEqual(['a', 'b', 'a'])
    expect(cache.profileOf('session-2', 1)).toBeUndefined()
  })

  it('asks again about a turn missing from the ledger only when there is a new reason to', async () => {
    let turns: Record<number, string> = {}
    const calls = stubFetch(() => ({ body: { turns } }))
    const cache = new TurnLedgerCache(createApiClient())
    cache.ask('session-1', 4, 'running')
    await vi.waitFor(() => {
      expect(calls).toHaveLength(1)
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    cache.ask('session-1', 4, 'running')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toHaveLength(1)
    // The turn settles: the host has recorded it by now.
    turns = { 4: 'b' }
    cache.ask('session-1', 4, 'settled')
    await vi.waitFor(() => {
      expect(cache.profileOf('session-1', 4)).toBe('b')
    })
    expect(calls).toHaveLength(2)
    // Known turns cost nothing.
    cache.ask('session-1', 4, 'other')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toHaveLength(2)
  })

  it('keeps going when the host cannot answer', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    let fail = true
    stubFetch(() =>
      fail ? { status: 500, body: { error: { code: 'io', message: 'disk' } } } : { body: { turns: { 1: 'a' } } },
    )
    const cache = new TurnLedgerCache(createApiClient())
    cache.ask('session-1', 1, 'running')
    await vi.waitFor(() => {
      expect(console.warn).toHaveBeenCalled()
    })
    expect(cache.profileOf('session-1', 1)).toBeUndefined()
    fail = false
    cache.ask('session-1', 1, 'settled')
    await vi.waitFor(() => {
      expect(cache.profileOf('session-1', 1)).toBe('a')
    })
  })
})
