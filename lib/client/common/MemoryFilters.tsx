/**
 * The memory list's search box and filters: by layer (this list or another shown read-only beside it), by source,
 * and core or archive. The search box keeps its own text, so typing renders only it; the list hears the query after
 * a pause. It holds no other state (use-memory-list.ts does) and never reads or saves.
 */
import { memo, useEffect, useState, type ReactNode } from 'react'
import { SEARCH_QUERY_CHARS } from '../../shared/wire-replies.ts'
import { MEMORY_SOURCES, type MemoryLayer, type MemorySource } from '../../state/model.ts'
import { useT, type ApKey } from '../copy/locales.ts'
import type { MemoryFilter, OtherLayer } from './use-memory-list.ts'

/** Milliseconds the search waits after the last key before it asks the host. */
const SEARCH_DEBOUNCE_MS = 250

/** The layer filter's name of each memory list. */
export const LAYER_LABEL: Record<MemoryLayer, ApKey> = {
  profile: 'memory.layer.profile',
  user: 'memory.layer.user',
  conversation: 'memory.layer.conversation',
}

/** The search box: its text is its own, so typing renders only it; the list hears the query after a pause. */
const SearchBox = memo(function SearchBox({ onQuery }: { onQuery(q: string): void }): ReactNode {
  const t = useT()
  const [text, setText] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => {
      onQuery(text.trim())
    }, SEARCH_DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
    }
  }, [text, onQuery])
  return (
    <input
      type="search"
      className="ap-input ap-memory-search"
      aria-label={t('memory.search')}
      placeholder={t('memory.search')}
      title={t('memory.searchHint')}
      maxLength={SEARCH_QUERY_CHARS}
      value={text}
      onChange={(e) => {
        setText(e.currentTarget.value)
      }}
    />
  )
})

/** Props of {@link MemoryFilters}. */
export interface MemoryFiltersProps {
  filter: MemoryFilter
  /** This list's layer, the layer filter's first choice. */
  layer: MemoryLayer
  others: readonly OtherLayer[]
}

/** The search box and the filters. */
export function MemoryFilters({ filter, layer, others }: MemoryFiltersProps): ReactNode {
  const t = useT()
  const { source, archived } = filter
  return (
    <div className="ap-row ap-memory-filters">
      <SearchBox onQuery={filter.setQ} />
      {others.length > 0 && (
        <label className="ap-memory-filter">
          <span className="ap-hint">{t('memory.filterLayer')}</span>
          <select
            className="ap-input"
            value={filter.other}
            onChange={(e) => {
              filter.setOther(Number(e.currentTarget.value))
            }}
          >
            <option value={-1}>{t(LAYER_LABEL[layer])}</option>
            {others.map((o, i) => (
              <option key={`${o.layer}:${o.owner ?? ''}`} value={i}>
                {t(LAYER_LABEL[o.layer])}
              </option>
            ))}
          </select>
        </label>
      )}
      <label className="ap-memory-filter">
        <span className="ap-hint">{t('memory.filterSource')}</span>
        <select
          className="ap-input"
          value={source ?? ''}
          onChange={(e) => {
            filter.setSource(e.currentTarget.value === '' ? undefined : (e.currentTarget.value as MemorySource))
          }}
        >
          <option value="">{t('memory.sourceAll')}</option>
          {MEMORY_SOURCES.map((s) => (
            <option key={s} value={s}>
              {t(`memory.source.${s}` as ApKey)}
            </option>
          ))}
        </select>
      </label>
      <label className="ap-memory-filter">
        <span className="ap-hint">{t('memory.filterArchived')}</span>
        <select
          className="ap-input"
          value={archived === undefined ? '' : archived ? '1' : '0'}
          onChange={(e) => {
            const v = e.currentTarget.value
            filter.setArchived(v === '' ? undefined : v === '1')
          }}
        >
          <option value="">{t('memory.archivedAll')}</option>
          <option value="0">{t('memory.archivedCore')}</option>
          <option value="1">{t('memory.archivedOnly')}</option>
        </select>
      </label>
    </div>
  )
}
