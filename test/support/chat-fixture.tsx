/**
 * A stand-in for the host's conversation snapshot as the chat-node renderers read it (`useSession(s => s.chat…)`):
 * nodes by key and the node keys of each turn in order, backed by a real external store so React re-renders the
 * way the host's hook makes it. Only the slice our turn head reads.
 */
import { useSyncExternalStore } from 'react'
import type { ChatLike, ChatNodeLike, TurnHeadProps } from '../../lib/client/conversation/TurnHead.tsx'

/** An assistant step node of `turn`/`step`. */
export function assistantStep(
  turn: number,
  step: number,
  over: Partial<ChatNodeLike> & { status?: string } = {},
): ChatNodeLike & TurnHeadProps['node'] {
  const { status = 'settled', ...rest } = over
  return {
    key: `assistant:${turn}:${step}`,
    kind: 'assistant-step',
    visibility: 'visible',
    ...rest,
    data: { turn, step, status },
  } as ChatNodeLike & TurnHeadProps['node']
}

function chatOf(nodes: readonly ChatNodeLike[]): ChatLike {
  const byKey = new Map(nodes.map((n) => [n.key, n]))
  return {
    nodes: { get: (key) => byKey.get(key) },
    locations: {
      getTurn: (turn) =>
        nodes.filter((n) => n.visibility !== 'hidden' && (n.data as { turn?: number }).turn === turn).map((n) => n.key),
    },
  }
}

/** A live chat: `useSession` for the components, `set` to publish new nodes. */
export function chatSession(initial: readonly ChatNodeLike[]): {
  useSession: TurnHeadProps['useSession']
  set(nodes: readonly ChatNodeLike[]): void
} {
  let snapshot = { chat: chatOf(initial) }
  const listeners = new Set<() => void>()
  const subscribe = (fn: () => void): (() => void) => {
    listeners.add(fn)
    return () => {
      listeners.delete(fn)
    }
  }
  return {
    useSession: (selector) => useSyncExternalStore(subscribe, () => selector(snapshot)),
    set(nodes) {
      snapshot = { chat: chatOf(nodes) }
      for (const fn of [...listeners]) fn()
    },
  }
}
