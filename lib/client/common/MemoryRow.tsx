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
        <RowMeta item={item} shown={shown} removed={removed} changed={changed} />
        <RowButtons
          item={item}
          shown={shown}
          removed={removed}
          actions={actions}
          {...(readOnly === undefined ? {} : { readOnly })}
          editing={editing}
          keys={keys}
          over={over}
          onEditing={(text, keysText) => {
            setEditing(text)
            setKeys(keysText)
          }}
        />
      </div>
    </li>
  )
})

/** Where the item came from and what the draft does to it, as badges. */
function RowMeta({
  item,
  shown,
  removed,
  changed,
}: {
  item: MemoryItem
  shown: MemoryItem
  removed: boolean
  changed: boolean
}): ReactNode {
  const t = useT()
  const fromConversation = useFromConversation()
  return (
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
  )
}

/** Props of {@link RowButtons}. */
interface RowButtonsProps extends Pick<MemoryRowProps, 'removed' | 'actions' | 'readOnly'> {
  item: MemoryItem
  /** The draft's version of the item, or the item. */
  shown: MemoryItem
  /** The text being edited in place, or null when the row is not being edited. */
  editing: string | null
  /** The search keys being edited with it. */
  keys: string
  /** The edited text is over its limit. */
  over: boolean
  /** Start (a text) or end (null) editing in place. */
  onEditing(text: string | null, keys: string): void
}

/** The row's actions: the link of a read-only row, restore a deleted one, or edit (then done), pin and delete. */
function RowButtons(props: RowButtonsProps): ReactNode {
  const { item, shown, removed, actions, readOnly, editing, keys, over, onEditing } = props
  const t = useT()
  if (readOnly !== undefined)
    return (
      <div className="ap-row">
        <button type="button" className="ap-btn ap-btn-small" onClick={readOnly.open}>
          {readOnly.label}
        </button>
      </div>
    )
  if (removed)
    return (
      <div className="ap-row">
        <button
          type="button"
          className="ap-btn ap-btn-small"
          onClick={() => {
            actions.restore(item.id)
          }}
        >
          {t('memory.restore')}
        </button>
      </div>
    )
  const done = (text: string): void => {
    const joined = joinKeys(keys)
    // Keys go in the change only when the user changed them: an untouched row sends no empty keys.
    const keyChange = joined === (shown.keys ?? '') ? {} : { keys: joined }
    actions.edit(item, { text: text.trim(), ...keyChange })
    onEditing(null, keys)
  }
  return (
    <div className="ap-row">
      {editing === null ? (
        <button
          type="button"
          className="ap-btn ap-btn-small"
          onClick={() => {
            onEditing(shown.text, shown.keys ?? '')
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
            done(editing)
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
    </div>
  )
}
