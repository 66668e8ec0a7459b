/**
 * React hooks of the memory list's state ({@link MemoryList}): the query its search box and filters make, the windows
 * of rows it reads (the whole list and the filtered one, memory-window.ts), and the changes its rows and add box make
 * to the caller's draft (memory-draft.ts), through one stable object so a change renders only the rows it concerns.
 * They never render and never save.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { normalizeMemory } from '../../shared/memory-text.ts'
import { LIMITS, type MemoryItem, type MemoryLayer, type MemorySource } from '../../state/model.ts'
import type { ApiClient, MemoryQuery } from '../data/api.ts'
import { useT } from '../copy/locales.ts'
import { addItem, editItem, removeItem, restoreItem, type MemoryDraft } from './memory-draft.ts'
import { MemoryWindow, type HeldRows } from './memory-window.ts'
import type { RowActions } from './MemoryRow.tsx'

/** A memory list shown read-only in another's layer filter. */
export interface OtherLayer {
  layer: MemoryLayer
  owner?: string
  open(): void
}

/** The list's search and filters, and the query they make. */
export interface MemoryFilter {
  /** Which of the other layers the layer filter shows instead of this list; -1 for this list. */
  other: number
  setOther(i: number): void
  setQ(q: string): void
  source: MemorySource | undefined
  setSource(s: MemorySource | undefined): void
  archived: boolean | undefined
  setArchived(a: boolean | undefined): void
  /** The other layer shown, if one is. */
  shownLayer: OtherLayer | undefined
  query: MemoryQuery
  /** A search, a filter or another layer narrows what is shown. */
  filtered: boolean
}

/** The search and filters of the list of `layer` (and `owner`), beside `others`. */
export function useMemoryFilter(
  layer: MemoryLayer,
  owner: string | undefined,
  others: readonly OtherLayer[],
): MemoryFilter {
  const [other, setOther] = useState(-1)
  const shownLayer = others[other]
  const [q, setQState] = useState('')
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
  // Stable: the search box is memoised on it.
  const setQ = useCallback((next: string) => {
    setQState(next)
  }, [])
  return { other, setOther, setQ, source, setSource, archived, setArchived, shownLayer, query, filtered }
}

/** A window for `query`, standing on `before` while it loads when that one asked the same. */
function renewed(client: ApiClient, before: MemoryWindow | undefined, query: MemoryQuery): MemoryWindow {
  return new MemoryWindow(
    client,
    query,
    before !== undefined && JSON.stringify(before.query) === JSON.stringify(query) ? before : undefined,
  )
}

/**
 * The windows the list reads: `whole`, the list unfiltered (its count is the header's and the limit's, and it is the
 * list shown without filters, so clearing a search shows the rows already read), read again when the list as saved
 * changes (`version`), its first pages cut from `held` when the caller holds them (no request for those); `pages`, the
 * filtered one, or `whole` without a filter. A window read again replaces one of the same query: the old one stands
 * in until its pages arrive (no blink). The list renders when either changes.
 */
export function useMemoryWindows(
  client: ApiClient,
  list: { layer: MemoryLayer; owner: string | undefined; version: unknown; held: HeldRows | undefined },
  filter: Pick<MemoryFilter, 'query' | 'filtered'>,
): { whole: MemoryWindow; pages: MemoryWindow } {
  const { layer, owner, version, held } = list
  const { query, filtered } = filter
  const lastWhole = useRef<MemoryWindow | undefined>(undefined)
  const last = useRef<MemoryWindow | undefined>(undefined)
  const whole = useMemo(
    () => {
      const unfiltered = { layer, ...(owner === undefined ? {} : { owner }), q: '' }
      return held === undefined
        ? renewed(client, lastWhole.current, unfiltered)
        : MemoryWindow.held(client, unfiltered, held)
    },
    // `version` is in the key on purpose, unread: a change saved elsewhere must read the rows again.
    // oxlint-disable-next-line react-hooks/exhaustive-deps
    [client, layer, owner, version, held],
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
  return { whole, pages }
}

/** An id for an item added in the draft; the save sends new items without it (the host assigns one). */
function newItemId(): string {
  const c = globalThis.crypto
  return `m-${typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`}`
}

/** What the draft edits read of the list. */
interface EditsOptions {
  draft: MemoryDraft
  onDraft(next: MemoryDraft): void
  whole: MemoryWindow
  pages: MemoryWindow
  /** How many items the list may hold. */
  limit: number
  /** The conversation an added item belongs to. */
  sessionId: string | undefined
}

/**
 * The rows' actions and the add box's check-and-add, each the same function across renders (they read the draft
 * through a ref), and `latest`, the draft and its report as of this render.
 */
export function useDraftEdits(o: EditsOptions): {
  actions: RowActions
  onAdd(text: string, keys: string): string | null
  latest: { readonly current: { draft: MemoryDraft; onDraft(next: MemoryDraft): void } }
} {
  const t = useT()
  const { limit, sessionId, whole, pages } = o
  const latest = useRef({ draft: o.draft, onDraft: o.onDraft })
  latest.current = { draft: o.draft, onDraft: o.onDraft }
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
  return { actions, onAdd, latest }
}
