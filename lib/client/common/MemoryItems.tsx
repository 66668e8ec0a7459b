/**
 * A list of memory items as both memory editors show it — a profile's memory on the settings page and a
 * conversation's own memories in the ⚙ panel: every item with where it came from (source, conversation, time), edit
 * and delete in place, and the "add a memory" box that refuses an over-long item, one past the limit and a duplicate
 * (by the store's rule, `normalizeMemory`). Changes go to the caller's draft through `onChange`; it never saves.
 */
import { useState, type ReactNode } from 'react'
import { normalizeMemory } from '../../shared/memory-text.ts'
import { LIMITS, type MemoryItem } from '../../shared/model.ts'
import { formatTime } from './feedback.ts'
import { useFromConversation } from './session-titles.tsx'
import { activeLocale, useT, type ApKey } from '../locales.ts'

/** Props of {@link MemoryItems}. */
export interface MemoryItemsProps {
  items: MemoryItem[]
  /** How many items the list may hold (`LIMITS.memoryItems` for a profile, `LIMITS.sessionMemories` for a conversation). */
  limit: number
  /** The conversation an added item belongs to; absent for a profile's own memory. */
  sessionId?: string
  /** The add button in its small size, for the narrow ⚙ panel. */
  compact?: boolean
  /** The items as saved, when the list is a draft: an item new or changed since is marked unsaved. */
  base?: readonly MemoryItem[]
  onChange(items: MemoryItem[]): void
}

/** An id for an item added in the draft; a conversation's save sends new items without it (the host assigns one). */
function newItemId(): string {
  const c = globalThis.crypto
  return `m-${typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`}`
}

/** One memory item with where it came from, editable in place; reports the new text, the pin or the deletion. */
function ItemRow({ item, draft, onSave, onPin, onDelete }: { item: MemoryItem; draft: boolean; onSave(text: string): void; onPin(pinned: boolean): void; onDelete(): void }): ReactNode {
  const t = useT()
  const [editing, setEditing] = useState<string | null>(null)
  const fromConversation = useFromConversation()
  const over = editing !== null && editing.length > LIMITS.memoryItem
  return (
    <li className={`ap-memory-item${draft ? ' ap-memory-item-draft' : ''}`} data-draft={draft ? 'true' : undefined}>
      {editing === null
        ? <div className="ap-memory-text">{item.text}</div>
        : (
          <textarea
            className="ap-textarea"
            aria-label={t('memory.edit')}
            value={editing}
            onChange={(e) => { setEditing(e.currentTarget.value) }}
          />
        )}
      {over && <div className="ap-error" role="alert">{t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: editing.length })}</div>}
      <div className="ap-row ap-row-between">
        <div className="ap-memory-meta">
          {draft && <span className="ap-badge ap-badge-draft">{t('memory.draftMark')}</span>}
          {item.pinned === true && <span className="ap-badge ap-badge-accent">📌 {t('memory.pinned')}</span>}
          {item.pending === true && <span className="ap-badge" title={t('suggest.hint')}>{t('suggest.badge')}</span>}
          <span className="ap-badge">{t(`memory.source.${item.source}` as ApKey)}</span>
          <span>{item.sessionId === undefined ? t('memory.noSession') : fromConversation(item.sessionId)}</span>
          <time dateTime={new Date(item.at).toISOString()}>{formatTime(activeLocale(), item.at)}</time>
        </div>
        <div className="ap-row">
          {editing === null
            ? <button type="button" className="ap-btn ap-btn-small" onClick={() => { setEditing(item.text) }}>{t('memory.edit')}</button>
            : (
              <button
                type="button"
                className="ap-btn ap-btn-small"
                disabled={over || editing.trim() === ''}
                onClick={() => { onSave(editing.trim()); setEditing(null) }}
              >
                {t('memory.done')}
              </button>
            )}
          <button type="button" className="ap-btn ap-btn-small" aria-pressed={item.pinned === true} title={t('memory.pinHint')} onClick={() => { onPin(item.pinned !== true) }}>
            {t(item.pinned === true ? 'memory.unpin' : 'memory.pin')}
          </button>
          <button type="button" className="ap-btn ap-btn-small ap-btn-danger" onClick={onDelete}>{t('memory.delete')}</button>
        </div>
      </div>
    </li>
  )
}

/** The items (or "no items yet") followed by the add box. */
export function MemoryItems({ items, limit, sessionId, compact = false, base, onChange }: MemoryItemsProps): ReactNode {
  const t = useT()
  const saved = new Map((base ?? []).map((it) => [it.id, it]))
  const unsaved = (item: MemoryItem): boolean => {
    if (base === undefined) return false
    const was = saved.get(item.id)
    return was === undefined || was.text !== item.text || (was.pinned === true) !== (item.pinned === true)
  }
  const [adding, setAdding] = useState('')
  const [problem, setProblem] = useState<string | null>(null)

  const add = (): void => {
    const text = adding.trim()
    if (text === '') return
    if (text.length > LIMITS.memoryItem) return setProblem(t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: text.length }))
    if (items.length >= limit) return setProblem(t('memory.tooMany', { limit }))
    if (items.some((item) => normalizeMemory(item.text) === normalizeMemory(text))) return setProblem(t('memory.duplicate'))
    const added: MemoryItem = { id: newItemId(), text, source: 'user', at: Date.now() }
    onChange([...items, sessionId === undefined ? added : { ...added, sessionId }])
    setAdding('')
    setProblem(null)
  }

  return (
    <>
      {items.length === 0
        ? <div className="ap-hint">{t('memory.empty')}</div>
        : (
          <ul className="ap-memory-list">
            {items.map((item) => (
              <ItemRow
                key={item.id}
                item={item}
                draft={unsaved(item)}
                onSave={(text) => { onChange(items.map((m) => (m.id === item.id ? { ...m, text } : m))) }}
                onPin={(pinned) => {
                  onChange(items.map((m) => {
                    if (m.id !== item.id) return m
                    const { pinned: _was, ...rest } = m
                    return pinned ? { ...rest, pinned: true } : rest
                  }))
                }}
                onDelete={() => { onChange(items.filter((m) => m.id !== item.id)) }}
              />
            ))}
          </ul>
        )}
      <div className="ap-field">
        <textarea
          className="ap-textarea"
          aria-label={t('memory.addPlaceholder')}
          placeholder={t('memory.addPlaceholder')}
          value={adding}
          onChange={(e) => { setAdding(e.currentTarget.value); setProblem(null) }}
        />
        {problem !== null && <div className="ap-error" role="alert">{problem}</div>}
        <div className="ap-row">
          <button type="button" className={compact ? 'ap-btn ap-btn-small' : 'ap-btn'} disabled={adding.trim() === ''} onClick={add}>
            {t('memory.add')}
          </button>
        </div>
      </div>
    </>
  )
}
