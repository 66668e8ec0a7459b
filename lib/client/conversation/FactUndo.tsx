/**
 * The facts one memory write added, each with its own undo, plus an undo of the whole write — what the "memory
 * updated" row and the model's `memory_save` row both offer. A fact counts as undone once it is no longer in the
 * list it was written to (read from the saved profile or conversation, so it holds after a reload and across tabs). Undo is
 * `memory.revert` of that write, limited to the fact's id for one fact. Its undo button is the one a compression's
 * row offers too.
 */
import { useEffect, type ReactNode } from 'react'
import type { MemoryItem } from '../../state/model.ts'
import type { MemoryHistoryEntry, MemoryTarget } from '../../shared/memory-target.ts'
import { useApi } from '../data/api.ts'
import type { Snapshot } from '../data/shared-snapshot.ts'
import { useProfile } from '../data/profiles.ts'
import { OutcomeLine } from '../common/Outcome.tsx'
import { useFactUndo } from './use-fact-undo.ts'
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
  const { busy, outcome, undo, decideAll } = useFactUndo(entry, sessionId)
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

  // The suggestions still awaiting a decision, decided together in the row's order, stopping at the first refusal,
  // which the row shows.
  const waiting = entry.added.flatMap((it) => {
    const now = current.get(it.id)
    return now?.pending === true ? [now] : []
  })
  const kept = live.filter((it) => current.get(it.id)?.pending !== true)

  return (
    <>
      <ul className="ap-facts">
        {entry.added.map((it) => (
          <FactChip
            key={it.id}
            fact={it}
            now={current.get(it.id)}
            entry={entry}
            sessionId={sessionId}
            busy={busy}
            onUndo={() => undo([it.id])}
          />
        ))}
      </ul>
      {waiting.length > 1 && (
        <DecideAll
          busy={busy}
          onDecide={(approve) => {
            void decideAll(waiting, approve)
          }}
        />
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
      <OutcomeLine outcome={outcome} />
    </>
  )
}

/** Approve all and reject all, for a write that left more than one suggestion waiting. */
function DecideAll({ busy, onDecide }: { busy: boolean; onDecide(approve: boolean): void }): ReactNode {
  const t = useT()
  return (
    <>
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-primary"
        disabled={busy}
        onClick={() => {
          onDecide(true)
        }}
      >
        {t('suggest.approveAll')}
      </button>
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-danger"
        disabled={busy}
        onClick={() => {
          onDecide(false)
        }}
      >
        {t('suggest.rejectAll')}
      </button>
    </>
  )
}

/** Props of {@link FactChip}. */
interface FactChipProps {
  /** The fact as the write added it. */
  fact: MemoryItem
  /** The fact as its list holds it now; undefined once it is gone (undone or rejected). */
  now: MemoryItem | undefined
  entry: MemoryHistoryEntry
  sessionId: string
  busy: boolean
  onUndo(): Promise<void>
}

/** One added fact: a suggestion with its approve and reject, or a fact with its undo (or the word that it is undone). */
function FactChip({ fact, now, entry, sessionId, busy, onUndo }: FactChipProps): ReactNode {
  const t = useT()
  if (now?.pending === true) {
    return (
      <li className="ap-fact ap-fact-pending" data-ap-fact={fact.id} data-undone="false" data-pending="true">
        <span>{now.text}</span>
        <span className="ap-badge">{t('suggest.badge')}</span>
        <SuggestionActions item={now} target={entry.target} sessionId={sessionId} />
      </li>
    )
  }
  const undone = now === undefined
  return (
    <li
      className={`ap-fact${undone ? ' ap-fact-undone' : ''}`}
      data-ap-fact={fact.id}
      data-undone={undone ? 'true' : 'false'}
    >
      {undone ? <s>{fact.text}</s> : <span>{fact.text}</span>}
      <UndoButton
        undone={undone}
        rejected={undone && fact.pending === true}
        busy={busy}
        label={t('updates.undoFact', { text: fact.text })}
        onUndo={onUndo}
      />
    </li>
  )
}
