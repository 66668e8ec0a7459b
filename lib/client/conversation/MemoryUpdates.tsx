/**
 * "Memory updated" in the conversation that caused it (slot `conversation.input.dock`, the full-width row above the
 * composer): the latest background writes this conversation caused — the facts an extraction added, each with its
 * undo and an undo of the whole run, or what a compression did with its sizes before and after and its undo. Part of
 * the page, not of the transcript: the model never reads it. Read from the memory history (so it is still there after
 * a reload); dismissing a row hides it in this browser only.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { MemoryHistoryEntry } from '../../shared/memory-target.ts'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi, useApState, useConversation } from '../data/api.ts'
import { noticeText } from '../common/feedback.ts'
import { useAction } from '../common/use-action.ts'
import { historySignature, revertEntry, useMemoryHistory } from '../common/memory-history.ts'
import { useT } from '../copy/locales.ts'
import { liveChannelOf, useLive } from '../data/live.ts'
import { FactUndo, UndoButton } from './FactUndo.tsx'

/** Props the dock seat passes that the row reads: the conversation, and its snapshot (its completed turns). */
export interface MemoryUpdatesProps {
  sessionId: string
  session?: { turnEnds?: ReadonlyMap<number, number> }
}

/**
 * When to look at the state again after a turn ends (ms), on a page without the push channel, where background writes
 * reach the page only with the next state it loads: the extraction starts a second after the turn and waits for a
 * model call; a compression may follow. With the channel open the writes arrive as change events and no look is made.
 * On a turn that triggers the extraction the looks go on for a minute; after any other turn two suffice (a tool save
 * may start a compression).
 */
const AFTER_EXTRACTING_TURN = [1500, 4000, 8000, 15_000, 30_000, 60_000]
const AFTER_TURN = [1500, 4000]

/** Rows shown at most: the newest background writes. */
const SHOWN = 3

/** Dismissed entry ids kept in this browser, at most this many (the oldest go first). */
const DISMISSED_KEPT = 200
const DISMISSED_KEY = 'dsh-agent-profiles:dismissed-updates'

function readDismissed(): string[] {
  try {
    const raw: unknown = JSON.parse(globalThis.localStorage?.getItem(DISMISSED_KEY) ?? '[]')
    return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []
  } catch {
    return []
  }
}

function saveDismissed(ids: string[]): void {
  try {
    globalThis.localStorage?.setItem(DISMISSED_KEY, JSON.stringify(ids.slice(-DISMISSED_KEPT)))
  } catch {
    // A browser that refuses storage forgets the dismissal at the next reload; nothing else is lost.
  }
}

const chars = (texts: readonly { text: string }[], summary: string) =>
  texts.reduce((n, it) => n + it.text.length, summary.length)

function nameOf(state: WireState | null, entry: MemoryHistoryEntry, t: ReturnType<typeof useT>): string {
  if ('user' in entry.target) return t('about.items')
  if (!('profileId' in entry.target)) return t('panel.memories')
  const id = entry.target.profileId
  const p = state?.profiles.find((x) => x.id === id)
  return p === undefined || p.name.trim() === '' ? t('list.unnamed') : p.name
}

/** What one compression did, with its undo. */
function Compression({
  entry,
  state,
  sessionId,
}: {
  entry: MemoryHistoryEntry
  state: WireState | null
  sessionId: string
}): ReactNode {
  const t = useT()
  const client = useApi()
  const { busy, outcome, run } = useAction()
  const undo = (): Promise<void> => run(async () => noticeText(t, await revertEntry(client, entry, { sessionId })))
  // What left the core: items the compression dropped, and items it archived (kept, searchable, out of the prompt).
  const archived = entry.edited
    .filter((e) => e.after.archived === true && e.before.archived !== true)
    .map((e) => e.before)
  const left = [...entry.removed, ...archived]
  return (
    <>
      <span>{`${t('updates.compressed', {
        name: nameOf(state, entry, t),
        beforeItems: left.length,
        beforeChars: chars(left, entry.summary?.before ?? ''),
        afterItems: entry.added.length,
        afterChars: chars(entry.added, entry.summary?.after ?? ''),
      })}${archived.length > 0 ? t('updates.archived', { count: archived.length }) : ''}`}</span>
      <UndoButton undone={entry.revertedBy !== undefined} busy={busy} onUndo={undo} />
      {outcome !== null && (
        <span className="ap-hint" role="status">
          {outcome.text}
        </span>
      )}
    </>
  )
}

/** The rows, or nothing when this conversation caused no background write (or every one was dismissed). */
export function MemoryUpdates({ sessionId, session }: MemoryUpdatesProps): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  // Its own memories' undo reads them from the conversation's settings, loaded (and kept fresh) by this.
  useConversation(sessionId)
  useLive()
  const turns = session?.turnEnds?.size ?? 0
  const every = snap.meta?.memoryJob?.everyTurns ?? 1
  useEffect(() => {
    if (turns === 0 || liveChannelOf(client)?.mode === 'live') return
    const timers = (turns % every === 0 ? AFTER_EXTRACTING_TURN : AFTER_TURN).map((ms) =>
      setTimeout(() => {
        void client.refresh()
      }, ms),
    )
    return () => {
      for (const timer of timers) clearTimeout(timer)
    }
  }, [client, turns, every])
  const query = { sessionId }
  const { entries } = useMemoryHistory(query, historySignature(snap, query))
  const [dismissed, setDismissed] = useState<string[]>(readDismissed)
  const rows = (entries ?? [])
    .filter((e) => (e.who === 'auto' || e.who === 'compress') && !dismissed.includes(e.id))
    .slice(0, SHOWN)
  if (rows.length === 0) return null
  const dismiss = (entryId: string): void => {
    const next = [...readDismissed().filter((x) => x !== entryId), entryId]
    saveDismissed(next)
    setDismissed(next)
  }
  return (
    <section className="ap-root ap-updates" aria-label={t('updates.label')} data-ap-memory-updates="">
      {rows.map((entry) => (
        <div key={entry.id} className="ap-update" data-ap-update={entry.id} data-who={entry.who}>
          <span aria-hidden="true">🧠</span>
          <div className="ap-update-body">
            {entry.who === 'compress' ? (
              <Compression entry={entry} state={snap.state} sessionId={sessionId} />
            ) : (
              <>
                <span>{t('updates.added', { name: nameOf(snap.state, entry, t) })}</span>
                <FactUndo entry={entry} snap={snap} sessionId={sessionId} />
              </>
            )}
          </div>
          <button
            type="button"
            className="ap-btn ap-btn-small"
            aria-label={t('updates.dismiss')}
            title={t('updates.dismiss')}
            onClick={() => {
              dismiss(entry.id)
            }}
          >
            ✕
          </button>
        </div>
      ))}
    </section>
  )
}
