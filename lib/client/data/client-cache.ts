/**
 * What the page's caches share (the turn heads', the whole profiles of profiles.ts): data fetched through one API
 * client, kept per client (so each test's client starts empty), with the subscribe/notify pair `useSyncExternalStore`
 * reads them through. Holds no data itself.
 */
import type { ApiClient } from './api.ts'

/** A cache over one client that tells its subscribers when it changed. */
export abstract class ClientCache {
  protected readonly client: ApiClient
  readonly #listeners = new Set<() => void>()

  constructor(client: ApiClient) {
    this.client = client
  }

  /** Call `fn` after any change. */
  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn)
    return () => {
      this.#listeners.delete(fn)
    }
  }

  protected changed(): void {
    for (const fn of [...this.#listeners]) fn()
  }
}

/** `make`'s cache of a client, made on first use and kept as long as the client. */
export function perClient<T extends object>(make: (client: ApiClient) => T): (client: ApiClient) => T {
  const caches = new WeakMap<ApiClient, T>()
  return (client) => {
    let cache = caches.get(client)
    if (cache === undefined) {
      cache = make(client)
      caches.set(client, cache)
    }
    return cache
  }
}
