/**
 * Whole profiles in the browser. The state carries each profile as its head (name, emoji, avatar, pending count);
 * whatever shows or edits a profile's texts or memory (the settings editor, the ⚙ panel's suggestions, the undo of a
 * memory write) reads it through {@link useProfile}, which fetches it once (`GET /__ap/profile/<id>`) and keeps it
 * for the page (a save's reply brings the saved profile whole, kept without asking again). A kept copy is fetched again when the head's `updatedAt` moves (a command's reply, a refresh, the push
 * channel's head) or when the push channel says that profile changed after the copy was read (a save within the same
 * millisecond, an import that kept its time). It never writes anything and never renders.
 */
import { useEffect, useSyncExternalStore } from 'react'
import type { MemorySearchReply, ProfileReply } from '../../shared/wire-replies.ts'
import type { WireProfile } from '../../shared/wire-state.ts'
import { useApState, useApi } from './api.ts'
import { ClientCache, perClient } from './client-cache.ts'

/** One profile as this page holds it: immutable, replaced on each change (for `useSyncExternalStore`). */
export interface Kept {
  profile: WireProfile
  /** The head's `updatedAt` the copy was fetched for: current while the head says the same. */
  forHead: number
  /** The store revision the copy is at least as new as. */
  revision: number
  /** Its memory had recorded writes when it was read. */
  history: boolean
  /**
   * How many of its memory items were archived when it was read (`memoryCounts`; absent when the host did not say).
   * At 0 its items are all it has (the wire leaves archived ones out), and the memory list shows them without asking
   * the search route; above 0 a save asks for the list's first rows with its reply ({@link Kept.window}).
   */
  archived: number | undefined
  /**
   * With an archive, the first rows of its memory list as the save that brought this copy asked for them (the page
   * asks for them when it knows of an archive, `saved.window`); absent for a copy read with `GET /__ap/profile`.
   */
  window?: MemorySearchReply
}

/** A profile whole as the host answers it (a save's `saved`, `GET /__ap/profile/<id>`). */
type Saved = Extract<ProfileReply, { profile: unknown }>

/** Whole profiles kept per page; the one fetched longest ago goes first (each can be a megabyte at the limits). */
const KEPT = 16

/** The whole profiles of one client, fetched on demand and shared by every component that shows one. */
class ProfileCache extends ClientCache {
  readonly #kept = new Map<string, Kept>()
  /** Per profile, the newest revision the push channel said changed it. */
  readonly #heard = new Map<string, number>()
  readonly #loading = new Map<string, { forHead: number; done: Promise<WireProfile | undefined> }>()

  /** The copy kept of profile `id`, current or not. */
  kept(id: string): Kept | undefined {
    return this.#kept.get(id)
  }

  /** True when the copy kept of `id` is the profile as saved for a head with `updatedAt`. */
  isCurrent(id: string, updatedAt: number): boolean {
    const kept = this.#kept.get(id)
    return kept !== undefined && kept.forHead === updatedAt && kept.revision >= (this.#heard.get(id) ?? 0)
  }

  /** The push channel said these profiles changed (or went) at `revision`: copies read before it are old. */
  heard(ids: readonly string[], revision: number): void {
    let old = false
    for (const id of ids) {
      this.#heard.set(id, Math.max(revision, this.#heard.get(id) ?? 0))
      const kept = this.#kept.get(id)
      // A new record, so the components showing it look again.
      if (kept !== undefined && kept.revision < revision) {
        this.#kept.set(id, { ...kept })
        old = true
      }
    }
    if (old) this.changed()
  }

  /**
   * Profile `id` as saved for the head the state holds now: the kept copy when it is current, else fetched (one
   * request for every caller asking at once). Undefined when the state holds no such profile or the host has none.
   */
  current(id: string): Promise<WireProfile | undefined> {
    const head = this.client.getSnapshot().state?.profiles.find((p) => p.id === id)
    if (head === undefined) return Promise.resolve(undefined)
    if (this.isCurrent(id, head.updatedAt)) return Promise.resolve(this.#kept.get(id)!.profile)
    const loading = this.#loading.get(id)
    if (loading !== undefined && loading.forHead === head.updatedAt) return loading.done
    const done = this.#fetch(id, head.updatedAt)
    this.#loading.set(id, { forHead: head.updatedAt, done })
    return done
  }

  /**
   * Keep `saved` (a profile whole as a save answered it) as the copy for its head, so the editor that saved it shows
   * the saved version without asking for it again. A change heard of since its revision still makes it old.
   */
  take(saved: Saved | undefined): void {
    if (saved === undefined) return
    this.#keep({
      profile: saved.profile,
      forHead: saved.head.updatedAt,
      revision: saved.revision,
      history: saved.history,
      archived: saved.memoryCounts?.archived,
      ...(saved.window === undefined ? {} : { window: saved.window }),
    })
    this.changed()
  }

  #keep({ history, ...kept }: Omit<Kept, 'history'> & { history: true | undefined }): void {
    this.#kept.delete(kept.profile.id)
    this.#kept.set(kept.profile.id, { ...kept, history: history === true })
    if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value!)
  }

  async #fetch(id: string, forHead: number): Promise<WireProfile | undefined> {
    // A change heard of before the request was committed before it, so the answer holds it.
    const heard = this.#heard.get(id) ?? 0
    try {
      const reply = await this.client.fetchProfile(id)
      if (reply === undefined || !('profile' in reply)) {
        this.#kept.delete(id)
        return undefined
      }
      this.#keep({
        profile: reply.profile,
        forHead,
        revision: Math.max(reply.revision, heard),
        history: reply.history,
        archived: reply.memoryCounts?.archived,
      })
      return reply.profile
    } catch (error) {
      // The kept copy (if any) stays on screen; the next move of the head asks again.
      console.warn('agent-profiles: could not read a profile:', error)
      return this.#kept.get(id)?.profile
    } finally {
      if (this.#loading.get(id)?.forHead === forHead) this.#loading.delete(id)
      this.changed()
    }
  }
}

/** The profile cache of a client, made on first use and kept as long as the client. */
export const profilesOf = perClient((client) => new ProfileCache(client))

/**
 * React hook: profile `id` whole (texts, memory items, tool settings) as saved. Undefined until it is first fetched,
 * and for no id or a profile the state does not hold; while a newer version is being fetched, the copy read before.
 */
export function useProfile(id: string | undefined): WireProfile | undefined {
  const cache = profilesOf(useApi())
  const head = useApState().state?.profiles.find((p) => p.id === id)
  const read = (): Kept | undefined => (id === undefined ? undefined : cache.kept(id))
  const kept = useSyncExternalStore(cache.subscribe, read, read)
  const updatedAt = head?.updatedAt
  useEffect(() => {
    if (id !== undefined && updatedAt !== undefined && !cache.isCurrent(id, updatedAt)) void cache.current(id)
  }, [cache, id, updatedAt, kept])
  return head === undefined ? undefined : kept?.profile
}

/**
 * React hook: the copy of profile `id` this page keeps, current or not (undefined before the first read): what its
 * memory list may show without asking the search route ({@link Kept.archived}, {@link Kept.window}).
 */
export function useKept(id: string): Kept | undefined {
  const cache = profilesOf(useApi())
  const read = (): Kept | undefined => cache.kept(id)
  return useSyncExternalStore(cache.subscribe, read, read)
}
