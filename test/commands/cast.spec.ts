/**
 * A conversation's cast in the store (`session.set {cast}`): the profiles `@all` asks in turn, kept in the
 * conversation's settings across a restart and seen by another process, refused with the field named when wrong, and
 * losing a profile that is deleted, with the deletion's notice saying so.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LIMITS } from '../../lib/state/model.ts'
import { expectRefused, freshStore } from '../support/store-helpers.ts'

let ctx: Awaited<ReturnType<typeof freshStore>>
afterEach(async () => ctx?.dispose())

async function twoProfiles() {
  const store = (ctx = await freshStore()).store
  const a = (
    (await store.command({ op: 'profile.create', profile: { name: 'Alpha' } })) as unknown as {
      profile: { id: string }
    }
  ).profile.id
  const b = (
    (await store.command({ op: 'profile.create', profile: { name: '贝塔' } })) as unknown as { profile: { id: string } }
  ).profile.id
  return { store, a, b }
}

describe("a conversation's cast", () => {
  it("is kept in order in the conversation's settings, across a restart and in another process", async () => {
    const { store, a, b } = await twoProfiles()
    const reply = await store.command({ op: 'session.set', sessionId: 's-1', patch: { cast: [b, a] } })
    expect(reply.notice).toEqual({ key: 'session.cast', params: { names: ['贝塔', 'Alpha'], count: 2 } })
    expect(store.state.sessions.get('s-1')).toEqual({ profileId: null, note: '', memories: [], cast: [b, a] })
    const other = await ctx.open()
    expect(other.state.sessions.get('s-1')?.cast).toEqual([b, a])
    await other.close()
    // Emptying the cast of a conversation with nothing else of its own leaves no settings behind.
    await store.command({ op: 'session.set', sessionId: 's-1', patch: { cast: [] } })
    expect(store.state.sessions.get('s-1')).toBeUndefined()
  })

  it('refuses what is not a list of distinct existing profiles within the limit, naming the field, and changes nothing', async () => {
    const { store, a } = await twoProfiles()
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's-1', patch: { cast: 'Alpha' } },
      { code: 'invalid', field: 'patch.cast' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's-1', patch: { cast: [a, 'nobody'] } },
      { code: 'invalid', field: 'patch.cast[1]' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's-1', patch: { cast: [a, a] } },
      { code: 'invalid', field: 'patch.cast[1]' },
    )
    await expectRefused(
      store,
      { op: 'session.set', sessionId: 's-1', patch: { cast: Array.from({ length: LIMITS.cast + 1 }, () => a) } },
      { code: 'invalid', field: 'patch.cast' },
    )
    expect(store.state.sessions.get('s-1')).toBeUndefined()
  })

  it('loses a deleted profile, and the deletion says how many casts it left', async () => {
    const { store, a, b } = await twoProfiles()
    await store.command({ op: 'session.set', sessionId: 's-1', patch: { cast: [a, b] } })
    await store.command({ op: 'session.set', sessionId: 's-2', patch: { cast: [a] } })
    const reply = await store.command({ op: 'profile.delete', id: a })
    expect(reply.notice.params).toMatchObject({ uncast: 2 })
    expect(store.state.sessions.get('s-1')?.cast).toEqual([b])
    expect(store.state.sessions.get('s-2')).toBeUndefined()
    const reopened = await ctx.open()
    expect(reopened.state.sessions.get('s-1')?.cast).toEqual([b])
    await reopened.close()
  })
})
