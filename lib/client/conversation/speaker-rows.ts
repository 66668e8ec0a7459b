/**
 * The rows this plugin adds to a conversation's transcript when several profiles answer — "<name> answers next" and
 * "back to <name>" — in the page's language. The host draws every plugin message as a collapsed context row whose
 * line is the message's logged summary (Chinese, as the log keeps it); our entry in the host's keyed
 * `conversation.chat.node` slot shadows the host's `context` renderer and draws it with the very same props, except
 * that for our rows the summary is worded from its key here (lib/shared/speaker-rows.ts reads which row and whose
 * name). Every other context row, and what the row shows when opened (the text the model read, Chinese by design),
 * is the host's as it was. It never writes anything and never registers when the host's renderer cannot be found.
 */
import { createElement, type ElementType, type ReactNode } from 'react'
import { speakerRowOf, type SpeakerRow } from '../../shared/speaker-rows.ts'
import { useT, type T } from '../copy/locales.ts'
import { CHAT_NODE_SLOT, shadowHostRow, type TurnHeadSlots } from './turn-head.ts'

/** The node kind of a logged context message (a plugin's, the host's instructions, skills, recall…). */
export const CONTEXT_ROW = 'context'

/** The slice of a context row's props this reads: the node's logged source. */
interface ContextRowProps {
  node?: { data?: { source?: unknown } }
}

/** A row's line in the page's language; an unnamed profile is called what the page calls it elsewhere. */
function speakerRowText(t: T, row: SpeakerRow): string {
  const name = row.name.trim() === '' ? t('list.unnamed') : row.name
  return t(row.row === 'next' ? 'speakers.rowNext' : 'speakers.rowBack', { name })
}

/** `props` with the node's summary replaced by `summary` (nothing else of the host's props changes). */
function withSummary(props: ContextRowProps & Record<string, unknown>, summary: string): Record<string, unknown> {
  const node = props.node!
  const data = node.data!
  return { ...props, node: { ...node, data: { ...data, source: { ...(data.source as object), summary } } } }
}

/** Make the row component over the host's renderer (`resolve` names it at render time). */
function makeSpeakerRow(resolve: () => ElementType): (props: ContextRowProps & Record<string, unknown>) => ReactNode {
  function AgentProfilesContextRow(props: ContextRowProps & Record<string, unknown>): ReactNode {
    const t = useT()
    const row = speakerRowOf(props.node?.data?.source)
    return createElement(resolve(), row === undefined ? props : withSummary(props, speakerRowText(t, row)))
  }
  return AgentProfilesContextRow
}

/**
 * Install the row for as long as the chat-node slot is declared: it takes over the host's `context` renderer as soon
 * as `entries()` shows it. The returned disposer (also run by the host when the slot goes away) hands the row back.
 */
export function installSpeakerRows(slots: TurnHeadSlots): () => void {
  return slots.inject(CHAT_NODE_SLOT, () => shadowHostRow(slots, CONTEXT_ROW, makeSpeakerRow))
}
