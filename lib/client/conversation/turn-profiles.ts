/**
 * The profile a turn head names when the page's state does not hold it: one created after the page loaded its state
 * (and not heard of yet), or one deleted since the turn. Fetched once per id and shared by every head; the host
 * answers a deleted profile with what it looked like when it was deleted, so an old turn keeps its name and avatar.
 * It never writes anything and never renders.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react'
import type { ProfileHead } from '../../shared/wire-state.ts'
import { useApState, useApi } from '../data/api.ts'
import { ClientCache, perClient } from '../data/client-cache.ts'

/** What a head draws of a profile. */
export type ProfileLook = Pick<ProfileHead, 'id' | 'name' | 'emoji' | 'avatar'>

/** What the page knows of a profile outside its state: fetched, asked for, or known to exist nowhere. */
type Known = ProfileLook | 'asking' | 'unknown'

/** Profiles fetched for turn heads, per client. */
class TurnProfiles extends ClientCache {
  readonly #known = new Map<string, Known>()

  get(id: string): Known | undefined {
    return this.#known.get(id)
  }

  ask(id: string): void {
    if (this.#known.has(id)) return
    this.#known.set(id, 'asking')
    void this.client.fetchProfile(id, 'head').then(
      (reply) => this.#set(id, reply === undefined ? 'unknown' : 'head' in reply ? reply.head : reply.retired),
      (error: unknown) => {
        // Forgotten, so the head's next render asks again.
        console.warn('agent-profiles: could not read the profile of a turn:', error)
        this.#known.delete(id)
      },
    )
  }

  #set(id: string, known: Known): void {
    this.#known.set(id, known)
    this.changed()
  }
}

const turnProfilesOf = perClient((client) => new TurnProfiles(client))

/**
 * React hook: the profile with id `id` — from the page's state when it holds it, else fetched from the host.
 * Undefined while it is being fetched (or for no id); null when the host knows no such profile at all.
 */
export function useProfileById(id: string | undefined): ProfileLook | null | undefined {
  const client = useApi()
  const cache = turnProfilesOf(client)
  const fromState = useApState().state?.profiles.find((p) => p.id === id)
  const read = (): Known | undefined => (id === undefined ? undefined : cache.get(id))
  const known = useSyncExternalStore(cache.subscribe, read, read)
  // The look last seen in the state stays while the host is asked how a profile deleted just now looked.
  const last = useRef<ProfileLook | undefined>(undefined)
  if (fromState !== undefined) last.current = fromState
  else if (last.current?.id !== id) last.current = undefined
  useEffect(() => {
    if (id !== undefined && fromState === undefined) cache.ask(id)
  }, [cache, id, fromState])
  if (fromState !== undefined) return fromState
  return known === 'unknown' ? null : known === 'asking' || known === undefined ? last.current : known
}
