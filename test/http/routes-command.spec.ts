/**
 * `POST /__ap/command` (lib/http/routes-command.ts) on the real handler and a real store: a command's reply, its
 * refusals, a large import under the body limit, concurrent clients, the reply of every op the browser sends, the
 * ops only the host sends and the ops the page reads with a GET.
 */
import { Agent } from 'node:http'
import { describe, expect, it, vi } from 'vitest'
import { LIMITS, type Profile } from '../../lib/state/model.ts'
import { COMMAND_BODY_LIMIT } from '../../lib/http/caps.ts'
import { HOST_ONLY_OPS, READ_OPS, type ArgsOf, type BrowserOp, type ReplyOf } from '../../lib/shared/commands.ts'
import { isErrorShape, largeImport } from '../support/http.ts'
import type { CommandReply } from '../../lib/shared/wire-state.ts'
import { api, store, expectSoundState, profileById, serveRoutesEachTest } from '../support/routes-rig.ts'

serveRoutesEachTest()

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

  it('refuses a bulk decision naming more suggestions than the cap, or one that is none, and approves nothing', async () => {
    const target = { user: true } as const
    await store.command({
      op: 'memory.learn',
      target,
      importId: 'run1',
      items: [{ text: '用户住在青岛' }, { text: '用户养了一只猫' }],
    })
    const before = store.state
    const ids = before.user!.items.map((it) => it.id)
    const tooMany = Array.from({ length: LIMITS.decideIds + 1 }, (_, i) => ids[i % 2]!)
    const over = await api.command({ op: 'memory.decide', target, verdict: 'approve', itemIds: tooMany })
    expect(over.status).toBe(400)
    expect(over.json.error).toMatchObject({ code: 'invalid', field: 'itemIds', limit: LIMITS.decideIds })
    const stranger = await api.command({ op: 'memory.decide', target, verdict: 'approve', itemIds: [ids[0], 'm-x'] })
    expect(stranger.status).toBe(404)
    expect(stranger.json.error).toMatchObject({ code: 'not-found', field: 'itemIds[1]' })
    expect(store.state).toBe(before)
    const done = await api.command({ op: 'memory.decide', target, verdict: 'approve', itemIds: ids })
    expect(done.json).toMatchObject({ decided: 2, notice: { key: 'memory.approvedMany', params: { count: 2 } } })
    expect(store.state.user!.items.map((it) => it.pending ?? false)).toEqual([false, false])
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

/** Every key any member of a union has (`keyof` of a union names only the keys all members share). */
type KeysOf<T> = T extends unknown ? keyof T : never

/** The fields op `O`'s reply type names besides state, meta, notice and the user layer (which any op answers when it
 * changed the layer), each said to come always or only sometimes; the compiler holds the list to exactly those keys. */
type Fields<O extends BrowserOp> = {
  [K in Exclude<KeysOf<ReplyOf<O>>, keyof CommandReply | 'user'>]: 'always' | 'sometimes'
}

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
  'memory.approve': true,
  'memory.decide': true,
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

describe("a save's reads of the store", () => {
  it('are what its parts cost and one more: the user layer rides along for a single read before the command', async () => {
    const id = store.state.activeId
    const reads = async (send: () => Promise<unknown>): Promise<number> => {
      // Each read of the state or revision asks the database whether another dsh process wrote (PRAGMA data_version).
      const state = vi.spyOn(store, 'state', 'get')
      const revision = vi.spyOn(store, 'revision', 'get')
      await send()
      const n = state.mock.calls.length + revision.mock.calls.length
      state.mockRestore()
      revision.mockRestore()
      return n
    }
    const saved = await reads(() => api.get(`/__ap/profile/${id}`))
    const stateReply = await reads(() => api.get('/__ap/state'))
    const save = await reads(() => api.command({ op: 'profile.update', id, patch: { rules: '不编造引用' } }))
    // The reply is the state and the profile as saved; beside them, the push channel's revision of the change, and
    // the look at the user layer before the command (after it, the command's own result is compared).
    expect(save).toBe(saved + stateReply + 2)
  })
})

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
      const named: Record<string, string> = {
        state: 'always',
        meta: 'always',
        notice: 'always',
        user: 'sometimes',
        ...fields,
      }
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
    const history = (await api.get('/__ap/memory/history?layer=profile&owner=general')).json
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
    const userSet = await send('user.set', { items: [{ text: '用户叫小王' }] }, {})
    expect(userSet.user).toMatchObject({ items: [{ text: '用户叫小王' }] })
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
    await store.command({
      op: 'memory.learn',
      target: { user: true },
      importId: 'run2',
      items: [{ text: '用户养了一只狗', origin: 'ChatGPT, 2025-03-15' }],
    })
    await send(
      'memory.decide',
      { target: { user: true }, verdict: 'approve', importId: 'run2' },
      { ...list, decided: 'always', replaced: 'always' },
    )
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

describe('ops that only read', () => {
  it('are refused over POST, naming the GET that answers them without waiting in the write queue', async () => {
    await api.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户住在杭州' }] })
    for (const op of READ_OPS) {
      const r = await api.command({ op, target: { profileId: 'general' } })
      expect(r.status, op).toBe(400)
      expect(r.json.error, op).toEqual({
        code: 'invalid',
        message: `op: ${op} only reads: GET /__ap/memory/history answers it, never behind a save`,
        field: 'op',
      })
    }
    const read = await api.get('/__ap/memory/history?layer=profile&owner=general')
    expect(read.json.entries).toMatchObject([{ added: [{ text: '用户住在杭州' }] }])
  })
})
