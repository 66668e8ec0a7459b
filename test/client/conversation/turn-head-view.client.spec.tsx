import { act } from 'react'
import { describe, expect, it } from 'vitest'
import { ApiContext, createApiClient } from '../../../lib/client/data/api.ts'
import { TurnHead, headRowKey, type ChatNodeLike } from '../../../lib/client/conversation/TurnHead.tsx'
import { headProps, USER_MESSAGE } from '../../../lib/client/conversation/turn-head.ts'
import type { TurnModel } from '../../../lib/shared/models.ts'
import { assistantStep, chatSession } from '../../support/chat-fixture.tsx'
import { meta, profile, readingHost, render, settle, state, stubFetch, text, wireOf } from '../../support/dom.tsx'

const a = profile({ id: 'a', name: '通用助手', emoji: '🤖' })
const b = profile({ id: 'b', name: '写作教练', emoji: '✍️', avatar: '/__ap/avatar/b?v=1' })

/** The host reading `s`, with `turns` (and `models`) as the ledger of session-1. */
const host = (s = state([a, b]), turns: Record<number, string> = {}, models: Record<number, TurnModel> = {}) =>
  stubFetch(readingHost(s, turns, models))

async function heads(nodes: ReturnType<typeof assistantStep>[], shown = nodes) {
  const chat = chatSession(nodes)
  const client = createApiClient()
  const mounted = await render(
    <ApiContext.Provider value={client}>
      {shown.map((node) => (
        <div key={node.key} data-row={node.key}>
          <TurnHead node={node} sessionId="session-1" useSession={chat.useSession} />
        </div>
      ))}
    </ApiContext.Provider>,
  )
  await settle()
  return { ...mounted, chat }
}

const row = (container: HTMLElement, key: string): HTMLElement => container.querySelector(`[data-row="${key}"]`)!

describe('TurnHead', () => {
  it('names the model that answered in its tooltip, and shows a fallback visibly with the reason', async () => {
    host(
      state([a, b]),
      { 1: 'a', 2: 'a' },
      {
        1: { provider: 'deepseek-official', model: 'deepseek-v4-pro', source: 'profile' },
        2: {
          provider: 'deepseek-official',
          model: 'deepseek-v4-flash',
          source: 'fallback',
          wanted: { provider: 'gone', model: 'big' },
          why: 'no-provider',
          reason: 'the host has no provider "gone"',
        },
      },
    )
    const { container } = await heads([assistantStep(1, 1), assistantStep(2, 1)])
    const first = row(container, 'assistant:1:1').querySelector('[data-ap-turn-head]')!
    expect(first.getAttribute('title')).toBe('通用助手\n由 deepseek-v4-pro（deepseek-official）回答')
    expect(first.querySelector('[data-ap-model-fallback]')).toBeNull()
    const second = row(container, 'assistant:2:1').querySelector('[data-ap-turn-head]')!
    expect(text(second.querySelector('[data-ap-model-fallback]')!)).toBe(
      '⚠ 配置的模型不可用，改由 deepseek-v4-flash 回答',
    )
    expect(second.getAttribute('title')).toContain(
      '配置的模型 big 不可用（本机已没有提供方「gone」），本轮改由 deepseek-v4-flash（deepseek-official）回答',
    )
  })

  it('shows the avatar and name once per turn, above its first assistant step only', async () => {
    host()
    const steps = [assistantStep(1, 1), assistantStep(1, 2), assistantStep(1, 3), assistantStep(2, 1)]
    const { container } = await heads(steps)
    expect(text(row(container, 'assistant:1:1'))).toBe('🤖 通用助手')
    expect(row(container, 'assistant:1:2').childElementCount).toBe(0)
    expect(row(container, 'assistant:1:3').childElementCount).toBe(0)
    expect(text(row(container, 'assistant:2:1'))).toBe('🤖 通用助手')
    expect(container.querySelectorAll('[data-ap-turn-head]')).toHaveLength(2)
  })

  it('goes to the first visible step when the turn opened with a hidden, tool-only step', async () => {
    host()
    const { container } = await heads([assistantStep(1, 1, { visibility: 'hidden' }), assistantStep(1, 2)])
    expect(row(container, 'assistant:1:1').childElementCount).toBe(0)
    expect(text(row(container, 'assistant:1:2'))).toBe('🤖 通用助手')
  })

  it('heads a turn whose model called a tool first from below its user message, so no tool row sits above the head', async () => {
    host()
    const plain = (key: string, kind: string, turn: number): ChatNodeLike => ({
      key,
      kind,
      visibility: 'visible',
      data: { turn },
    })
    const rows = [
      plain('u1', 'user', 1),
      plain('c1', 'context', 1),
      plain('t1', 'tool-call', 1),
      assistantStep(1, 2),
      plain('u2', 'user', 2),
      assistantStep(2, 1),
    ]
    const chat = chatSession(rows)
    expect(
      headRowKey(
        {
          nodes: { get: (k) => rows.find((n) => n.key === k) },
          locations: { getTurn: (t) => rows.filter((n) => (n.data as { turn: number }).turn === t).map((n) => n.key) },
        },
        1,
      ),
    ).toBe('u1')
    const client = createApiClient()
    // The user row of turn 1 carries the head; the reply of turn 1 does not; turn 2 (text first) keeps it on its reply.
    const userNode = (key: string, turn: number) => ({
      key,
      kind: 'user',
      location: { kind: 'turn', turn: { turn } },
      data: {},
    })
    const { container } = await render(
      <ApiContext.Provider value={client}>
        {[userNode('u1', 1), userNode('u2', 2)].map((node) => (
          <div key={node.key} data-row={node.key}>
            <TurnHead
              {...headProps(USER_MESSAGE, { node, sessionId: 'session-1', useSession: chat.useSession } as never)!}
            />
          </div>
        ))}
        {[assistantStep(1, 2), assistantStep(2, 1)].map((node) => (
          <div key={node.key} data-row={node.key}>
            <TurnHead node={node} sessionId="session-1" useSession={chat.useSession} />
          </div>
        ))}
      </ApiContext.Provider>,
    )
    await settle()
    expect(text(row(container, 'u1'))).toBe('🤖 通用助手')
    expect(row(container, 'assistant:1:2').childElementCount).toBe(0)
    expect(row(container, 'u2').childElementCount).toBe(0)
    expect(text(row(container, 'assistant:2:1'))).toBe('🤖 通用助手')
  })

  it('moves to an earlier step that appears later, leaving one head per turn', async () => {
    host()
    const later = assistantStep(1, 2)
    const { container, chat } = await heads([later])
    expect(container.querySelectorAll('[data-ap-turn-head]')).toHaveLength(1)
    await act(async () => {
      chat.set([assistantStep(1, 1), later])
    })
    await settle()
    expect(container.querySelectorAll('[data-ap-turn-head]')).toHaveLength(0)
  })

  it('shows the profile that answered each turn, and the current profile where the ledger has no record', async () => {
    // Turn 1 was answered by 通用助手; the conversation has since been pinned to 写作教练.
    const calls = host(state([a, b], { 'session-1': { profileId: 'b', note: '', memories: [] } }), { 1: 'a' })
    const { container } = await heads([assistantStep(1, 1), assistantStep(2, 1, { status: 'running' })])
    expect(text(row(container, 'assistant:1:1'))).toBe('🤖 通用助手')
    expect(row(container, 'assistant:1:1').querySelector('[data-profile-id]')!.getAttribute('data-profile-id')).toBe(
      'a',
    )
    expect(text(row(container, 'assistant:2:1'))).toBe('写作教练')
    const img = row(container, 'assistant:2:1').querySelector('img')!
    expect(img.getAttribute('src')).toBe('/__ap/avatar/b?v=1')
    expect(img.getAttribute('width')).toBe('44')
    // Both heads shared one ledger request.
    expect(calls.filter((c) => c.path.startsWith('/__ap/turns/'))).toHaveLength(1)
  })

  it('marks a head standing in with the profile in effect now, until the ledger names the one that answered', async () => {
    // After a reload: turn 1 was answered by 通用助手, the conversation is pinned to 写作教练, the ledger is slow.
    const s = state([a, b], { 'session-1': { profileId: 'b', note: '', memories: [] } })
    let answerLedger: (() => void) | undefined
    stubFetch((call) => {
      if (call.path !== '/__ap/turns/session-1') return readingHost(s)(call)
      return new Promise((resolve) => {
        answerLedger = () => resolve({ body: { turns: { 1: 'a' }, models: {} } })
      })
    })
    const { container } = await heads([assistantStep(1, 1)])
    const head = (): Element => container.querySelector('[data-ap-turn-head]')!
    expect(head().getAttribute('data-profile-id')).toBe('b')
    expect(head().getAttribute('data-ap-source')).toBe('current')
    await act(async () => {
      answerLedger!()
    })
    await settle()
    expect(head().getAttribute('data-profile-id')).toBe('a')
    expect(head().getAttribute('data-ap-source')).toBe('ledger')
    expect(text(head())).toBe('🤖 通用助手')
  })

  it('keeps its place with a blank avatar while the profiles are loading', async () => {
    stubFetch(() => new Promise(() => {}))
    const { container } = await heads([assistantStep(1, 1)])
    const head = container.querySelector('[data-ap-turn-head]')!
    expect(head.querySelector('.ap-turn-head-blank')).not.toBeNull()
    expect(text(head)).toBe('')
  })

  it('fetches a profile the page does not hold yet, shows a deleted one as it looked, and never borrows another', async () => {
    // Turn 1: a profile created elsewhere after this page loaded; turn 2: one deleted since; turn 3: one unknown.
    const fresh = profile({ id: 'n', name: '新来的', emoji: '🦉' })
    const calls = stubFetch(({ path }) => {
      if (path === '/__ap/state') return { body: { state: wireOf(state([a, b])), meta: meta() } }
      if (path === '/__ap/turns/session-1') return { body: { turns: { 1: 'n', 2: 'gone', 3: 'lost' } } }
      if (path === '/__ap/profile/n?head') return { body: { head: wireOf(state([fresh])).profiles[0] } }
      if (path === '/__ap/profile/gone?head')
        return { body: { retired: { id: 'gone', name: '老朋友', emoji: '🐙', avatar: '', at: 1 } } }
      return { status: 404, body: { error: { code: 'not-found', message: path } } }
    })
    const { container } = await heads([assistantStep(1, 1), assistantStep(2, 1), assistantStep(3, 1)])
    await settle()
    expect(text(row(container, 'assistant:1:1'))).toBe('🦉 新来的')
    expect(text(row(container, 'assistant:2:1'))).toBe('🐙 老朋友')
    const lost = row(container, 'assistant:3:1')
    expect(lost.querySelector('[data-profile-id]')!.getAttribute('data-profile-id')).toBe('lost')
    expect(text(lost)).not.toContain('通用助手')
    expect(text(lost)).toContain('已删除的角色')
    // Each unknown profile is asked for once, whatever the number of heads.
    expect(calls.filter((c) => c.path.startsWith('/__ap/profile/n'))).toHaveLength(1)
  })

  it('keeps the look of a profile deleted while its turn is shown, until the host says how it looked', async () => {
    let answerRetired: (() => void) | undefined
    stubFetch(({ path }) => {
      if (path === '/__ap/state') return { body: { state: wireOf(state([a, b])), meta: meta() } }
      if (path === '/__ap/turns/session-1') return { body: { turns: { 1: 'b' } } }
      if (path === '/__ap/profile/b?head')
        return new Promise((resolve) => {
          answerRetired = () =>
            resolve({ body: { retired: { id: 'b', name: '写作教练', emoji: '✍️', avatar: '', at: 1 } } })
        })
      return { status: 404, body: { error: { code: 'not-found', message: path } } }
    })
    const chat = chatSession([assistantStep(1, 1)])
    const client = createApiClient()
    const { container } = await render(
      <ApiContext.Provider value={client}>
        <TurnHead node={assistantStep(1, 1)} sessionId="session-1" useSession={chat.useSession} />
      </ApiContext.Provider>,
    )
    await settle()
    expect(text(container)).toBe('写作教练')
    // Deleted elsewhere: the live channel takes it out of the state; the head does not blink or borrow 通用助手.
    await act(async () => {
      client.patch({ removed: ['b'] })
    })
    expect(text(container)).toBe('写作教练')
    await act(async () => {
      answerRetired!()
    })
    await settle()
    expect(text(container)).toBe('✍️ 写作教练')
  })
})
