/**
 * The facts one memory write added, each with its own undo, plus an undo of the whole write — what the "memory
 * updated" row and the model's `memory_save` row both offer. A fact counts as undone once it is no longer in the
 * list it was written to (read from the saved profile or conversation, so it holds after a reload and across tabs). Undo is
 * `memory.revert` of that write, limited to the fact's id for one fact. Its undo button is the one a compression's
 * row offers too.
 */
import { useEffect, useState, type ReactNode } from 'react'
import type { MemoryItem } from '../../state/model.ts'
import type { MemoryHistoryEntry, MemoryTarget } from '../../shared/memory-target.ts'
import { useApi } from '../data/api.ts'
import type { Snapshot } from '../data/shared-snapshot.ts'
import { useProfile } from '../data/profiles.ts'
import { describeError, noticeText } from '../common/feedback.ts'
import { revertEntry } from '../common/memory-history.ts'
import { useT } from '../copy/locales.ts'
import { SuggestionActions } from '../common/Suggestions.tsx'

/**
 * React hook: the items of the memory list `target` names, as the profile (or the conversation's settings, or the
 * user layer) has them now; undefined while the profile or the user layer is being fetched. A profile the state no longer holds has none.
 */
export function useListItems(snap: Snapshot, target: MemoryTarget): readonly MemoryItem[] | undefined {
  const profile = useProfile('profileId' in target ? target.profileId : undefined)
  if ('user' in target) return snap.user?.items
  if (!('profileId' in target)) return snap.conversations.get(target.sessionId)?.setting?.memories ?? []
  const held = snap.state?.profiles.some((p) => p.id === target.profileId) === true
  return held ? profile?.memory.items : []
}

/** Props of {@link UndoButton}. */
export interface UndoButtonProps {
  /** The write (or the fact) is undone already: "(undone)" stands where the button was. */
  undone: boolean
  busy: boolean
  /** Its accessible name where "Undo" alone would not say what it undoes. */
  label?: string
  /** The fact was a suggestion, and it is gone because the user rejected it: it reads "rejected", not "undone". */
  rejected?: boolean
  onUndo(): Promise<void>
}

/** The undo of one background write or one fact of it, or the word that it is undone (or, for a suggestion, rejected). */
export function UndoButton({ undone, busy, label, onUndo, rejected = false }: UndoButtonProps): ReactNode {
  const t = useT()
  if (undone) return <span className="ap-hint">{` (${t(rejected ? 'updates.rejected' : 'updates.undone')})`}</span>
  return (
    <button
      type="button"
      className="ap-btn ap-btn-small"
      disabled={busy}
      aria-label={label}
      onClick={() => {
        void onUndo()
      }}
    >
      {t('updates.undo')}
    </button>
  )
}

/** Props of {@link FactUndo}. */
export interface FactUndoProps {
  entry: MemoryHistoryEntry
  snap: Snapshot
  /** The conversation the undo is done from, recorded as its cause. */
  sessionId: string
}

/** The added facts as chips with their undo, and "undo all" while any of them is still there. */
export function FactUndo({ entry, snap, sessionId }: FactUndoProps): ReactNode {
  const t = useT()
  const client = useApi()
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const items = useListItems(snap, entry.target)
  const aboutUser = 'user' in entry.target
  // A conversation page holds the user layer only once a fact of it is shown: the state carries only its count.
  useEffect(() => {
    if (aboutUser && snap.user === null) void client.loadUser().catch(() => undefined)
  }, [aboutUser, snap.user, client])
  const current = new Map((items ?? []).map((it) => [it.id, it]))
  const present = new Set(current.keys())
  const live = entry.added.filter((it) => present.has(it.id))
  // Until the list is known, no fact can be shown as kept or undone: the facts show, their undo comes with the list.
  if (items === undefined) {
    return (
      <ul className="ap-facts" aria-busy="true">
        {entry.added.map((it) => (
          <li key={it.id} className="ap-fact" data-ap-fact={it.id} data-loading="true">
            <span>{it.text}</span>
          </li>
        ))}
      </ul>
    )
  }

  const undo = async (itemIds?: string[]): Promise<void> => {
    setBusy(true)
    setProblem(null)
    try {
      const notice = await revertEntry(client, entry, itemIds === undefined ? { sessionId } : { itemIds, sessionId })
      if (notice.key === 'memory.revertNothing') setProblem(noticeText(t, notice))
    } catch (e) {
      setProblem(describeError(t, e))
    } finally {
      setBusy(false)
    }
  }
  // The suggestions still awaiting a decision, decided together: one command per suggestion, in the row's order (a
  // run adds a handful of facts at most), stopping at the first refusal, which the row shows.
  const waiting = entry.added.flatMap((it) => {
    const now = current.get(it.id)
    return now?.pending === true ? [now] : []
  })
  const decideAll = async (approve: boolean): Promise<void> => {
    setBusy(true)
    setProblem(null)
    try {
      for (const it of waiting) {
        await (approve
          ? client.command('memory.approve', { target: entry.target, itemId: it.id, sessionId })
          : client.command('memory.remove', { target: entry.target, itemId: it.id }))
      }
    } catch (e) {
      setProblem(describeError(t, e))
    } finally {
      setBusy(false)
    }
  }
  const kept = live.filter((it) => current.get(it.id)?.pending !== true)

  return (
    <>
      <ul className="ap-facts">
        {entry.added.map((it) => {
          const undone = !present.has(it.id)
          const suggestion = current.get(it.id)
          if (suggestion?.pending === true) {
            return (
              <li
                key={it.id}
                className="ap-fact ap-fact-pending"
                data-ap-fact={it.id}
                data-undone="false"
                data-pending="true"
              >
                <span>{suggestion.text}</span>
                <span className="ap-badge">{t('suggest.badge')}</span>
                <SuggestionActions item={suggestion} target={entry.target} sessionId={sessionId} />
              </li>
            )
          }
          return (
            <li
              key={it.id}
              className={`ap-fact${undone ? ' ap-fact-undone' : ''}`}
              data-ap-fact={it.id}
              data-undone={undone ? 'true' : 'false'}
            >
              {undone ? <s>{it.text}</s> : <span>{it.text}</span>}
              <UndoButton
                undone={undone}
                rejected={undone && it.pending === true}
                busy={busy}
                label={t('updates.undoFact', { text: it.text })}
                onUndo={() => undo([it.id])}
              />
            </li>
          )
        })}
      </ul>
      {waiting.length > 1 && (
        <>
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-primary"
            disabled={busy}
            onClick={() => {
              void decideAll(true)
            }}
          >
            {t('suggest.approveAll')}
          </button>
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-danger"
            disabled={busy}
            onClick={() => {
              void decideAll(false)
            }}
          >
            {t('suggest.rejectAll')}
          </button>
        </>
      )}
      {entry.added.length > 1 && kept.length > 0 && (
        <button
          type="button"
          className="ap-btn ap-btn-small"
          disabled={busy}
          onClick={() => {
            void undo()
          }}
        >
          {t('updates.undoAll')}
        </button>
      )}
      {problem !== null && (
        <div className="ap-error" role="alert">
          {problem}
        </div>
      )}
    </>
  )
}
