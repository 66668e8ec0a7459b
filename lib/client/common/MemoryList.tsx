/**
 * The memory list of the settings page's editors — a profile's memory, About you, and a conversation's own memories in
 * the ⚙ panel — for lists of up to 10,000 items: a search box over the store's index (the search route, asked once
 * the user stops typing), filters by source and by core/archive, the list itself (only the rows on screen are in the
 * page, @tanstack/react-virtual lays them out), and the "add a memory" box that refuses an over-long item, one past
 * the limit and a duplicate of an item loaded (the host drops any other duplicate). The items are read a window at a
 * time (memory-window.ts); the user's changes are the caller's draft (memory-draft.ts), reported through `onDraft`,
 * laid over the rows and kept while the user scrolls or searches. Typing in either box renders neither the list nor
 * its rows. It never saves. Its query, windows and draft edits are use-memory-list.ts's, the search box and filters
 * MemoryFilters.tsx's.
 */
import { useEffect, useMemo, useRef, type ReactNode } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { SEARCH_PAGE } from '../../shared/wire-replies.ts'
import type { MemoryItem, MemoryLayer } from '../../state/model.ts'
import { useApi, type MemoryQuery } from '../data/api.ts'
import { describeError } from './feedback.ts'
import { AddBox } from './AddBox.tsx'
import { draftSize, removeItems, type MemoryDraft } from './memory-draft.ts'
import type { HeldRows, MemoryWindow } from './memory-window.ts'
import { MemoryRow, type RowActions } from './MemoryRow.tsx'
import { LAYER_LABEL, MemoryFilters } from './MemoryFilters.tsx'
import { useAction } from './use-action.ts'
import { useDraftEdits, useMemoryFilter, useMemoryWindows, type OtherLayer } from './use-memory-list.ts'
import { useT } from '../copy/locales.ts'

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
  /**
   * The list's first rows as saved, when the caller holds them (About you: the layer's reply brings it whole; a
   * profile's memory: its core without an archive, a save's reply's first rows with one): shown from here, with no
   * request to the search route for them, and so again after a save, whose reply brings them.
   */
  held?: HeldRows
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

const NO_OTHERS: readonly OtherLayer[] = []

/** Matches "delete all found" takes at most: read in five requests of the route's largest page. */
const BULK_DELETE_MAX = 5 * SEARCH_PAGE.max

/** A row's height before it is measured (one line of text and the meta line). */
const ROW_ESTIMATE = 64
/** Pixels between rows. */
const ROW_GAP = 6
/** Rows laid out above and below the screen, so a fast scroll rarely shows a blank. */
const OVERSCAN = 6

/** Whether an item added in the draft passes the list's filters (the host filters the saved ones). */
function passes(item: MemoryItem, query: MemoryQuery): boolean {
  if (query.archived === true || (query.source !== undefined && item.source !== query.source)) return false
  const words = query.q.toLowerCase().split(/\s+/).filter(Boolean)
  const text = item.text.toLowerCase()
  return words.every((w) => text.includes(w))
}

/** The search box, the filters, the windowed list and the add box. */
export function MemoryList(props: MemoryListProps): ReactNode {
  const { surface, layer, owner, draft, compact = false, others = NO_OTHERS } = props
  const t = useT()
  const client = useApi()
  const filter = useMemoryFilter(layer, owner, others)
  const { shownLayer, query, filtered } = filter
  const { whole, pages } = useMemoryWindows(client, { layer, owner, version: props.version, held: props.held }, filter)
  const { actions, onAdd, latest } = useDraftEdits({ ...props, whole, pages, sessionId: props.sessionId })
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

  // Every match of the search or filter, marked deleted in the draft (so Discard, or Restore on a row, takes it back).
  const bulk = useAction()
  const deleteFound = (): Promise<void> =>
    bulk.run(async () => {
      const found: MemoryItem[] = [...added]
      for (let offset = 0; offset < (total ?? 0); offset += SEARCH_PAGE.max) {
        found.push(...(await client.searchMemory(query, offset, SEARCH_PAGE.max)).items)
      }
      latest.current.onDraft(removeItems(latest.current.draft, found))
    })
  const all = (whole.total ?? 0) + draft.added.length
  return (
    <div className="ap-memory-items">
      <MemoryFilters filter={filter} layer={layer} others={others} />
      <div className="ap-hint ap-memory-count" aria-live="polite">
        {shownLayer === undefined ? t('memory.total', { total: all }) : t(LAYER_LABEL[shownLayer.layer])}
        {filtered && total !== undefined ? ` · ${t('memory.matches', { count })}` : ''}
      </div>
      {filtered && shownLayer === undefined && count > 0 && count <= BULK_DELETE_MAX && (
        <div className="ap-row">
          <button
            type="button"
            className="ap-btn ap-btn-small ap-btn-danger"
            disabled={bulk.busy}
            onClick={() => {
              void deleteFound()
            }}
          >
            {t('memory.deleteFound', { count })}
          </button>
          <span className="ap-hint">{t('memory.deleteFoundHint')}</span>
        </div>
      )}
      {bulk.outcome !== null && (
        <div className="ap-error" role="alert">
          {bulk.outcome.text}
        </div>
      )}
      <ListState
        draft={draft}
        whole={whole}
        pages={pages}
        empty={total !== undefined && count === 0}
        filtered={filtered}
      />
      <MemoryRows {...{ pages, added, draft, actions, readOnly, compact, query }} />
      {shownLayer === undefined && <AddBox key={surface} surface={surface} compact={compact} onAdd={onAdd} />}
    </div>
  )
}

/** Props of {@link ListState}. */
interface ListStateProps {
  draft: MemoryDraft
  whole: MemoryWindow
  pages: MemoryWindow
  /** The read is done and nothing is shown. */
  empty: boolean
  filtered: boolean
}

/** How many changes the draft holds, why the rows could not be read (with a retry), or that there are none. */
function ListState({ draft, whole, pages, empty, filtered }: ListStateProps): ReactNode {
  const t = useT()
  const failure = pages.error ?? whole.error
  const changes = draftSize(draft)
  return (
    <>
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
      {empty && <div className="ap-hint">{filtered ? t('memory.noMatch') : t('memory.empty')}</div>}
    </>
  )
}

/** Props of {@link MemoryRows}. */
interface MemoryRowsProps {
  pages: MemoryWindow
  /** The draft's added items that pass the filters, shown first. */
  added: readonly MemoryItem[]
  draft: MemoryDraft
  actions: RowActions
  readOnly: { label: string; open(): void } | undefined
  compact: boolean
  query: MemoryQuery
}

/** The windowed list: only the rows on screen are in the page, and only their pages are read. */
function MemoryRows({ pages, added, draft, actions, readOnly, compact, query }: MemoryRowsProps): ReactNode {
  const scroll = useRef<HTMLDivElement | null>(null)
  const count = added.length + (pages.total ?? 0)
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
  return (
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
  )
}
