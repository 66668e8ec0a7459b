/**
 * How a `memory_save` call looks in the conversation (slot `tool.call.toolview`, key `memory_save`): one line,
 * "Remembered: …" with the facts the model saved, instead of the generic tool card, from the logged call and its
 * result (so a replay looks the same). A saved call also offers the undo the "memory updated" row offers (per fact
 * and for the whole save), found in the memory history of its conversation. The tool and its arguments belong to
 * lib/memory/tool.ts.
 */
import type { ReactNode } from 'react'
import { INCOGNITO_LEAD, MEMORY_OFF_MARK, PENDING_LEAD } from '../../shared/memory-save-text.ts'
import type { MemoryHistoryEntry } from '../../shared/memory-target.ts'
import { useApState } from '../data/api.ts'
import { historySignature, useMemoryHistory } from '../common/memory-history.ts'
import { useT } from '../copy/locales.ts'
import { FactUndo, useListItems } from './FactUndo.tsx'

/** The logged call as the host hands it over: running (`argsRaw`) or settled (`kind: 'tool-result'`). */
export interface MemorySaveBlock {
  callId: string
  argsRaw?: string
  kind?: string
  call?: { argsRaw: string } | null
  isError?: boolean
  error?: { code: string }
  content?: readonly { type: string; text?: string }[]
}

/** Props of the tool view the host passes that this view reads. */
export interface MemorySaveViewProps {
  block: MemorySaveBlock
  /** The conversation, passed by the session-scoped seat; without it there is no undo. */
  sessionId?: string
}

/** The four ways a call can look. */
type MemorySaveState = 'running' | 'saved' | 'failed' | 'stopped'

/** The facts and scope the model asked to save; empty while the arguments are still streaming in. */
function memorySaveArgs(argsRaw: string): { facts: string[]; conversationOnly: boolean; aboutUser: boolean } {
  try {
    const args = JSON.parse(argsRaw) as { facts?: unknown; scope?: unknown } | null
    const raw = args?.facts
    // The tool takes a lone string as one fact; show it the same way.
    const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : []
    return {
      facts: list.filter((f): f is string => typeof f === 'string' && f.trim() !== '').map((f) => f.trim()),
      conversationOnly: args?.scope === 'conversation',
      aboutUser: args?.scope === 'user',
    }
  } catch {
    return { facts: [], conversationOnly: false, aboutUser: false }
  }
}

/** Where the call stands. */
function memorySaveState(block: MemorySaveBlock): MemorySaveState {
  if (block.kind === undefined) return 'running'
  if (block.error?.code === 'interrupted') return 'stopped'
  return block.isError === true ? 'failed' : 'saved'
}

/**
 * The sentence the user reads for a refused call. The tool's own text is written for the model ("do not try again")
 * and stays in the transcript as it is; the page says why in the user's words and what they can do about it.
 */
function refusalKey(modelText: string): 'memorySave.refusedIncognito' | 'memorySave.refusedOff' | 'memorySave.refused' {
  if (modelText.includes(INCOGNITO_LEAD)) return 'memorySave.refusedIncognito'
  if (modelText.includes(MEMORY_OFF_MARK)) return 'memorySave.refusedOff'
  return 'memorySave.refused'
}

/** What a saved call's line starts with once its facts are listed below it, by where they went. */
type SavedLead = 'memorySave.savedLead' | 'memorySave.savedHereLead' | 'memorySave.savedAboutYouLead'

/**
 * A saved call whose write is in this conversation's memory history: a lead, then the facts once each with its undo
 * (the facts are not repeated in the lead). A suggestion reads as one only while it still awaits approval.
 */
function SavedEntry({
  entry,
  sessionId,
  lead,
}: {
  entry: MemoryHistoryEntry
  sessionId: string
  lead: SavedLead
}): ReactNode {
  const t = useT()
  const snap = useApState()
  const items = useListItems(snap, entry.target)
  const added = new Set(entry.added.map((it) => it.id))
  const waiting = items?.some((it) => it.pending === true && added.has(it.id)) === true
  return (
    <>
      <span className="ap-memory-save-text">{t(waiting ? 'memorySave.suggestedLead' : lead)}</span>
      <div className="ap-memory-save-undo">
        <FactUndo entry={entry} snap={snap} sessionId={sessionId} />
      </div>
    </>
  )
}

/** A saved call: with its write found in the history (the newest `tool` write that added one of `facts`), the facts with their undo; until then, or without it, the one line. */
function Saved({
  sessionId,
  facts,
  lead,
  line,
}: {
  sessionId: string
  facts: readonly string[]
  lead: SavedLead
  line: string
}): ReactNode {
  const snap = useApState()
  const query = { sessionId }
  const { entries } = useMemoryHistory(query, historySignature(snap, query))
  const entry = entries?.find((e) => e.who === 'tool' && e.added.some((it) => facts.includes(it.text)))
  if (entry === undefined) return <span className="ap-memory-save-text">{line}</span>
  return <SavedEntry entry={entry} sessionId={sessionId} lead={lead} />
}

/** One line per call: what is being remembered, was remembered, or why it was not. */
export function MemorySaveView({ block, sessionId }: MemorySaveViewProps): ReactNode {
  const t = useT()
  const state = memorySaveState(block)
  const { facts, conversationOnly, aboutUser } = memorySaveArgs(
    (block.kind === undefined ? block.argsRaw : block.call?.argsRaw) ?? '',
  )
  const text = facts.join(' · ')
  let line: string
  let lead: SavedLead = 'memorySave.savedLead'
  switch (state) {
    case 'running':
      line = t('memorySave.running', { text })
      break
    case 'saved':
      line =
        block.content?.some((c) => c.text?.startsWith(PENDING_LEAD) === true) === true
          ? t('memorySave.suggested', { text })
          : t(conversationOnly ? 'memorySave.savedHere' : aboutUser ? 'memorySave.savedAboutYou' : 'memorySave.saved', {
              text,
            })
      lead = conversationOnly
        ? 'memorySave.savedHereLead'
        : aboutUser
          ? 'memorySave.savedAboutYouLead'
          : 'memorySave.savedLead'
      break
    case 'stopped':
      line = t('memorySave.stopped', { text })
      break
    case 'failed':
      line = t(refusalKey(block.content?.find((c) => c.type === 'text')?.text ?? ''))
      break
  }
  return (
    <div
      className={`ap-root ap-memory-save${state === 'failed' ? ' ap-memory-save-error' : ''}`}
      data-ap-memory-save={state}
    >
      <span aria-hidden="true">🧠</span>
      {state === 'saved' && sessionId !== undefined && facts.length > 0 ? (
        <Saved sessionId={sessionId} facts={facts} lead={lead} line={line} />
      ) : (
        <span className="ap-memory-save-text">{line}</span>
      )}
    </div>
  )
}
