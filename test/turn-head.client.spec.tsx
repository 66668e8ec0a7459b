import { memo, type ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SlotCore } from '@deepseek-ai/dsh-client-ui-slots'
import { apply } from '../lib/client/index.ts'
import { ASSISTANT_STEP, CHAT_NODE_SLOT, installTurnHead, type TurnHeadSlots } from '../lib/client/turn-head.ts'
import type { TurnHeadProps } from '../lib/client/TurnHead.tsx'
import { assistantStep, chatSession } from './chat-fixture.tsx'
import { cleanup, meta, profile, render, settle, state, stubFetch, text } from './support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

/**
 * The host's slot registry as the plugin sees it, over the host's real registry core (shadowing, priorities,
 * microtask-batched `subscribe`); `inject` runs its setup while the slot is declared, like the host's.
 */
function hostSlots() {
  const core = new SlotCore()
  const inject = (key: string, setup: () => () => void): (() => void) => {
    let active: (() => void) | undefined
    const reconcile = (): void => {
      const declared = core.specDynamic(key) !== undefined
      if (declared && active === undefined) active = setup()
      if (!declared && active !== undefined) {
        active()
        active = undefined
      }
    }
    const stop = core.subscribeDeclaration(key, reconcile)
    reconcile()
    return () => {
      stop()
      active?.()
    }
  }
  const slots = {
    core,
    entries: (key: string) => core.entries(key),
    subscribe: (key: string, fn: () => void) => core.subscribe(key, fn),
    register: vi.fn((options: object, component: unknown) => (core as unknown as { register(o: object, c: unknown): () => void }).register(options, component)),
    inject: vi.fn(inject),
  }
  return slots
}

/** Declare the conversation's chat-node slot (and the turn-tail chain under it), as the host's chat view does. */
function declareChat(core: SlotCore): () => void {
  return (core as unknown as { register(o: object, c: unknown): () => void }).register({
    name: 'root',
    priority: 5,
    children: {
      [CHAT_NODE_SLOT]: { kind: 'keyed', scope: 'session' },
      'conversation.chat.turnTail': { kind: 'chain', scope: 'session' },
      'conversation.input.left': { kind: 'list', scope: 'session' },
      'tool.call.toolview': { kind: 'keyed', scope: 'session' },
      'settings.section': { kind: 'list', scope: 'root' },
    },
  }, () => null)
}

/** The host's assistant reply renderer: a memo component, as the real one is, that shows the props it got. */
const seen: object[] = []
const HostAssistant = memo(function HostAssistant(props: TurnHeadProps & { openFile(): void }): ReactNode {
  seen.push(props)
  return <div data-host-assistant={props.node.key}>host reply</div>
})

function registerHost(core: SlotCore): () => void {
  return (core as unknown as { register(o: object, c: unknown): () => void })
    .register({ name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, locale: 'conversation' }, HostAssistant)
}

/** The entry that renders the assistant-step cell right now. */
const winner = (core: SlotCore): unknown => core.entriesOfSlot(CHAT_NODE_SLOT).find((e) => e.options.key === ASSISTANT_STEP)?.component

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

function fakeHostHalf(): void {
  stubFetch(({ path }) => (path === '/__ap/state'
    ? { body: { state: state([profile({ id: 'a', name: '通用助手', emoji: '🤖' })]), meta: meta() } }
    : { body: { turns: {} } }))
}

describe('turn head registration', () => {
  it('shadows the host assistant-step renderer at a lower priority, declaring the host locale', () => {
    const slots = hostSlots()
    declareChat(slots.core)
    registerHost(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    expect(slots.register).toHaveBeenCalledTimes(1)
    expect(slots.register.mock.calls[0]![0]).toEqual({ name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, priority: -1, locale: 'conversation' })
    expect(winner(slots.core)).not.toBe(HostAssistant)
    expect(winner(slots.core)).toBe(slots.register.mock.calls[0]![1])
  })

  it('renders our head and then exactly the host renderer with the same props, with no wrapper element', async () => {
    fakeHostHalf()
    const slots = hostSlots()
    declareChat(slots.core)
    registerHost(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    const Row = winner(slots.core) as (p: object) => ReactNode
    const chat = chatSession([assistantStep(1, 1)])
    const props = { node: assistantStep(1, 1), sessionId: 'session-1', useSession: chat.useSession, t: (k: string) => k, openFile: () => {} }
    seen.length = 0
    const { container } = await render(<Row {...props} />)
    await settle()
    const children = [...container.children]
    expect(children).toHaveLength(2)
    expect(children[0]!.hasAttribute('data-ap-turn-head')).toBe(true)
    expect(text(children[0]!)).toBe('🤖 通用助手')
    expect(children[1]!.getAttribute('data-host-assistant')).toBe('assistant:1:1')
    const got = seen.at(-1) as Record<string, unknown>
    expect(Object.keys(got).sort()).toEqual(Object.keys(props).sort())
    for (const [key, value] of Object.entries(props)) expect(got[key]).toBe(value)
  })

  it('still renders the host reply when our head throws, with the failure shown in our place', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    fakeHostHalf()
    const slots = hostSlots()
    declareChat(slots.core)
    registerHost(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    const Row = winner(slots.core) as (p: object) => ReactNode
    const broken = () => { throw new Error('snapshot exploded') }
    const { container } = await render(<Row node={assistantStep(1, 1)} sessionId="session-1" useSession={broken} />)
    expect(container.querySelector('[data-host-assistant]')).not.toBeNull()
    expect(container.querySelector('[role="alert"]')!.textContent).toContain('snapshot exploded')
  })

  it('takes over when the host renderer is registered after us', async () => {
    const slots = hostSlots()
    declareChat(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    await flush()
    expect(slots.register).not.toHaveBeenCalled()
    registerHost(slots.core)
    await flush()
    expect(slots.register).toHaveBeenCalledTimes(1)
    expect(winner(slots.core)).toBe(slots.register.mock.calls[0]![1])
  })

  it('registers nothing while the host renderer never appears, so the row stays the host\'s own', async () => {
    const slots = hostSlots()
    declareChat(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    ;(slots.core as unknown as { register(o: object, c: unknown): () => void }).register({ name: CHAT_NODE_SLOT, key: 'user' }, () => null)
    await flush()
    expect(slots.register).not.toHaveBeenCalled()
    expect(slots.core.entries(CHAT_NODE_SLOT).map((e) => e.options.key)).toEqual(['user'])
  })

  it('hands the row back to the host renderer when unregistered', async () => {
    const slots = hostSlots()
    declareChat(slots.core)
    registerHost(slots.core)
    const dispose = installTurnHead(slots as unknown as TurnHeadSlots)
    expect(winner(slots.core)).not.toBe(HostAssistant)
    dispose()
    expect(winner(slots.core)).toBe(HostAssistant)
    expect(slots.core.entries(CHAT_NODE_SLOT)).toHaveLength(1)
    // No late take-over after disposal.
    await flush()
    expect(winner(slots.core)).toBe(HostAssistant)
  })

  it('takes over again when the chat is declared anew (a reloaded conversation view)', async () => {
    const slots = hostSlots()
    const undeclare = declareChat(slots.core)
    registerHost(slots.core)
    installTurnHead(slots as unknown as TurnHeadSlots)
    undeclare()
    declareChat(slots.core)
    registerHost(slots.core)
    await flush()
    expect(slots.register).toHaveBeenCalledTimes(2)
    expect(winner(slots.core)).toBe(slots.register.mock.calls[1]![1])
  })
})

describe('the plugin entry', () => {
  it('registers the composer switcher, the memory_save view and the turn head, and never a turn-tail copy', () => {
    const slots = hostSlots()
    declareChat(slots.core)
    registerHost(slots.core)
    const ctx = {
      effect: (run: () => () => void) => run(),
      slots,
      locale: { getLocale: () => ({ active: 'zh' }), subscribe: () => () => {}, register: () => () => {} },
    }
    apply(ctx as unknown as Parameters<typeof apply>[0])
    const names = slots.register.mock.calls.map(([options]) => options as { name: string; key?: string; id?: string })
    expect(names.filter((o) => o.name === 'conversation.chat.turnTail')).toEqual([])
    expect(slots.core.entries('conversation.chat.turnTail')).toEqual([])
    expect(names).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'conversation.input.left', id: 'agent-profiles' }),
      expect.objectContaining({ name: 'tool.call.toolview', key: 'memory_save' }),
      expect.objectContaining({ name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, priority: -1 }),
    ]))
  })
})
