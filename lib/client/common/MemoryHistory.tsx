/**
 * The history of one memory list — a profile's memory on the settings page, a conversation's own memories in the ⚙
 * panel: every recorded write, newest first, with who made it, when, from which conversation and what it changed,
 * and a revert per entry (a new write that undoes exactly that change where it still applies). Reads through
 * memory-history.ts; it never edits a draft.
 */
import { useState, type ReactNode } from 'react'
import type { MemoryHistoryEntry, MemoryTarget } from '../../shared/memory-target.ts'
import { useApi, useApState } from '../data/api.ts'
import { activeLocale, useT, type ApKey } from '../copy/locales.ts'
import { describeError, formatTime, noticeText } from './feedback.ts'
import { useFromConversation } from './session-titles.tsx'
import { historySignature, revertEntry, useHasHistory, useMemoryHistory } from './memory-history.ts'
import { OutcomeLine } from './Outcome.tsx'
import { useAction } from './use-action.ts'

/** Props of {@link MemoryHistory}. */
export interface MemoryHistoryProps {
  target: MemoryTarget
  /** Set while the list has unsaved edits: a revert would then be overwritten by the draft's save. */
  disabled?: boolean
}

/** Entries shown before "show older". */
const PAGE = 10

/** What one entry changed, one line per item. */
function Changes({ entry }: { entry: MemoryHistoryEntry }): ReactNode {
  const t = useT()
  return (
    <ul className="ap-history-changes">
      {entry.added.map((it) => (
        <li key={`a${it.id}`} className="ap-history-added">
          <span className="ap-badge">{t('history.added')}</span> {it.text}
        </li>
      ))}
      {entry.removed.map((it) => (
        <li key={`r${it.id}`} className="ap-history-removed">
          <span className="ap-badge">{t('history.removed')}</span> <s>{it.text}</s>
        </li>
      ))}
      {entry.edited.map((e) => (
        <li key={`e${e.after.id}`}>
          <span className="ap-badge">{t('history.edited')}</span>{' '}
          {e.before.text === e.after.text ? e.after.text : `${e.before.text} → ${e.after.text}`}
          {e.before.pinned !== e.after.pinned && (
            <span className="ap-hint">
              {' '}
              ({e.after.pinned === true ? '📌 ' : ''}
              {t('history.pinned')})
            </span>
          )}
        </li>
      ))}
      {entry.summary !== undefined && (
        <li>{t('history.summary', { before: entry.summary.before.length, after: entry.summary.after.length })}</li>
      )}
    </ul>
  )
}

/**
 * Folded under its title until opened (a `<details>`, so the keyboard opens it too): only then is the history read.
 * A list with no recorded write has no title at all: an empty heading that opens on "no changes yet" is a question
 * with nothing behind it; the title comes with the first saved change.
 */
export function MemoryHistory(props: MemoryHistoryProps): ReactNode {
  const t = useT()
  const [open, setOpen] = useState(false)
  if (useHasHistory(props.target) === false) return null
  return (
    <details
      className="ap-history"
      onToggle={(e) => {
        setOpen(e.currentTarget.open)
      }}
    >
      <summary className="ap-field-label">{t('history.title')}</summary>
      {open && <HistoryList {...props} />}
    </details>
  )
}

/** The list with its revert buttons. */
function HistoryList({ target, disabled = false }: MemoryHistoryProps): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  const query = { target }
  const { entries, error } = useMemoryHistory(query, historySignature(snap, query))
  const fromConversation = useFromConversation()
  const [shown, setShown] = useState(PAGE)
  const { busy, outcome, run } = useAction()
  const revert = (entry: MemoryHistoryEntry): Promise<void> =>
    run(async () => noticeText(t, await revertEntry(client, entry)))

  return (
    <section aria-label={t('history.title')}>
      <div className="ap-hint">
        {t('history.hint')} {t('history.revertNow')}
      </div>
      {disabled && (
        <div className="ap-hint" data-ap-history-blocked="">
          {t('history.blockedByDraft')}
        </div>
      )}
      {error !== null && (
        <div className="ap-error" role="alert">
          {t('history.loadFailed', { message: describeError(t, error) })}
        </div>
      )}
      <OutcomeLine outcome={outcome} />
      {entries !== null && entries.length === 0 && <div className="ap-hint">{t('history.empty')}</div>}
      {entries !== null && entries.length > 0 && (
        <ol className="ap-history-list">
          {entries.slice(0, shown).map((entry) => (
            <li key={entry.id} className="ap-history-entry" data-history-id={entry.id} data-who={entry.who}>
              <div className="ap-row ap-row-between">
                <div className="ap-memory-meta">
                  <span className="ap-badge">{t(`history.who.${entry.who}` as ApKey)}</span>
                  <time dateTime={new Date(entry.at).toISOString()}>{formatTime(activeLocale(), entry.at)}</time>
                  {entry.sessionId !== undefined && <span>{fromConversation(entry.sessionId)}</span>}
                  {entry.revertedBy !== undefined && <span className="ap-badge">{t('history.reverted')}</span>}
                </div>
                {/* Acts at once, unlike the draft around it: marked so, and named after its entry for a screen reader. */}
                <button
                  type="button"
                  className="ap-btn ap-btn-small ap-btn-now"
                  disabled={disabled || busy}
                  aria-label={t('history.revertNamed', {
                    who: t(`history.who.${entry.who}` as ApKey),
                    time: formatTime(activeLocale(), entry.at),
                  })}
                  title={t('history.revertNow')}
                  onClick={() => {
                    void revert(entry)
                  }}
                >
                  ⚡ {t('history.revert')}
                </button>
              </div>
              <Changes entry={entry} />
            </li>
          ))}
        </ol>
      )}
      {entries !== null && entries.length > shown && (
        <button
          type="button"
          className="ap-btn ap-btn-small"
          onClick={() => {
            setShown(shown + PAGE)
          }}
        >
          {t('history.more', { count: entries.length - shown })}
        </button>
      )}
    </section>
  )
}
