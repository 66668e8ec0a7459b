/**
 * The memory part of the editor: the summary, a meter of the core's characters against the compression threshold,
 * and the items (listed, searched, edited and added by MemoryList, read from the search route). The summary edit goes
 * into the draft through `onChange`, item edits through `onItems`; it never saves.
 */
import { useMemo, type ReactNode } from 'react'
import { LIMITS, memoryChars, type Memory } from '../../state/model.ts'
import { useT } from '../copy/locales.ts'
import { applyDraft, type MemoryDraft } from '../common/memory-draft.ts'
import { MemoryList } from '../common/MemoryList.tsx'
import type { OtherLayer } from '../common/use-memory-list.ts'
import { requestOpen } from '../common/open-requests.ts'
import { profileSurface } from '../common/editing.ts'
import { useKept } from '../data/profiles.ts'
import { wholeRows } from '../common/memory-window.ts'

/** Props of {@link MemoryEditor}. */
export interface MemoryEditorProps {
  /** The profile whose memory this is. */
  profileId: string
  /** The memory as the draft has it: its summary edited, its items the core as saved. */
  memory: Memory
  /** The user's changes to the items. */
  items: MemoryDraft
  /** Changes whenever the profile as saved changes: the list reads its rows again. */
  version: unknown
  /** Characters above which the background job compresses memory. */
  threshold: number
  onChange(next: Memory): void
  onItems(next: MemoryDraft): void
}

/** Summary, items with provenance, add box and meter. */
export function MemoryEditor({
  profileId,
  memory,
  items,
  version,
  threshold,
  onChange,
  onItems,
}: MemoryEditorProps): ReactNode {
  const t = useT()
  // The list's first rows as saved when the page holds them (every item without an archive; with one, the first rows
  // the save's reply brought): the list shows them from there, so a save reads nothing again.
  const kept = useKept(profileId)
  const held = useMemo(() => (kept?.archived === 0 ? wholeRows(kept.profile.memory.items) : kept?.window), [kept])
  // The user layer, searchable beside the profile's own items; edited in About you, one tab away.
  const others = useMemo<OtherLayer[]>(
    () => [
      {
        layer: 'user',
        open: () => {
          requestOpen({ to: 'about-you' })
        },
      },
    ],
    [],
  )
  const used = memoryChars({ summary: memory.summary, items: applyDraft(memory.items, items) })
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
          onChange={(e) => {
            onChange({ ...memory, summary: e.currentTarget.value })
          }}
        />
      </div>
      <div className="ap-field-label">
        <span>{t('field.items')}</span>
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
          <div
            className="ap-memory-meter-fill"
            style={{ width: `${threshold > 0 ? Math.min(100, (used / threshold) * 100) : 0}%` }}
          />
        </div>
        <div className="ap-hint">{t('memory.meter', { used, limit: threshold })}</div>
        {over && <div className="ap-hint ap-dirty">{t('memory.over')}</div>}
      </div>
      <MemoryList
        surface={profileSurface(profileId)}
        layer="profile"
        owner={profileId}
        version={version}
        held={held}
        draft={items}
        onDraft={onItems}
        limit={LIMITS.memoryItems}
        others={others}
      />
    </div>
  )
}
