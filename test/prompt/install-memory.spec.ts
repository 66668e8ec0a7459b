/**
 * The memory block of the prompt part (lib/prompt/install.ts) on the real dsh spine: cache-stable memory (writes by
 * the tool, the job and compression wait for a new conversation; a hand edit applies from the next turn) and the
 * ledger's record of exactly the memory items each turn's request carried.
 */
import { describe, expect, it, vi } from 'vitest'
import { rig } from '../support/prompt-rig.ts'

describe('cache-stable memory', () => {
  const tool = (sessionId: string, text: string) => ({ text, source: 'tool' as const, sessionId })

  it("writes by the tool, the job and compression leave a running conversation's system prompt byte-identical; a new one gets them", async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小王' }] })
    const s1 = await r.turn(a)
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [tool('s-a', '用户住在杭州')] })
    await r.store.command({ op: 'memory.add', target: { sessionId: 's-a' }, items: [tool('s-a', '本对话在改登录页')] })
    expect(await r.turn(a)).toBe(s1)
    await r.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '用户用 Vim', source: 'auto', sessionId: 's-a' }],
    })
    await r.store.command({
      op: 'memory.compress',
      profileId: 'general',
      memory: { summary: '用户叫小王，住杭州，用 Vim。', items: [] },
    })
    expect(await r.turn(a)).toBe(s1)
    // The conversation's own note is the persona half: it still applies at once, and memory stays as it was.
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { note: '只用 TypeScript。' } })
    const s3 = await r.turn(a)
    expect(s3).toContain('只用 TypeScript。')
    expect(s3.slice(s3.indexOf('# 长期记忆'))).toBe(s1.slice(s1.indexOf('# 长期记忆')))
    const fresh = await r.turn(await r.agent('s-b'))
    expect(fresh).toContain('用户叫小王，住杭州，用 Vim。')
    expect(fresh).not.toContain('本对话在改登录页')
  })

  it('a hand edit of a list the conversation reads applies from the next turn, with what the tool saved meanwhile', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小王' }] })
    await r.turn(a)
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [tool('s-a', '用户住在杭州')] })
    expect(await r.turn(a)).not.toContain('用户住在杭州')
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { memories: [{ text: '本对话只谈测试' }] } })
    const edited = await r.turn(a)
    expect(edited).toContain('- 本对话只谈测试')
    expect(edited).toContain('- 用户住在杭州')
    // A hand edit in another profile's list, or another conversation's, is not one this conversation reads.
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [tool('s-a', '用户养猫')] })
    await r.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [{ text: '偏好 Rust' }] })
    await r.store.command({ op: 'memory.add', target: { sessionId: 's-other' }, items: [{ text: '别的对话' }] })
    expect(await r.turn(a)).toBe(edited)
    // The user's undo of the tool's fact is a hand edit too.
    const entry = r.store.state.history!.general!.findLast((e) => e.who === 'tool')!
    await r.store.command({ op: 'memory.revert', target: { profileId: 'general' }, entryId: entry.id })
    const reverted = await r.turn(a)
    expect(reverted).not.toContain('用户养猫')
    expect(reverted).toContain('- 用户住在杭州')
  })

  it('the ⚙ refresh stamp, a profile switch and memory off each render the memory anew', async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    const s1 = await r.turn(a)
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [tool('s-a', '用户住在杭州')] })
    expect(await r.turn(a)).toBe(s1)
    const refreshed = await r.store.command({ op: 'session.refreshMemory', sessionId: 's-a' })
    expect(refreshed.notice.key).toBe('session.memoryRefreshed')
    expect(r.store.state.sessions.get('s-a')?.memoryRefreshedAt).toBeTypeOf('number')
    expect(await r.turn(a)).toContain('- 用户住在杭州')
    await r.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [tool('s-x', '偏好 Rust')] })
    await r.store.command({ op: 'session.set', sessionId: 's-a', patch: { profileId: 'coder' } })
    expect(await r.turn(a)).toContain('- 偏好 Rust')
    await r.store.command({ op: 'memory.add', target: { profileId: 'coder' }, items: [tool('s-a', '用 Cargo')] })
    await r.store.command({ op: 'profile.update', id: 'coder', patch: { memoryEnabled: false } })
    expect(await r.turn(a)).not.toContain('长期记忆')
  })

  it('rejecting a suggestion changes nothing the model reads, so the memory stays as it was; approving one applies', async () => {
    const r = await rig()
    await r.load()
    await r.store.command({ op: 'profile.update', id: 'general', patch: { memoryMode: 'ask' } })
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [{ text: '用户叫小王' }] })
    const s1 = await r.turn(a)
    await r.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [tool('s-a', '用户住在杭州'), tool('s-a', '用户养猫')],
    })
    await r.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '用户用 Vim', source: 'auto' }],
    })
    await r.store.command({ op: 'memory.compress', profileId: 'general', memory: { summary: '用户姓王。', items: [] } })
    const pending = r.store.state.profiles
      .find((p) => p.id === 'general')!
      .memory.items.filter((it) => it.pending === true)
    await r.store.command({ op: 'memory.remove', target: { profileId: 'general' }, itemId: pending[0]!.id })
    expect(await r.turn(a)).toBe(s1)
    // Approving one is the user's decision: it applies from the next turn.
    await r.store.command({ op: 'memory.approve', target: { profileId: 'general' }, itemId: pending[1]!.id })
    const approved = await r.turn(a)
    expect(approved).toContain(`- ${pending[1]!.text}`)
    expect(approved).toContain('用户姓王。')
  })

  it("the user layer is kept like the other lists: the tool's write waits for a new conversation, a hand edit applies next turn", async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({ op: 'memory.add', target: { user: true }, items: [{ text: '用户叫小王' }] })
    const s1 = await r.turn(a)
    expect(s1).toContain('## 关于用户\n- 用户叫小王')
    await r.store.command({ op: 'memory.add', target: { user: true }, items: [tool('s-a', '用户住在杭州')] })
    expect(await r.turn(a)).toBe(s1)
    expect(await r.turn(await r.agent('s-b'))).toContain('- 用户住在杭州')
    await r.store.command({
      op: 'user.set',
      items: [...r.store.state.user!.items.map(({ id, text }) => ({ id, text })), { text: '用户是后端工程师' }],
      basedOn: r.store.state.user!.items.map((it) => it.id),
    })
    const edited = await r.turn(a)
    expect(edited).toContain('- 用户住在杭州')
    expect(edited).toContain('- 用户是后端工程师')
    await vi.waitFor(() =>
      expect(r.store.turnMemories('s-a', 3)?.map((u) => u.layer)).toEqual(['user', 'user', 'user']),
    )
  })

  it('with cacheStableMemory off, every write applies from the next turn', async () => {
    const r = await rig()
    await r.load({ cacheStableMemory: false })
    const a = await r.agent('s-a')
    await r.turn(a)
    await r.store.command({ op: 'memory.add', target: { profileId: 'general' }, items: [tool('s-a', '用户住在杭州')] })
    expect(await r.turn(a)).toContain('- 用户住在杭州')
  })
})

describe('per-turn memory attribution', () => {
  const carried = (system: string) =>
    system
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2))

  it("the ledger records exactly the memory items each turn's request carried, kept ones included", async () => {
    const r = await rig()
    await r.load()
    const a = await r.agent('s-a')
    await r.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '用户叫小王' }, { text: '用户住在杭州' }],
    })
    await r.store.command({ op: 'memory.add', target: { sessionId: 's-a' }, items: [{ text: '本对话在改登录页' }] })
    const s1 = await r.turn(a)
    // A tool fact leaves the request as it was, so the second turn's record is the first one's.
    await r.store.command({
      op: 'memory.add',
      target: { profileId: 'general' },
      items: [{ text: '用户养猫', source: 'tool', sessionId: 's-a' }],
    })
    const s2 = await r.turn(a)
    await vi.waitFor(() => expect(r.store.turnMemoryCounts('s-a')).toEqual({ 1: 3, 2: 3 }))
    for (const [turn, system] of [
      [1, s1],
      [2, s2],
    ] as const) {
      const used = r.store.turnMemories('s-a', turn)!
      expect(used.map((u) => u.text)).toEqual(carried(system))
      expect(used.map((u) => u.layer)).toEqual(['profile', 'profile', 'conversation'])
    }
    const ids = new Set(r.store.state.profiles.find((p) => p.id === 'general')!.memory.items.map((it) => it.id))
    expect(
      r.store
        .turnMemories('s-a', 1)!
        .filter((u) => u.layer === 'profile')
        .every((u) => ids.has(u.id)),
    ).toBe(true)
    // An edit afterwards does not rewrite what turn 1 read.
    const first = r.store.turnMemories('s-a', 1)![0]!
    await r.store.command({
      op: 'memory.update',
      target: { profileId: 'general' },
      itemId: first.id,
      text: '用户叫老王',
    })
    const s3 = await r.turn(a)
    await vi.waitFor(() => expect(r.store.turnMemories('s-a', 3)?.map((u) => u.text)).toEqual(carried(s3)))
    expect(r.store.turnMemories('s-a', 3)!.map((u) => u.text)).toContain('用户养猫')
    expect(r.store.turnMemories('s-a', 1)![0]!.text).toBe('用户叫小王')
  })
})
