import { memo, type ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { apply } from '../../../lib/client/index.ts'
import { SlotModel } from '../../support/slot-registry.ts'
import { ASSISTANT_STEP, CHAT_NODE_SLOT, installTurnHead } from '../../../lib/client/conversation/turn-head.ts'
import type { TurnHeadProps } from '../../../lib/client/conversation/TurnHead.tsx'
import { assistantStep, chatSession } from '../../support/chat-fixture.tsx'
import { cleanup, profile, readingHost, render, settle, state, stubFetch, text } from '../../support/dom.tsx'

afterEach(async () => {
  await cleanup()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

/** The host's registry (modelled), with `register` and `inject` recorded. */
function hostSlots() {
  const model = new SlotModel()
  return Object.assign(model, {
    register: vi.fn(model.register.bind(model)),
    inject: vi.fn(model.inject.bind(model)),
  })
}
type Slots = ReturnType<typeof hostSlots>

/** Declare the conversation's slots the plugin uses, as the host's conversation view does; returns the collapse. */
function declareChat(slots: Slots): () => void {
  const collapse = [
    slots.declare(CHAT_NODE_SLOT, 'keyed'),
    slots.declare('conversation.chat.turnTail', 'chain'),
    slots.declare('conversation.input.left', 'list'),
    slots.declare('tool.call.toolview', 'keyed'),
  ]
  return () => {
    for (const c of collapse) c()
  }
}

/** The host's assistant reply renderer: a memo component, as the real one is, that shows the props it got. */
const seen: object[] = []
const HostAssistant = memo(function HostAssistant(props: TurnHeadProps & { openFile(): void }): ReactNode {
  seen.push(props)
  return <div data-host-assistant={props.node.key}>host reply</div>
})

/** Register the host's renderer the way ui-conversation does (without calling our recorded `register`). */
function registerHost(slots: Slots): () => void {
  return SlotModel.prototype.register.call(
    slots,
    { name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, locale: 'conversation' },
    HostAssistant,
  )
}

/** The component that renders the assistant-step cell right now. */
const winner = (slots: Slots): unknown => slots.winner(CHAT_NODE_SLOT, ASSISTANT_STEP)?.component

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/** The conversation view once open: the chat's slots declared and the host's assistant renderer registered. */
function openChat(): Slots {
  const slots = hostSlots()
  declareChat(slots)
  registerHost(slots)
  return slots
}

type RowComponent = (p: TurnHeadProps & Record<string, unknown>) => ReactNode

/** Our row in place over an open chat, with the plugin's routes answering one profile and no turns. */
function ourRow(): RowComponent {
  stubFetch(readingHost(state([profile({ id: 'a', name: '通用助手', emoji: '🤖' })])))
  const slots = openChat()
  installTurnHead(slots)
  return winner(slots) as RowComponent
}

describe('turn head registration', () => {
  it('shadows the host assistant-step renderer at a lower priority, declaring the host locale', () => {
    const slots = openChat()
    installTurnHead(slots)
    expect(slots.register).toHaveBeenCalledTimes(1)
    expect(slots.register.mock.calls[0]![0]).toEqual({
      name: CHAT_NODE_SLOT,
      key: ASSISTANT_STEP,
      priority: -1,
      locale: 'conversation',
    })
    expect(winner(slots)).not.toBe(HostAssistant)
    expect(winner(slots)).toBe(slots.register.mock.calls[0]![1])
  })

  it('renders our head and then exactly the host renderer with the same props, with no wrapper element', async () => {
    const Row = ourRow()
    const chat = chatSession([assistantStep(1, 1)])
    const props = {
      node: assistantStep(1, 1),
      sessionId: 'session-1',
      useSession: chat.useSession,
      t: (k: string) => k,
      openFile: () => {},
    }
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
    const Row = ourRow()
    const broken = () => {
      throw new Error('snapshot exploded')
    }
    const { container } = await render(<Row node={assistantStep(1, 1)} sessionId="session-1" useSession={broken} />)
    expect(container.querySelector('[data-host-assistant]')).not.toBeNull()
    expect(container.querySelector('[role="alert"]')!.textContent).toContain('snapshot exploded')
  })

  it('takes over when the host renderer is registered after us', async () => {
    const slots = hostSlots()
    declareChat(slots)
    installTurnHead(slots)
    await flush()
    expect(slots.register).not.toHaveBeenCalled()
    registerHost(slots)
    await flush()
    expect(slots.register).toHaveBeenCalledTimes(1)
    expect(winner(slots)).toBe(slots.register.mock.calls[0]![1])
  })

  it("registers nothing while the host renderer never appears, so the row stays the host's own", async () => {
    const slots = hostSlots()
    declareChat(slots)
    installTurnHead(slots)
    SlotModel.prototype.register.call(slots, { name: CHAT_NODE_SLOT, key: 'context' }, () => null)
    await flush()
    expect(slots.register).not.toHaveBeenCalled()
    expect(slots.entries(CHAT_NODE_SLOT).map((e) => e.options.key)).toEqual(['context'])
  })

  it("shadows the host's user-message row too, drawing the host row first and the head (when it goes there) after it", async () => {
    const slots = openChat()
    const HostUser = (props: { node: { key: string } }): ReactNode => (
      <div data-host-user={props.node.key}>user text</div>
    )
    SlotModel.prototype.register.call(slots, { name: CHAT_NODE_SLOT, key: 'user', locale: 'conversation' }, HostUser)
    installTurnHead(slots)
    await flush()
    expect(slots.register.mock.calls.map(([o]) => (o as { key: string }).key).sort()).toEqual([
      'assistant-step',
      'user',
    ])
    const Row = slots.winner(CHAT_NODE_SLOT, 'user')!.component as RowComponent
    const { container } = await render(
      <Row
        node={{ key: 'u1', location: { kind: 'turn', turn: { turn: 1 } } } as never}
        sessionId="session-1"
        useSession={chatSession([]).useSession}
      />,
    )
    // First, in a box that takes no part in the layout (its mentions are marked there, see MentionChips.tsx).
    const box = container.firstElementChild as HTMLElement
    expect(box.style.display).toBe('contents')
    expect(box.firstElementChild!.getAttribute('data-host-user')).toBe('u1')
  })

  it('hands the row back to the host renderer when unregistered', async () => {
    const slots = openChat()
    const dispose = installTurnHead(slots)
    expect(winner(slots)).not.toBe(HostAssistant)
    dispose()
    expect(winner(slots)).toBe(HostAssistant)
    expect(slots.entries(CHAT_NODE_SLOT)).toHaveLength(1)
    // No late take-over after disposal.
    await flush()
    expect(winner(slots)).toBe(HostAssistant)
  })

  it('takes over again when the chat is declared anew (a reloaded conversation view)', async () => {
    const slots = hostSlots()
    const undeclare = declareChat(slots)
    registerHost(slots)
    installTurnHead(slots)
    undeclare()
    declareChat(slots)
    registerHost(slots)
    await flush()
    expect(slots.register).toHaveBeenCalledTimes(2)
    expect(winner(slots)).toBe(slots.register.mock.calls[1]![1])
  })
})

describe('the plugin entry', () => {
  it('registers the composer switcher, the memory_save view and the turn head, and never a turn-tail copy', () => {
    const slots = openChat()
    const ctx = {
      effect: (run: () => () => void) => run(),
      slots,
      locale: { getLocale: () => ({ active: 'zh' }), subscribe: () => () => {}, register: () => () => {} },
      inputTriggers: { registerSource: () => () => {} },
    }
    apply(ctx as unknown as Parameters<typeof apply>[0])
    const names = slots.register.mock.calls.map(([options]) => options as { name: string; key?: string; id?: string })
    expect(names.filter((o) => o.name === 'conversation.chat.turnTail')).toEqual([])
    expect(slots.entries('conversation.chat.turnTail')).toEqual([])
    expect(names).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'conversation.input.left', id: 'agent-profiles' }),
        expect.objectContaining({ name: 'tool.call.toolview', key: 'memory_save' }),
        expect.objectContaining({ name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, priority: -1 }),
      ]),
    )
  })
})
