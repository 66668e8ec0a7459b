/**
 * The turn head's registration: our `assistant-step` entry in the host's keyed `conversation.chat.node` slot, which
 * shadows the host's own renderer (registered at a lower priority) and draws our head followed by the host's
 * component with the very same props. Owns finding the host's component through the public `entries()` API, waiting
 * for it when it is not there yet, and undoing everything on dispose, which hands the row back to the host.
 * It never rewrites the reply, never registers when the host's renderer cannot be found, and never registers a
 * `conversation.chat.turnTail` copy: a second head at the end of the turn repeated the
 * first, so only the turn head remains.
 */
import { createElement, Fragment, type ElementType, type ReactNode } from 'react'
import { ApBoundary } from '../boundary.tsx'
import { TurnHead, type TurnHeadProps } from './TurnHead.tsx'

/** The host's slot for chat rows, keyed by node kind. */
export const CHAT_NODE_SLOT = 'conversation.chat.node'
/** The node kind of an assistant reply step. */
export const ASSISTANT_STEP = 'assistant-step'
/** Below the host's default 0: the lowest priority renders, so our entry wins the cell while it is registered. */
export const TURN_HEAD_PRIORITY = -1

/** One ledger entry as `entries()` lists it. */
export interface SlotEntryLike {
  component: unknown
  options: { key?: string; priority?: number }
}

/** Options of our registration. */
export interface TurnHeadRegistration {
  name: typeof CHAT_NODE_SLOT
  key: typeof ASSISTANT_STEP
  priority: number
  /** The host's renderer reads `t` of this namespace; it only gets it when the entry declares it. */
  locale: 'conversation'
}

/** The part of the host's slot registry the turn head uses (public methods only). */
export interface TurnHeadSlots {
  entries(key: typeof CHAT_NODE_SLOT): readonly SlotEntryLike[]
  subscribe(key: typeof CHAT_NODE_SLOT, fn: () => void): () => void
  register(options: TurnHeadRegistration, component: (props: TurnHeadProps) => ReactNode): () => void
  inject(key: typeof CHAT_NODE_SLOT, setup: () => () => void): () => void
}

/** The host's `assistant-step` renderer among `entries`: any entry of that key but ours. */
export function findHostRenderer(entries: readonly SlotEntryLike[], ours: unknown): ElementType | undefined {
  const found = entries.find((e) => e.options.key === ASSISTANT_STEP && e.component !== ours && e.component != null)
  return found?.component as ElementType | undefined
}

/**
 * Make the row component: our head inside our error boundary, then the host's renderer outside it, as siblings in a
 * Fragment (no wrapper element, so the host's layout is untouched). `resolve` names the host's renderer at render time.
 */
export function makeTurnRow(resolve: () => ElementType): (props: TurnHeadProps) => ReactNode {
  function AgentProfilesTurnRow(props: TurnHeadProps): ReactNode {
    return createElement(
      Fragment,
      null,
      createElement(ApBoundary, { compact: true, label: 'TurnHead' }, createElement(TurnHead, props)),
      createElement(resolve(), props),
    )
  }
  return AgentProfilesTurnRow
}

/**
 * Install the turn head for as long as the chat-node slot is declared. Takes over the host's renderer as soon as
 * `entries()` shows it (now, or later through `subscribe`); until then, and if it never appears, registers nothing.
 * The returned disposer (also run by the host when the slot goes away) unregisters, restoring the host's renderer.
 */
export function installTurnHead(slots: TurnHeadSlots): () => void {
  return slots.inject(CHAT_NODE_SLOT, () => {
    // Captured when taking over: the row still has a renderer if a later lookup finds none.
    let captured: ElementType | undefined
    let unregister: (() => void) | undefined
    let unsubscribe: (() => void) | undefined
    const Row = makeTurnRow(() => findHostRenderer(slots.entries(CHAT_NODE_SLOT), Row) ?? captured!)

    const takeOver = (): boolean => {
      const host = findHostRenderer(slots.entries(CHAT_NODE_SLOT), Row)
      if (host === undefined) return false
      captured = host
      try {
        unregister = slots.register({ name: CHAT_NODE_SLOT, key: ASSISTANT_STEP, priority: TURN_HEAD_PRIORITY, locale: 'conversation' }, Row)
      } catch (error) {
        // Another entry already holds our priority: leave the row as it is rather than throw into the host.
        console.warn('[dsh-agent-profiles] turn head not installed:', error)
      }
      return true
    }

    if (!takeOver()) {
      unsubscribe = slots.subscribe(CHAT_NODE_SLOT, () => {
        if (unregister !== undefined || !takeOver()) return
        unsubscribe?.()
        unsubscribe = undefined
      })
    }
    return () => {
      unsubscribe?.()
      unregister?.()
      unsubscribe = undefined
      unregister = undefined
    }
  })
}
