/**
 * One row of the memory list: the item (and its search keys, when it has some) with where it came from (source, conversation, time, pinned, archived,
 * suggestion), the draft's mark when the user changed it (edited, added, to be deleted), and edit (text and keys),
 * pin, delete or restore in place. Memoised on its props: typing in the list's add or search box, scrolling, or editing another
 * row never renders it again. Reports changes through `actions` (one object for every row); it never saves.
 */
import { memo, useState, type ReactNode } from 'react'
import { LIMITS, type MemoryItem } from '../../state/model.ts'
import { formatTime } from './feedback.ts'
import { useFromConversation } from './session-titles.tsx'
import { activeLocale, useT, type ApKey } from '../copy/locales.ts'
import { joinKeys } from '../../shared/memory-keys.ts'
import { KeysField, keysError } from './KeysField.tsx'

/** What a row asks of the list's draft; the same object for every row and every render. */
export interface RowActions {
  edit(saved: MemoryItem, change: { text?: string; pinned?: boolean; keys?: string }): void
  remove(item: MemoryItem): void
  restore(id: string): void
}

/** Props of {@link MemoryRow}. */
export interface MemoryRowProps {
  /** The row's place in the list (the virtual list measures rows by it). */
  index: number
  /** Pixels from the list's top. */
  start: number
  /** The item as saved, or as the draft added it; undefined while its page is being fetched. */
  item: MemoryItem | undefined
  /** The draft's version of a saved item the user edited. */
  edit: MemoryItem | undefined
  removed: boolean
  /** Added in the draft (not saved yet). */
  added: boolean
  measure(el: HTMLElement | null): void
  actions: RowActions
  /** A row of another list, shown read-only: one link to where it is edited. */
  readOnly?: { label: string; open(): void }
}

/** The row. */
export const MemoryRow = memo(function MemoryRow({
  index,
  start,
  item,
  edit,
  removed,
  added,
  measure,
  actions,
  readOnly,
}: MemoryRowProps): ReactNode {
  const t = useT()
  const fromConversation = useFromConversation()
  const [editing, setEditing] = useState<string | null>(null)
  const [keys, setKeys] = useState('')
  const style = { transform: `translateY(${start}px)` }
  if (item === undefined) {
    return (
      <li ref={measure} data-index={index} className="ap-memory-item ap-memory-row ap-memory-row-loading" style={style}>
        {t('memory.rowLoading')}
      </li>
    )
  }
  const shown = edit ?? item
  const over = editing !== null && editing.length > LIMITS.memoryItem
  const changed = added || edit !== undefined
  return (
    <li
      ref={measure}
      data-index={index}
      data-item-id={item.id}
      data-draft={removed ? 'removed' : added ? 'added' : edit !== undefined ? 'edited' : undefined}
      className={`ap-memory-item ap-memory-row${removed ? ' ap-memory-removed' : ''}${changed ? ' ap-memory-changed' : ''}`}
      style={style}
    >
      {editing === null ? (
        <div className="ap-memory-text">{removed ? <s>{shown.text}</s> : shown.text}</div>
      ) : (
        <textarea
          className="ap-textarea"
          aria-label={t('memory.edit')}
          value={editing}
          onChange={(e) => {
            setEditing(e.currentTarget.value)
          }}
        />
      )}
      {editing === null ? (
        shown.keys !== undefined &&
        shown.keys !== '' && <div className="ap-hint">{t('memory.keysShown', { keys: shown.keys })}</div>
      ) : (
        <KeysField value={keys} onChange={setKeys} />
      )}
      {over && (
        <div className="ap-error" role="alert">
          {t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: editing.length })}
        </div>
      )}
      <div className="ap-row ap-row-between">
        <div className="ap-memory-meta">
          {removed && <span className="ap-badge ap-badge-warn">{t('memory.willDelete')}</span>}
          {!removed && changed && <span className="ap-badge ap-badge-warn">{t('memory.unsaved')}</span>}
          {shown.pinned === true && <span className="ap-badge ap-badge-accent">📌 {t('memory.pinned')}</span>}
          {item.pending === true && (
            <span className="ap-badge" title={t('suggest.hint')}>
              {t('suggest.badge')}
            </span>
          )}
          {item.archived === true && (
            <span className="ap-badge" title={t('memory.archivedHint')}>
              {t('memory.archived')}
            </span>
          )}
          <span className="ap-badge">{t(`memory.source.${item.source}` as ApKey)}</span>
          {/* Where a fact brought from elsewhere came from ("pasted, ChatGPT") says more than "no conversation". */}
          <span>
            {item.origin ?? (item.sessionId === undefined ? t('memory.noSession') : fromConversation(item.sessionId))}
          </span>
          <time dateTime={new Date(item.at).toISOString()}>{formatTime(activeLocale(), item.at)}</time>
        </div>
        <div className="ap-row">
          {readOnly !== undefined ? (
            <button type="button" className="ap-btn ap-btn-small" onClick={readOnly.open}>
              {readOnly.label}
            </button>
          ) : removed ? (
            <button
              type="button"
              className="ap-btn ap-btn-small"
              onClick={() => {
                actions.restore(item.id)
              }}
            >
              {t('memory.restore')}
            </button>
          ) : (
            <>
              {editing === null ? (
                <button
                  type="button"
                  className="ap-btn ap-btn-small"
                  onClick={() => {
                    setEditing(shown.text)
                    setKeys(shown.keys ?? '')
                  }}
                >
                  {t('memory.edit')}
                </button>
              ) : (
                <button
                  type="button"
                  className="ap-btn ap-btn-small"
                  disabled={over || editing.trim() === '' || keysError(t, keys) !== null}
                  onClick={() => {
                    const joined = joinKeys(keys)
                    // Keys go in the change only when the user changed them: an untouched row sends no empty keys.
                    const keyChange = joined === (shown.keys ?? '') ? {} : { keys: joined }
                    actions.edit(item, { text: editing.trim(), ...keyChange })
                    setEditing(null)
                  }}
                >
                  {t('memory.done')}
                </button>
              )}
              <button
                type="button"
                className="ap-btn ap-btn-small"
                aria-pressed={shown.pinned === true}
                title={t('memory.pinHint')}
                onClick={() => {
                  actions.edit(item, { pinned: shown.pinned !== true })
                }}
              >
                {t(shown.pinned === true ? 'memory.unpin' : 'memory.pin')}
              </button>
              <button
                type="button"
                className="ap-btn ap-btn-small ap-btn-danger"
                onClick={() => {
                  actions.remove(item)
                }}
              >
                {t('memory.delete')}
              </button>
            </>
          )}
        </div>
      </div>
    </li>
  )
})
