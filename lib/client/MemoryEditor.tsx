/**
 * The memory part of the editor: the summary, every item with where it came from (source, conversation, time),
 * add / edit / delete, and a meter of used characters against the compression threshold. Edits go into the
 * draft through `onChange`; it never saves.
 */
import { useState, type ReactNode } from 'react'
import { normalizeMemory } from '../memory-text.ts'
import { LIMITS, memoryChars, type Memory, type MemoryItem } from '../model.ts'
import { formatTime, shortSession } from './feedback.ts'
import { activeLocale, useT, type ApKey } from './locales.ts'

/** Props of {@link MemoryEditor}. */
export interface MemoryEditorProps {
  memory: Memory
  /** Characters above which the background job compresses memory. */
  threshold: number
  onChange(next: Memory): void
}

function newItemId(): string {
  const c = globalThis.crypto
  return `m-${typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`}`
}

/** One memory item with where it came from, editable in place; reports the new text or the deletion. */
export function ItemRow({ item, onSave, onDelete }: { item: MemoryItem; onSave(text: string): void; onDelete(): void }): ReactNode {
  const t = useT()
  const [editing, setEditing] = useState<string | null>(null)
  const over = editing !== null && editing.length > LIMITS.memoryItem
  return (
    <li className="ap-memory-item">
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
          <span className="ap-badge">{t(`memory.source.${item.source}` as ApKey)}</span>
          <span>{item.sessionId === undefined ? t('memory.noSession') : t('memory.from', { session: shortSession(item.sessionId) })}</span>
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
          <button type="button" className="ap-btn ap-btn-small ap-btn-danger" onClick={onDelete}>{t('memory.delete')}</button>
        </div>
      </div>
    </li>
  )
}

/** Summary, items with provenance, add box and meter. */
export function MemoryEditor({ memory, threshold, onChange }: MemoryEditorProps): ReactNode {
  const t = useT()
  const [adding, setAdding] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const used = memoryChars(memory)
  const over = threshold > 0 && used > threshold

  const add = (): void => {
    const text = adding.trim()
    if (text === '') return
    if (text.length > LIMITS.memoryItem) return setProblem(t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: text.length }))
    if (memory.items.length >= LIMITS.memoryItems) return setProblem(t('memory.tooMany', { limit: LIMITS.memoryItems }))
    if (memory.items.some((item) => normalizeMemory(item.text) === normalizeMemory(text))) return setProblem(t('memory.duplicate'))
    onChange({ ...memory, items: [...memory.items, { id: newItemId(), text, source: 'user', at: Date.now() }] })
    setAdding('')
    setProblem(null)
  }

  return (
    <div className="ap-memory">
      <div className="ap-field">
        <label className="ap-field-label">
          <span>{t('field.summary')}</span>
          <span className={`ap-count${memory.summary.length > LIMITS.summary ? ' ap-count-over' : ''}`}>
            {t('hint.count', { count: memory.summary.length, limit: LIMITS.summary })}
          </span>
        </label>
        <textarea
          className="ap-textarea"
          aria-label={t('field.summary')}
          value={memory.summary}
          onChange={(e) => { onChange({ ...memory, summary: e.currentTarget.value }) }}
        />
      </div>
      <div className="ap-field-label">
        <span>{t('field.items')} ({memory.items.length})</span>
      </div>
      <div className={`ap-memory-meter-wrap${over ? ' ap-memory-meter-over' : ''}`}>
        <div
          className="ap-memory-meter"
          role="meter"
          aria-label={t('memory.meter', { used, limit: threshold })}
          aria-valuemin={0}
          aria-valuemax={threshold}
          aria-valuenow={used}
        >
          <div className="ap-memory-meter-fill" style={{ width: `${threshold > 0 ? Math.min(100, (used / threshold) * 100) : 0}%` }} />
        </div>
        <div className="ap-hint">{t('memory.meter', { used, limit: threshold })}</div>
        {over && <div className="ap-hint ap-dirty">{t('memory.over')}</div>}
      </div>
      {memory.items.length === 0
        ? <div className="ap-hint">{t('memory.empty')}</div>
        : (
          <ul className="ap-memory-list">
            {memory.items.map((item) => (
              <ItemRow
                key={item.id}
                item={item}
                onSave={(text) => { onChange({ ...memory, items: memory.items.map((m) => (m.id === item.id ? { ...m, text } : m)) }) }}
                onDelete={() => { onChange({ ...memory, items: memory.items.filter((m) => m.id !== item.id) }) }}
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
          <button type="button" className="ap-btn" disabled={adding.trim() === ''} onClick={add}>{t('memory.add')}</button>
        </div>
      </div>
    </div>
  )
}
