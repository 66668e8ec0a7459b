/**
 * The turn head's registration: our `assistant-step` and `user` entries in the host's keyed `conversation.chat.node`
 * slot, which shadow the host's own renderers (registered at a lower priority) and draw the host's component with the
 * very same props plus our head, on the one row of each turn it goes with (see TurnHead.tsx). Owns finding the host's component through the public `entries()` API, waiting
 * for it when it is not there yet, and undoing everything on dispose, which hands the row back to the host.
 * It never rewrites the reply, never registers when the host's renderer cannot be found, and never registers a
 * `conversation.chat.turnTail` copy: a second head at the end of the turn repeated the
 * first, so only the turn head remains.
 */
import { createElement, Fragment, useRef, type ElementType, type ReactNode } from 'react'
import { ApBoundary } from '../common/boundary.tsx'
import { TurnHead, type TurnHeadProps } from './TurnHead.tsx'
import { MentionChips } from './MentionChips.tsx'

/** The host's slot for chat rows, keyed by node kind. */
export const CHAT_NODE_SLOT = 'conversation.chat.node'
/** The node kind of an assistant reply step. */
export const ASSISTANT_STEP = 'assistant-step'
/**
 * The node kind of the user's message, below which the head goes when the model called a tool before it wrote
 * anything. (The tool row itself cannot be shadowed: its renderer needs the child slot only its own entry may declare.)
 */
export const USER_MESSAGE = 'user'
/** The chat rows the head may go with, each shadowed the same way. */
const HEAD_ROWS = [ASSISTANT_STEP, USER_MESSAGE] as const
type HeadRow = (typeof HEAD_ROWS)[number]
/** Below the host's default 0: the lowest priority renders, so our entry wins the cell while it is registered. */
const TURN_HEAD_PRIORITY = -1

/** One ledger entry as `entries()` lists it. */
export interface SlotEntryLike {
  component: unknown
  options: { key?: string; priority?: number }
}

/** Options of our registration. */
interface TurnHeadRegistration {
  name: typeof CHAT_NODE_SLOT
  key: string
  priority: number
  /** The host's renderers read `t` of this namespace; they only get it when the entry declares it. */
  locale: 'conversation'
}

/** The part of the host's slot registry the turn head uses (public methods only). */
export interface TurnHeadSlots {
  entries(key: typeof CHAT_NODE_SLOT): readonly SlotEntryLike[]
  subscribe(key: typeof CHAT_NODE_SLOT, fn: () => void): () => void
  register(options: TurnHeadRegistration, component: HostRowComponent): () => void
  inject(key: typeof CHAT_NODE_SLOT, setup: () => () => void): () => void
}

/** A row component in the chat-node slot: it gets the props the host's renderer of that row kind gets. */
export type HostRowComponent = (props: never) => ReactNode

/** The host's renderer of `key` rows among `entries`: any entry of that key but ours. */
function findHostRenderer(
  entries: readonly SlotEntryLike[],
  ours: unknown,
  key: string = ASSISTANT_STEP,
): SlotEntryLike | undefined {
  return entries.find((e) => e.options.key === key && e.component !== ours && e.component != null)
}

/** The slice of a user row's props the head reads: where in the conversation the message sits. */
interface LocatedNode {
  key: string
  location?: { kind?: string; turn?: { turn?: unknown }; step?: { step?: unknown } }
}

/**
 * The head's props for a row: a reply step's as they are; a user message's with the turn of its location (its data
 * carries no turn), or undefined when it has none (the head is then not drawn).
 */
export function headProps(key: HeadRow, props: TurnHeadProps & Record<string, unknown>): TurnHeadProps | undefined {
  if (key === ASSISTANT_STEP) return props
  const node = props.node as unknown as LocatedNode
  const turn = node.location?.turn?.turn
  if (typeof turn !== 'number') return undefined
  const step = node.location?.step?.step
  // This head asks the turn ledger once; a turn still running shows the profile in effect, which answers it.
  return {
    ...props,
    node: { key: node.key, data: { turn, step: typeof step === 'number' ? step : 0, status: 'settled' } },
  }
}

/**
 * Make the row component: our head inside our error boundary, then the host's renderer outside it, as siblings in a
 * Fragment (no wrapper element, so the host's layout is untouched). `resolve` names the host's renderer at render time.
 */
function makeTurnRow(
  resolve: () => ElementType,
  key: HeadRow = ASSISTANT_STEP,
): (props: TurnHeadProps & Record<string, unknown>) => ReactNode {
  function AgentProfilesTurnRow(props: TurnHeadProps & Record<string, unknown>): ReactNode {
    const head = headProps(key, props)
    const drawn =
      head === undefined
        ? null
        : createElement(ApBoundary, { compact: true, label: 'TurnHead' }, createElement(TurnHead, head))
    // Above a reply step; below a user message (the head then opens the answer that follows it).
    if (key === ASSISTANT_STEP) return createElement(Fragment, null, drawn, createElement(resolve(), props))
    return createElement(UserRow, { props, host: resolve() }, drawn)
  }
  return AgentProfilesTurnRow
}

/**
 * A user message's row: the host's renderer inside a box that takes no part in the layout (`display: contents`), so
 * that its profile mentions can be found and drawn as mentions (MentionChips.tsx), then the head, if any.
 */
function UserRow({
  props,
  host,
  children,
}: {
  props: TurnHeadProps & Record<string, unknown>
  host: ElementType
  children?: ReactNode
}): ReactNode {
  const row = useRef<HTMLDivElement | null>(null)
  const content = (props.node as unknown as { data?: { content?: unknown } }).data?.content
  return createElement(
    Fragment,
    null,
    createElement(
      'div',
      { ref: row, style: { display: 'contents' }, 'data-ap-user-row': '' },
      createElement(host, props),
    ),
    createElement(ApBoundary, { compact: true, label: 'MentionChips' }, createElement(MentionChips, { row, content })),
    children ?? null,
  )
}

/**
 * Install the turn head for as long as the chat-node slot is declared, over each row kind it may head. Takes over
 * the host's renderer of a kind as soon as `entries()` shows it (now, or later through `subscribe`); until then, and
 * if it never appears, registers nothing for that kind. The returned disposer (also run by the host when the slot goes
 * away) unregisters, restoring the host's renderers.
 */
export function installTurnHead(slots: TurnHeadSlots): () => void {
  return slots.inject(CHAT_NODE_SLOT, () => {
    const disposers = HEAD_ROWS.map((key) => shadowHostRow(slots, key, (resolve) => makeTurnRow(resolve, key)))
    return () => {
      for (const dispose of disposers) dispose()
    }
  })
}

/**
 * Shadow the host's renderer of `key` rows with the row `make` builds around it (`resolve` names the host's renderer
 * at render time), once `entries()` shows it, now or later; the disposer hands the row back. Call it while the slot
 * is declared (inside `slots.inject`).
 */
export function shadowHostRow(
  slots: TurnHeadSlots,
  key: string,
  make: (resolve: () => ElementType) => HostRowComponent,
): () => void {
  // Captured when taking over: the row still has a renderer if a later lookup finds none.
  let captured: ElementType | undefined
  let unregister: (() => void) | undefined
  let unsubscribe: (() => void) | undefined
  const Row = make(
    () =>
      (findHostRenderer(slots.entries(CHAT_NODE_SLOT), Row, key)?.component as ElementType | undefined) ?? captured!,
  )

  const takeOver = (): boolean => {
    const host = findHostRenderer(slots.entries(CHAT_NODE_SLOT), Row, key)
    if (host === undefined) return false
    captured = host.component as ElementType
    try {
      unregister = slots.register(
        { name: CHAT_NODE_SLOT, key, priority: TURN_HEAD_PRIORITY, locale: 'conversation' },
        Row,
      )
    } catch (error) {
      // Another entry already holds our priority: leave the row as it is rather than throw into the host.
      console.warn(`agent-profiles: our ${key} row not installed:`, error)
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
}
