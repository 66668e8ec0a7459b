/**
 * The memory part of the editor: the summary, a meter of used characters against the compression threshold, and
 * the items (shown, edited and added by MemoryItems). Edits go into the draft through `onChange`; it never saves.
 */
import type { ReactNode } from 'react'
import { LIMITS, memoryChars, type Memory, type MemoryItem } from '../../shared/model.ts'
import { useT } from '../locales.ts'
import { MemoryItems } from '../common/MemoryItems.tsx'

/** Props of {@link MemoryEditor}. */
export interface MemoryEditorProps {
  memory: Memory
  /** Characters above which the background job compresses memory. */
  threshold: number
  /** The items as saved while a draft is open (its changed items are marked unsaved). */
  savedItems?: readonly MemoryItem[]
  onChange(next: Memory): void
}

/** Summary, items with provenance, add box and meter. */
export function MemoryEditor({ memory, threshold, savedItems, onChange }: MemoryEditorProps): ReactNode {
  const t = useT()
  const used = memoryChars(memory)
  const over = threshold > 0 && used > threshold

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
      <MemoryItems items={memory.items} limit={LIMITS.memoryItems} {...(savedItems === undefined ? {} : { base: savedItems })} onChange={(items) => { onChange({ ...memory, items }) }} />
    </div>
  )
}
