/**
 * Pins the turn reader (lib/turn/reader.ts): while a profile the user named answers a turn, the reader says so and
 * names the conversation's own profile beside it, the store's `effective()` stays the conversation's own, and a change
 * of speaker reaches the reader's listeners. Runs on a real store; the speakers' book is moved as the host's
 * `agent/inbox/claimed` moves it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore } from '../../lib/store/open-store.ts'
import type { ProfileStore } from '../../lib/store/store.ts'
import { createSpeakers } from '../../lib/prompt/speakers-install.ts'
import { createTurnReader, type TurnView } from '../../lib/turn/reader.ts'
import { tempDir } from '../support/store-fixtures.ts'

let store: ProfileStore
let writer: string
let dispose: () => Promise<void>

beforeEach(async () => {
  const dir = await tempDir('ap-turn')
  dispose = dir.dispose
  store = await openStore({ file: dir.file, log: { warn: () => {}, error: () => {} } })
  const reply = await store.command({ op: 'profile.create', profile: { name: 'Writer', role: '你是 Writer。' } })
  writer = (reply as unknown as { profile: { id: string } }).profile.id
  await store.command({ op: 'profile.activate', id: 'general' })
  await store.command({ op: 'session.set', sessionId: 's-1', patch: { profileId: 'general' } })
})
afterEach(async () => {
  await store.close()
  await dispose()
})

describe('the turn reader', () => {
  it("answers with the profile named for the turn, and effective() stays the conversation's own", () => {
    const speakers = createSpeakers(store)
    const turns = createTurnReader(store, speakers)
    const before: TurnView = turns.of('s-1')
    expect([before.speaker.id, before.own.id, before.named, before.pinned]).toEqual(['general', 'general', false, true])
    speakers.book.claimed('s-1', 1, 'm1', '@Writer 看看', store.state.profiles, [])
    const during = turns.of('s-1')
    expect([during.speaker.id, during.own.id, during.named, during.pinned]).toEqual([writer, 'general', true, true])
    expect(store.effective('s-1').profile.id).toBe('general')
    speakers.book.idle('s-1')
    expect(turns.of('s-1').speaker.id).toBe('general')
  })

  it("names no speaker when the user names the conversation's own profile", () => {
    const speakers = createSpeakers(store)
    speakers.book.claimed('s-1', 1, 'm1', '@通用助手 看看', store.state.profiles, [])
    const view = createTurnReader(store, speakers).of('s-1')
    expect(view.named).toBe(false)
    expect(view.speaker).toBe(view.own)
  })

  it('tells its listeners about a change of speaker and a change of the store, until unsubscribed', async () => {
    const speakers = createSpeakers(store)
    const turns = createTurnReader(store, speakers)
    let heard = 0
    const off = turns.onChange(() => heard++)
    speakers.book.claimed('s-1', 1, 'm1', '@Writer 看看', store.state.profiles, [])
    speakers.changed('s-1', undefined)
    expect(heard).toBe(1)
    await store.command({ op: 'profile.update', id: writer, patch: { role: '你是 Writer，新的。' } })
    expect(heard).toBeGreaterThan(1)
    off()
    const settled = heard
    speakers.changed('s-1', 'general')
    expect(heard).toBe(settled)
  })
})
