/**
 * The memory list of the settings page's editors — a profile's memory, About you, and a conversation's own memories in
 * the ⚙ panel — for lists of up to 10,000 items: a search box over the store's index (the search route, asked once
 * the user stops typing), filters by source and by core/archive, the list itself (only the rows on screen are in the
 * page, @tanstack/react-virtual lays them out), and the "add a memory" box that refuses an over-long item, one past
 * the limit and a duplicate of an item loaded (the host drops any other duplicate). The items are read a window at a
 * time (memory-window.ts); the user's changes are the caller's draft (memory-draft.ts), reported through `onDraft`,
 * laid over the rows and kept while the user scrolls or searches. Typing in either box renders neither the list nor
 * its rows. It never saves.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { normalizeMemory } from '../../shared/memory-text.ts'
import { SEARCH_PAGE, SEARCH_QUERY_CHARS } from '../../shared/wire-replies.ts'
import { LIMITS, MEMORY_SOURCES, type MemoryItem, type MemoryLayer, type MemorySource } from '../../state/model.ts'
import { useApi, type ApiClient, type MemoryQuery } from '../data/api.ts'
import { describeError } from './feedback.ts'
import { AddBox } from './AddBox.tsx'
import { addItem, draftSize, editItem, removeItem, removeItems, restoreItem, type MemoryDraft } from './memory-draft.ts'
import { MemoryWindow } from './memory-window.ts'
import { MemoryRow, type RowActions } from './MemoryRow.tsx'
import { useT, type ApKey } from '../copy/locales.ts'

/** Props of {@link MemoryList}. */
export interface MemoryListProps {
  /**
   * The key of the surface the list edits for (`about`, `profile:<id>`, `panel:<sessionId>`): the add box keeps its
   * text under it, so a fact typed and not yet added is a draft the surface asks about (editing.ts `typedText`).
   */
  surface: string
  layer: MemoryLayer
  /** The profile id (`profile`) or session id (`conversation`); absent for the user layer. */
  owner?: string
  /**
   * Anything that changes whenever the list as saved changes (the saved profile, the user layer's reply, the
   * conversation's settings): the list then reads the rows on screen again.
   */
  version: unknown
  draft: MemoryDraft
  onDraft(next: MemoryDraft): void
  /** How many items the list may hold (`LIMITS.memoryItems`, `LIMITS.userItems`, `LIMITS.sessionMemories`). */
  limit: number
  /** The conversation an added item belongs to; absent for a profile's own memory and the user layer. */
  sessionId?: string
  /** The narrow ⚙ panel: small buttons and a shorter list. */
  compact?: boolean
  /**
   * Other memory lists the layer filter offers beside this one (the user layer beside a profile's memory, say): read
   * and searched here, edited where they live, which `open` goes to.
   */
  others?: readonly OtherLayer[]
}

/** A memory list shown read-only in another's layer filter. */
export interface OtherLayer {
  layer: MemoryLayer
  owner?: string
  open(): void
}

const NO_OTHERS: readonly OtherLayer[] = []

/** The layer filter's name of each memory list. */
const LAYER_LABEL: Record<MemoryLayer, ApKey> = {
  profile: 'memory.layer.profile',
  user: 'memory.layer.user',
  conversation: 'memory.layer.conversation',
}

/** Matches "delete all found" takes at most: read in five requests of the route's largest page. */
const BULK_DELETE_MAX = 5 * SEARCH_PAGE.max

/** Milliseconds the search waits after the last key before it asks the host. */
const SEARCH_DEBOUNCE_MS = 250

/** A row's height before it is measured (one line of text and the meta line). */
const ROW_ESTIMATE = 64
/** Pixels between rows. */
const ROW_GAP = 6
/** Rows laid out above and below the screen, so a fast scroll rarely shows a blank. */
const OVERSCAN = 6

/** An id for an item added in the draft; the save sends new items without it (the host assigns one). */
function newItemId(): string {
  const c = globalThis.crypto
  return `m-${typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`}`
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

/** Whether an item added in the draft passes the list's filters (the host filters the saved ones). */
function passes(item: MemoryItem, query: MemoryQuery): boolean {
  if (query.archived === true || (query.source !== undefined && item.source !== query.source)) return false
  const words = query.q.toLowerCase().split(/\s+/).filter(Boolean)
  const text = item.text.toLowerCase()
  return words.every((w) => text.includes(w))
}

/** A window for `query`, standing on `before` while it loads when that one asked the same. */
function renewed(client: ApiClient, before: MemoryWindow | undefined, query: MemoryQuery): MemoryWindow {
  return new MemoryWindow(
    client,
    query,
    before !== undefined && JSON.stringify(before.query) === JSON.stringify(query) ? before : undefined,
  )
}

/** The search box, the filters, the windowed list and the add box. */
export function MemoryList({
  surface,
  layer,
  owner,
  version,
  draft,
  onDraft,
  limit,
  sessionId,
  compact = false,
  others = NO_OTHERS,
}: MemoryListProps): ReactNode {
  const t = useT()
  const client = useApi()
  /** Which of `others` the layer filter shows instead of this list; -1 for this list. */
  const [other, setOther] = useState(-1)
  const shownLayer = others[other]
  const [q, setQ] = useState('')
  const [source, setSource] = useState<MemorySource | undefined>(undefined)
  const [archived, setArchived] = useState<boolean | undefined>(undefined)
  const query = useMemo<MemoryQuery>(() => {
    const list = shownLayer ?? { layer, owner }
    return {
      layer: list.layer,
      ...(list.owner === undefined ? {} : { owner: list.owner }),
      q,
      ...(source === undefined ? {} : { source }),
      ...(archived === undefined ? {} : { archived }),
    }
  }, [shownLayer, layer, owner, q, source, archived])
  const filtered = q !== '' || source !== undefined || archived !== undefined || shownLayer !== undefined

  // The whole list, unfiltered: its count is the header's and the limit's, and it is the list shown without filters
  // (so clearing a search shows the rows already read). Read again when the list as saved changes (`version`).
  // A window read again replaces one of the same query: the old one stands in until its pages arrive (no blink).
  const lastWhole = useRef<MemoryWindow | undefined>(undefined)
  const last = useRef<MemoryWindow | undefined>(undefined)
  const whole = useMemo(
    () => renewed(client, lastWhole.current, { layer, ...(owner === undefined ? {} : { owner }), q: '' }),
    // `version` is in the key on purpose, unread: a change saved elsewhere must read the rows again.
    // oxlint-disable-next-line react-hooks/exhaustive-deps
    [client, layer, owner, version],
  )
  lastWhole.current = whole
  // A filtered window per query, made again with the whole list.
  const pages = useMemo(
    () => (filtered ? renewed(client, last.current, query) : whole),
    [client, query, filtered, whole],
  )
  last.current = pages
  const [, setSeen] = useState(0)
  useEffect(() => {
    const hear = (): void => {
      setSeen((n) => n + 1)
    }
    const a = pages.subscribe(hear)
    const b = whole === pages ? () => {} : whole.subscribe(hear)
    whole.ensure(0, 0)
    return () => {
      a()
      b()
    }
  }, [pages, whole])

  // Rows touch the draft through one stable object, so a change renders only the rows it concerns.
  const latest = useRef({ draft, onDraft })
  latest.current = { draft, onDraft }
  const actions = useMemo<RowActions>(
    () => ({
      edit: (saved, change) => {
        latest.current.onDraft(editItem(latest.current.draft, saved, change))
      },
      remove: (item) => {
        latest.current.onDraft(removeItem(latest.current.draft, item))
      },
      restore: (id) => {
        latest.current.onDraft(restoreItem(latest.current.draft, id))
      },
    }),
    [],
  )

  // Another layer's rows are read-only: one link to where they are edited, in place of the edit buttons.
  const readOnly = useMemo(
    () =>
      shownLayer === undefined
        ? undefined
        : { label: t('memory.editThere', { place: t(LAYER_LABEL[shownLayer.layer]) }), open: shownLayer.open },
    [shownLayer, t],
  )
  const added = useMemo(
    () => (shownLayer === undefined ? draft.added.filter((it) => passes(it, query)) : []),
    [draft.added, query, shownLayer],
  )
  const total = pages.total
  const count = added.length + (total ?? 0)
  const scroll = useRef<HTMLDivElement | null>(null)
  const rowAt = (i: number): MemoryItem | undefined => (i < added.length ? added[i] : pages.at(i - added.length))
  // The rule speaks of the React Compiler, which this half does not use (plain React 18): nothing is memoised for us.
  // oxlint-disable-next-line react/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroll.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: OVERSCAN,
    gap: ROW_GAP,
    getItemKey: (i) => rowAt(i)?.id ?? `row-${i}`,
  })
  const rows = virtualizer.getVirtualItems()
  const first = rows[0]?.index ?? 0
  const lastRow = rows.at(-1)?.index ?? 0
  useEffect(() => {
    pages.ensure(Math.max(0, first - added.length), Math.max(0, lastRow - added.length))
  }, [pages, first, lastRow, added.length])
  // A new search starts at its best match.
  useEffect(() => {
    if (scroll.current !== null) scroll.current.scrollTop = 0
  }, [query])

  const onQuery = useCallback((next: string) => {
    setQ(next)
  }, [])
  const onAdd = useCallback(
    (text: string, keys: string): string | null => {
      const { draft: now, onDraft: report } = latest.current
      if (text === '') return null
      if (text.length > LIMITS.memoryItem)
        return t('memory.itemTooLong', { limit: LIMITS.memoryItem, length: text.length })
      if ((whole.total ?? 0) + now.added.length - now.removed.size >= limit) return t('memory.tooMany', { limit })
      const key = normalizeMemory(text)
      const loaded = [...now.added, ...whole.loaded(), ...pages.loaded()].map((it) => now.edited.get(it.id) ?? it)
      if (loaded.some((it) => !now.removed.has(it.id) && normalizeMemory(it.text) === key)) return t('memory.duplicate')
      const item: MemoryItem = {
        id: newItemId(),
        text,
        source: 'user',
        at: Date.now(),
        ...(keys === '' ? {} : { keys }),
      }
      report(addItem(now, sessionId === undefined ? item : { ...item, sessionId }))
      return null
    },
    [limit, sessionId, t, whole, pages],
  )

  // Every match of the search or filter, marked deleted in the draft (so Discard, or Restore on a row, takes it back).
  const [bulk, setBulk] = useState<'idle' | 'busy'>('idle')
  const [bulkError, setBulkError] = useState<string | null>(null)
  const deleteFound = async (): Promise<void> => {
    setBulk('busy')
    try {
      const found: MemoryItem[] = [...added]
      for (let offset = 0; offset < (total ?? 0); offset += SEARCH_PAGE.max) {
        found.push(...(await client.searchMemory(query, offset, SEARCH_PAGE.max)).items)
      }
      latest.current.onDraft(removeItems(latest.current.draft, found))
    } catch (error) {
      setBulkError(describeError(t, error))
    } finally {
      setBulk('idle')
    }
  }
  const all = (whole.total ?? 0) + draft.added.length
  const failure = pages.error ?? whole.error
  const changes = draftSize(draft)
  return (
    <div className="ap-memory-items">
      <div className="ap-row ap-memory-filters">
        <SearchBox onQuery={onQuery} />
        {others.length > 0 && (
          <label className="ap-memory-filter">
            <span className="ap-hint">{t('memory.filterLayer')}</span>
            <select
              className="ap-input"
              value={other}
              onChange={(e) => {
                setOther(Number(e.currentTarget.value))
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
              setSource(e.currentTarget.value === '' ? undefined : (e.currentTarget.value as MemorySource))
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
              setArchived(v === '' ? undefined : v === '1')
            }}
          >
            <option value="">{t('memory.archivedAll')}</option>
            <option value="0">{t('memory.archivedCore')}</option>
            <option value="1">{t('memory.archivedOnly')}</option>
          </select>
        </label>
      </div>
      <div className="ap-hint ap-memory-count" aria-live="polite">
        {shownLayer === undefined ? t('memory.total', { total: all }) : t(LAYER_LABEL[shownLayer.layer])}
        {filtered && total !== undefined ? ` · ${t('memory.matches', { count })}` : ''}
      </div>
      {filtered && shownLayer === undefined && count > 0 && count <= BULK_DELETE_MAX && (
        <div className="ap-row">
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-danger"
            disabled={bulk === 'busy'}
            onClick={() => {
              setBulkError(null)
              void deleteFound()
            }}
          >
            {t('memory.deleteFound', { count })}
          </button>
          <span className="ap-hint">{t('memory.deleteFoundHint')}</span>
        </div>
      )}
      {bulkError !== null && (
        <div className="ap-error" role="alert">
          {bulkError}
        </div>
      )}
      {changes > 0 && (
        <div className="ap-hint ap-dirty" data-ap-draft-count={changes}>
          {t('memory.draftCount', { count: changes })}
        </div>
      )}
      {failure !== null && (
        <div className="ap-error" role="alert">
          {t('memory.searchFailed', { message: describeError(t, failure) })}
          <button
            type="button"
            className="ap-btn ap-btn-small"
            onClick={() => {
              pages.retry()
              if (whole !== pages) whole.retry()
            }}
          >
            {t('action.retry')}
          </button>
        </div>
      )}
      {total !== undefined && count === 0 && (
        <div className="ap-hint">{filtered ? t('memory.noMatch') : t('memory.empty')}</div>
      )}
      <div ref={scroll} className={`ap-memory-scroll${compact ? ' ap-memory-scroll-compact' : ''}`}>
        <ul className="ap-memory-list ap-memory-window" style={{ height: virtualizer.getTotalSize() }}>
          {rows.map((row) => {
            const item = rowAt(row.index)
            return (
              <MemoryRow
                key={row.key}
                index={row.index}
                start={row.start}
                item={item}
                edit={item === undefined || readOnly !== undefined ? undefined : draft.edited.get(item.id)}
                removed={item !== undefined && readOnly === undefined && draft.removed.has(item.id)}
                added={row.index < added.length}
                measure={virtualizer.measureElement}
                actions={actions}
                {...(readOnly === undefined ? {} : { readOnly })}
              />
            )
          })}
        </ul>
      </div>
      {shownLayer === undefined && <AddBox key={surface} surface={surface} compact={compact} onAdd={onAdd} />}
    </div>
  )
}
