/**
 * Suggestions under ask-first mode: facts the model's tool, the background job or a learning run brought, not injected
 * until the user approves them. Approve, edit then approve, or reject (remove) each one — on the settings page, in the
 * ⚙ panel and in the "memory updated" row — or tick several and approve or dismiss them together (SuggestionPicker.tsx,
 * one `memory.decide`). Sends its commands at once (`memory.approve`, `memory.remove`); a suggestion is never part of
 * an editor's draft decision.
 */
import { useState, type ReactNode } from 'react'
import { LIMITS, type MemoryItem } from '../../state/model.ts'
import type { MemoryTarget } from '../../shared/memory-target.ts'
import { useApi } from '../data/api.ts'
import { useT } from '../copy/locales.ts'
import { useAction } from './use-action.ts'
import { useSuggestionPicks } from './use-suggestion-picks.ts'
import { SuggestionBulk, SuggestionTick } from './SuggestionPicker.tsx'

/** Props of {@link SuggestionActions}. */
export interface SuggestionActionsProps {
  item: MemoryItem
  target: MemoryTarget
  /** The conversation the decision is made from, recorded in the history. */
  sessionId?: string
}

/** Approve, edit and reject for one suggestion. */
export function SuggestionActions({ item, target, sessionId }: SuggestionActionsProps): ReactNode {
  const t = useT()
  const client = useApi()
  const [editing, setEditing] = useState<string | null>(null)
  const { busy, outcome, run } = useAction()
  const from = sessionId === undefined ? {} : { sessionId }
  // Says nothing on success: the suggestion leaves the list, which is the answer.
  const send = (command: () => Promise<unknown>): Promise<void> =>
    run(async () => {
      await command()
      setEditing(null)
    })
  const over = editing !== null && editing.length > LIMITS.memoryItem
  return (
    <span className="ap-suggestion-actions">
      {editing !== null && (
        <textarea
          className="ap-textarea"
          aria-label={t('suggest.editLabel')}
          value={editing}
          onChange={(e) => {
            setEditing(e.currentTarget.value)
          }}
        />
      )}
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-primary"
        disabled={busy || over || (editing !== null && editing.trim() === '')}
        aria-label={t('suggest.approveFact', { text: item.text })}
        onClick={() => {
          void send(() =>
            client.command('memory.approve', {
              target,
              itemId: item.id,
              ...(editing === null ? {} : { text: editing.trim() }),
              ...from,
            }),
          )
        }}
      >
        {t('suggest.approve')}
      </button>
      {editing === null && (
        <button
          type="button"
          className="ap-btn ap-btn-small"
          disabled={busy}
          aria-label={t('suggest.editFact', { text: item.text })}
          onClick={() => {
            setEditing(item.text)
          }}
        >
          {t('suggest.edit')}
        </button>
      )}
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-danger"
        disabled={busy}
        aria-label={t('suggest.rejectFact', { text: item.text })}
        onClick={() => {
          void send(() => client.command('memory.remove', { target, itemId: item.id }))
        }}
      >
        {t('suggest.reject')}
      </button>
      {over && (
        <span className="ap-error" role="alert">
          {t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: editing.length })}
        </span>
      )}
      {outcome !== null && (
        <span className="ap-error" role="alert">
          {outcome.text}
        </span>
      )}
    </span>
  )
}

/** Props of {@link Suggestions}. */
export interface SuggestionsProps {
  target: MemoryTarget
  /** The list's items; only the suggestions among them are shown. */
  items: readonly MemoryItem[]
  sessionId?: string
}

/** The suggestions of one list awaiting approval, or nothing when there are none. */
export function Suggestions({ target, items, sessionId }: SuggestionsProps): ReactNode {
  const t = useT()
  const pending = items.filter((it) => it.pending === true)
  const picks = useSuggestionPicks(target, pending, sessionId)
  if (pending.length === 0) return null
  return (
    <section className="ap-suggestions" aria-label={t('suggest.title', { count: pending.length })}>
      <div className="ap-field-label">{t('suggest.title', { count: pending.length })}</div>
      {pending.length > 1 && <SuggestionBulk picks={picks} total={pending.length} />}
      <ul className="ap-memory-list">
        {pending.map((it) => {
          const replaced = it.replaces === undefined ? undefined : items.find((other) => other.id === it.replaces)
          return (
            <li key={it.id} className="ap-memory-item" data-ap-suggestion={it.id}>
              <div className="ap-suggestion-head">
                {pending.length > 1 && <SuggestionTick item={it} picks={picks} />}
                <div className="ap-memory-text">{it.text}</div>
              </div>
              {it.origin !== undefined && (
                <div className="ap-hint" data-ap-origin>
                  {it.origin}
                </div>
              )}
              {replaced !== undefined && (
                <div className="ap-hint" data-ap-replaces={replaced.id}>
                  {t('suggest.replaces', { text: replaced.text })}
                </div>
              )}
              <SuggestionActions item={it} target={target} {...(sessionId === undefined ? {} : { sessionId })} />
            </li>
          )
        })}
      </ul>
    </section>
  )
}
