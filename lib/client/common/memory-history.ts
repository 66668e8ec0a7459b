/**
 * The memory history as the browser reads it: one list (a profile's, a conversation's own memories) or what one
 * conversation caused, fetched through `memory.history` and shared by every component asking the same question, and
 * the revert of an entry. Each question is asked again only when the memory it is about changed (its `signature`),
 * never per render. It never renders.
 */
import { useEffect, useSyncExternalStore } from 'react'
import { useApi, useApState, type ApiClient } from '../data/api.ts'
import type { Snapshot } from '../data/shared-snapshot.ts'
import { ApiError } from '../data/call.ts'
import { profilesOf, useProfile, type Kept } from '../data/profiles.ts'
import type { MemoryHistoryEntry, MemoryTarget } from '../../shared/memory-target.ts'
import type { Notice } from '../../shared/notices.ts'
import type { MemoryItem } from '../../state/model.ts'

/** What to read: one list, or the writes one conversation caused. */
export type HistoryQuery = { target: MemoryTarget } | { sessionId: string }

/** One question's answer as far as this page knows it. */
export interface HistoryAnswer {
  entries: MemoryHistoryEntry[] | null
  error: ApiError | null
}

const keyOf = (q: HistoryQuery): string =>
  'sessionId' in q
    ? `c:${q.sessionId}`
    : 'user' in q.target
      ? 'u:'
      : 'profileId' in q.target
        ? `p:${q.target.profileId}`
        : `s:${q.target.sessionId}`

/** The history route's query for `query`: a list by its layer and owner, or the writes a conversation caused. */
function historyQueryOf(query: HistoryQuery): { layer?: string; owner?: string; by?: string } {
  if ('sessionId' in query) return { by: query.sessionId }
  const t = query.target
  if ('user' in t) return { layer: 'user' }
  return 'profileId' in t ? { layer: 'profile', owner: t.profileId } : { layer: 'conversation', owner: t.sessionId }
}

/**
 * A signature of the memory `query` is about, from the state every reply carries and the conversation's settings as
 * last loaded: it changes whenever that memory may have been written (a profile's `updatedAt` moves with each write,
 * a conversation's memories are their ids).
 */
export function historySignature(snap: Snapshot, query: HistoryQuery): string {
  const state = snap.state
  if (state === null) return ''
  const sign = (items: readonly MemoryItem[]) => items.map((m) => `${m.id}:${m.text.length}`).join(',')
  const own = (sid: string) => sign(snap.conversations.get(sid)?.setting?.memories ?? [])
  const user = `${state.userItems}|${sign(snap.user?.items ?? [])}`
  if ('sessionId' in query) return `${state.profiles.map((p) => p.updatedAt).join(',')}|${own(query.sessionId)}|${user}`
  const t = query.target
  if ('user' in t) return user
  return 'profileId' in t ? String(state.profiles.find((p) => p.id === t.profileId)?.updatedAt ?? '') : own(t.sessionId)
}

interface Cell extends HistoryAnswer {
  signature: string | undefined
  loading: string | undefined
}

/** Questions kept per client; the least recently added goes first. */
const KEPT = 100

class HistoryCache {
  readonly #client: ApiClient
  readonly #cells = new Map<string, Cell>()
  readonly #listeners = new Set<() => void>()
  constructor(client: ApiClient) {
    this.#client = client
  }

  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn)
    return () => {
      this.#listeners.delete(fn)
    }
  }

  answer(key: string): Cell | undefined {
    return this.#cells.get(key)
  }

  /** Ask `query` unless its answer for `signature` is known or on its way. */
  ask(query: HistoryQuery, signature: string): void {
    const key = keyOf(query)
    let cell = this.#cells.get(key)
    if (cell === undefined) {
      cell = { entries: null, error: null, signature: undefined, loading: undefined }
      this.#cells.set(key, cell)
      if (this.#cells.size > KEPT) this.#cells.delete(this.#cells.keys().next().value!)
    }
    if (cell.signature === signature || cell.loading === signature) return
    cell.loading = signature
    const done = (next: Partial<Cell>): void => {
      const now = this.#cells.get(key)
      if (now === undefined || now.loading !== signature) return
      this.#cells.set(key, { ...now, ...next, loading: undefined, signature })
      for (const fn of [...this.#listeners]) fn()
    }
    this.#client.history(historyQueryOf(query)).then(
      (entries) => {
        done({ entries, error: null })
      },
      (error: unknown) => {
        done({ error: error instanceof ApiError ? error : new ApiError(String(error), 'internal', 0) })
      },
    )
  }
}

const caches = new WeakMap<ApiClient, HistoryCache>()

function cacheOf(client: ApiClient): HistoryCache {
  let cache = caches.get(client)
  if (cache === undefined) {
    cache = new HistoryCache(client)
    caches.set(client, cache)
  }
  return cache
}

const NOTHING: HistoryAnswer = { entries: null, error: null }

/** React hook: the answer to `query`, asked again whenever `signature` changes. */
export function useMemoryHistory(query: HistoryQuery, signature: string): HistoryAnswer {
  const cache = cacheOf(useApi())
  const key = keyOf(query)
  const read = (): HistoryAnswer => cache.answer(key) ?? NOTHING
  const answer = useSyncExternalStore(cache.subscribe, read, read)
  const json = JSON.stringify(query)
  useEffect(() => {
    if (signature !== '') cache.ask(JSON.parse(json) as HistoryQuery, signature)
  }, [cache, json, signature])
  return answer
}

/**
 * React hook: whether the list `target` names has a recorded write, as the host last said (a profile's whole reply,
 * the user layer's, a conversation's); undefined until the page has read that answer. The page shows the history
 * heading only when there is something under it.
 */
export function useHasHistory(target: MemoryTarget): boolean | undefined {
  const client = useApi()
  const snap = useApState()
  const cache = profilesOf(client)
  const profileId = 'profileId' in target ? target.profileId : undefined
  // Fetches the profile whole when no current copy is kept (the editor showing this list reads it too).
  useProfile(profileId)
  const read = (): Kept | undefined => (profileId === undefined ? undefined : cache.kept(profileId))
  const kept = useSyncExternalStore(cache.subscribe, read, read)
  if ('user' in target) return snap.user === null ? undefined : snap.user.history === true
  if (!('sessionId' in target)) return kept?.history
  const session = snap.conversations.get(target.sessionId)
  return session === undefined ? undefined : session.history === true
}

/** Revert `entry` (only its items `itemIds` when given), as caused by conversation `sessionId` when given. */
export async function revertEntry(
  client: ApiClient,
  entry: MemoryHistoryEntry,
  options: { itemIds?: string[]; sessionId?: string } = {},
): Promise<Notice> {
  const reply = await client.command('memory.revert', {
    target: entry.target,
    entryId: entry.id,
    ...(options.itemIds === undefined ? {} : { itemIds: options.itemIds }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  })
  return reply.notice
}
