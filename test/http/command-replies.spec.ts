import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { renderProfile } from '../../lib/prompt/render.ts'
import { createHandler } from '../../lib/http/routes.ts'
import { openStore, type ProfileStore } from '../../lib/store/store.ts'
import { HOST_ONLY_OPS, type ArgsOf, type BrowserOp, type ReplyFields } from '../../lib/shared/commands.ts'
import { httpClient, routeMeta, type HttpClient } from '../support/http.ts'

let dir: string
let store: ProfileStore
let server: Server
let api: HttpClient

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-replies-'))
  store = await openStore({ file: join(dir, 'profiles.sqlite') })
  const handler = createHandler({ store, preview: (p, s) => renderProfile(p, s), meta: () => routeMeta(store), trustedHosts: () => [], log: { warn: () => {}, error: () => {} } })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  api = httpClient((server.address() as AddressInfo).port)
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every key any member of a union has (`keyof` of a union names only the keys all members share). */
type KeysOf<T> = T extends unknown ? keyof T : never

/** The fields op `O`'s reply type names besides state, meta and notice, each said to come always or only sometimes;
 * the compiler holds the list to exactly those keys. */
type Fields<O extends BrowserOp> = { [K in KeysOf<ReplyFields[O]>]: 'always' | 'sometimes' }

/** Each op once, so a browser op this spec does not send fails the typecheck. */
const SENT: { [O in BrowserOp]: true } = {
  'profile.create': true, 'profile.update': true, 'profile.duplicate': true, 'profile.delete': true, 'profile.activate': true,
  'memory.add': true, 'memory.update': true, 'memory.remove': true, 'memory.clear': true, 'memory.undo': true,
  'memory.history': true, 'memory.approve': true, 'memory.revert': true, 'session.set': true, 'user.set': true,
  'session.clear': true, 'session.refreshMemory': true, 'sessions.clearAll': true, 'state.import': true,
  'profiles.importFiles': true, 'state.restoreDefaults': true,
}

describe('the reply of every op the browser sends', () => {
  it('carries exactly the fields its reply type names (lib/shared/commands.ts), over the real routes', async () => {
    const sent = new Set<string>()
    const send = async <O extends BrowserOp>(op: O, args: ArgsOf<O>, fields: Fields<O>): Promise<Record<string, unknown>> => {
      const r = await api.command({ ...args, op })
      expect(r.status, `${op}: ${r.text.slice(0, 200)}`).toBe(200)
      const reply = r.json as Record<string, unknown>
      const named: Record<string, string> = { state: 'always', meta: 'always', notice: 'always', ...fields }
      expect(Object.keys(reply).filter((k) => named[k] === undefined), op).toEqual([])
      expect(Object.keys(named).filter((k) => named[k] === 'always' && !(k in reply)), op).toEqual([])
      sent.add(op)
      return reply
    }
    const list = { session: 'sometimes' } as const
    const general = { profileId: 'general' }
    const item = (pick: (text: string) => boolean) => store.state.profiles.find((p) => p.id === 'general')!.memory.items.find((it) => pick(it.text))!.id

    const created = await send('profile.create', { profile: { name: '甲' } }, { profile: 'always' })
    await send('profile.update', { id: 'general', patch: { memoryMode: 'ask' } }, {})
    await send('profile.duplicate', { id: 'coder' }, { profile: 'always' })
    await send('profile.activate', { id: 'general' }, {})
    const fourLists = { ...list, added: 'always', duplicates: 'always', replaced: 'always', unresolved: 'always' } as const
    await send('memory.add', { target: general, items: [{ text: '用户住在杭州', source: 'tool', sessionId: 'session-1' }] }, fourLists)
    await send('memory.approve', { target: general, itemId: item((t) => t === '用户住在杭州') }, { ...list, replaced: 'always' })
    const own = await send('memory.add', { target: { sessionId: 'session-1' }, items: [{ text: '只谈第三章' }] }, fourLists)
    expect(own.session).toMatchObject({ sessionId: 'session-1' })
    const ownId = (own.added as { id: string }[])[0]!.id
    await send('memory.update', { target: { sessionId: 'session-1' }, itemId: ownId, text: '只谈第四章' }, list)
    await send('memory.remove', { target: { sessionId: 'session-1' }, itemId: ownId }, list)
    const history = await send('memory.history', { target: general }, { ...list, entries: 'always' })
    await send('memory.revert', { target: general, entryId: (history.entries as { id: string }[])[0]!.id }, { ...list, reverted: 'always' })
    // Compression is the host's (no page sends it); undoing it is the page's.
    await store.command({ op: 'memory.compress', profileId: 'general', memory: { summary: '压缩后', items: [] } })
    await send('memory.undo', general, {})
    await send('session.set', { sessionId: 'session-1', patch: { note: '笔记' } }, { session: 'always' })
    await send('session.refreshMemory', { sessionId: 'session-1' }, { session: 'always' })
    await send('session.clear', { sessionId: 'session-1' }, { session: 'always' })
    await send('user.set', { items: [{ text: '用户叫小王' }] }, {})
    await send('memory.clear', { target: { user: true } }, list)
    const importFields = { imported: 'always', userAdded: 'sometimes', renamed: 'sometimes', unchanged: 'sometimes', replaced: 'sometimes', conflicts: 'sometimes', unbound: 'sometimes' } as const
    await send('state.import', { payload: store.exportEnvelope(), mode: 'merge' }, importFields)
    await send('state.import', { payload: store.exportEnvelope(), mode: 'replace' }, importFields)
    await send('profiles.importFiles', { files: [{ name: 'b.md', format: 'markdown', text: '# 乙\n## Role\nB\n' }] }, { imported: 'always', files: 'always', userAdded: 'always' })
    await send('profile.delete', { id: (created.profile as { id: string }).id }, { unbound: 'always', uncast: 'always' })
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
    } satisfies Record<(typeof HOST_ONLY_OPS)[number], object>
    for (const op of HOST_ONLY_OPS) {
      const r = await api.command({ op, ...bodies[op] })
      expect(r.status, op).toBe(400)
      expect(r.json.error, op).toEqual({ code: 'invalid', message: `op: ${op} is written by the host, not over HTTP`, field: 'op' })
    }
    expect(store.state).toBe(before.state)
    expect(store.revision).toBe(before.revision)
    expect(store.turnsOf('session-1')).toEqual({})
  })
})
