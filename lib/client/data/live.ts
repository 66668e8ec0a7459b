/**
 * Keeping the page up to date with saves made elsewhere (another tab, the model's memory_save, the background memory
 * job, a headless dsh run): the page's share of the browser's ONE push connection (live-tabs.ts: one page of the
 * origin holds the WebSocket and relays to the others), shared by every entry of the page that asks for it, given
 * back when the last of them goes or the page is hidden away. Each change names what it touched, and only that
 * is fetched (a profile's head, the meta; each conversation shown asks for its own settings, each profile shown whole
 * is fetched again by profiles.ts) and patched into the shared snapshot; a `meta` event (the integrity check started
 * or ended, nothing saved) fetches the meta alone. Without a channel (a browser without Web
 * Locks or BroadcastChannel, an old proxy, the cap on streams) the page quietly refreshes when it regains focus; its
 * own commands refresh it anyway. It never renders and never overwrites a draft: editors compare the saved profile
 * with the one they started from.
 */
import { useEffect, useSyncExternalStore } from 'react'
import type { LiveEvent } from '../../shared/wire-state.ts'
import { WIRE } from '../../shared/wire-table.ts'
import { useApi, type ApiClient } from './api.ts'
import { openFeed, type FeedOptions, type LiveFeed } from './live-tabs.ts'
import { profilesOf } from './profiles.ts'

/** Where the channel lives and what it runs on; the page's own unless a test says otherwise. */
export interface LiveOptions extends Partial<FeedOptions> {
  /** The window whose focus events matter. */
  window?: Pick<Window, 'addEventListener' | 'removeEventListener'> | undefined
}

/** One page's channel over one client. */
export interface LiveChannel {
  /** 'live' while the channel is open, 'connecting' while it (re)opens, 'fallback' when it cannot. */
  readonly mode: 'connecting' | 'live' | 'fallback' | 'closed'
  /** Changes applied so far (for tests and the benchmark). */
  readonly applied: number
  close(): void
}

/**
 * Open the channel for `client`. Waits for the first state load, so that it resumes from the revision that load showed
 * (nothing saved between the load and the open is missed).
 */
export function openLive(client: ApiClient, options: LiveOptions = {}): LiveChannel {
  const win = options.window ?? (typeof window === 'undefined' ? undefined : window)
  let mode: LiveChannel['mode'] = 'connecting'
  let applied = 0
  let feed: LiveFeed | undefined
  let queue: Promise<void> = Promise.resolve()
  let closed = false

  const refreshOnFocus = (): void => {
    if (mode === 'fallback') void client.refresh()
  }

  const onEvent = (event: LiveEvent): void => {
    // One at a time, in order: a profile fetched for an older change must not land after a newer one.
    queue = queue
      .then(() => applyEvent(client, event))
      .then(() => {
        applied++
      })
      .catch((error: unknown) => {
        // A fetch that failed leaves a part stale: load everything once rather than show it wrong.
        console.warn('agent-profiles: applying a change from elsewhere failed; reloading:', error)
        return client.refresh().then(() => undefined)
      })
  }

  const connect = (since: number | undefined): void => {
    if (closed) return
    feed = openFeed({ ...options, url: options.url ?? WIRE.events.path }, since, {
      event: onEvent,
      mode: (next) => {
        if (closed) return
        mode = next
        modeChanged(client)
      },
    })
    mode = feed.mode
    modeChanged(client)
  }

  const start = (): void => {
    const snap = client.getSnapshot()
    if (snap.status === 'ready') {
      connect(snap.meta?.revision)
      return
    }
    const unsubscribe = client.subscribe(() => {
      if (client.getSnapshot().status !== 'ready') return
      unsubscribe()
      connect(client.getSnapshot().meta?.revision)
    })
    if (snap.status === 'idle') void client.refresh()
  }

  win?.addEventListener('focus', refreshOnFocus)
  start()
  return {
    get mode() {
      return mode
    },
    get applied() {
      return applied
    },
    close() {
      closed = true
      mode = 'closed'
      feed?.close()
      win?.removeEventListener('focus', refreshOnFocus)
      modeChanged(client)
    },
  }
}

/**
 * Bring `client`'s snapshot up to `event`: a `reload` loads the state afresh; a change fetches what it names (the
 * heads of the profiles it touched, the meta, the user layer when the page shows it) and patches it in, unless the
 * snapshot holds that revision already.
 */
async function applyEvent(client: ApiClient, event: LiveEvent): Promise<void> {
  if (event.kind === 'reload') {
    await client.refresh()
    return
  }
  if (event.kind === 'meta') {
    // What the meta says of the data (the integrity check) changed, nothing saved: the meta alone is fetched. It may
    // name a revision whose change this page has not applied yet; the snapshot keeps the revision of what it holds.
    const meta = await client.fetchMeta()
    const held = client.getSnapshot().meta?.revision
    client.patch({ meta: held === undefined ? meta : { ...meta, revision: held } })
    return
  }
  const { change } = event
  // A change the snapshot holds already (the reply to this page's own save named a revision at least as new) costs
  // no request: the reply carried the state, the meta and the saved profile.
  const held = client.getSnapshot().meta?.revision
  if (held !== undefined && event.revision <= held) {
    profilesOf(client).heard([...change.profiles, ...change.removed], event.revision)
    return
  }
  // The meta first, then the heads: a save landing between the two must leave the snapshot claiming the older
  // revision (its change is then fetched when its event comes), never the newer one over the older heads.
  const meta = await client.fetchMeta().catch(() => undefined)
  const fetched = await Promise.all(
    change.profiles.map(async (id) => {
      const reply = await client.fetchProfile(id, 'head')
      return { id, head: reply !== undefined && 'head' in reply ? reply.head : undefined }
    }),
  )
  const profiles = fetched.flatMap((f) => (f.head === undefined ? [] : [f.head]))
  const gone = fetched.filter((f) => f.head === undefined).map((f) => f.id)
  profilesOf(client).heard([...change.profiles, ...change.removed], event.revision)
  client.patch({
    profiles,
    removed: [...change.removed, ...gone],
    ...(change.order === undefined ? {} : { order: change.order }),
    ...(change.activeId === undefined ? {} : { activeId: change.activeId }),
    ...(change.undo === undefined ? {} : { undo: change.undo }),
    ...(change.pins === undefined ? {} : { pins: change.pins }),
    ...(change.conversations === undefined ? {} : { conversations: change.conversations }),
    ...(change.user === undefined ? {} : { userItems: change.user }),
    ...(meta === undefined ? {} : { meta }),
  })
  // Each conversation the page shows asks for its settings again when the state changes (useConversation).
  if (change.user !== undefined && client.getSnapshot().user !== null) await client.loadUser()
}

/** Per client: who watches the mode of its channel (the banner of a page whose channel is off). */
const modeWatchers = new WeakMap<ApiClient, Set<() => void>>()

function modeChanged(client: ApiClient): void {
  for (const watcher of modeWatchers.get(client) ?? []) watcher()
}

/** Per client: the channel and how many entries of the page use it. */
const channels = new WeakMap<ApiClient, { channel: LiveChannel; users: number }>()
let pageOptions: LiveOptions = {}

/** Set how the page's channels are made (the conversation loader, a test's connection). */
export function configureLive(options: LiveOptions): void {
  pageOptions = options
}

/** Take a share of `client`'s channel, opening it for the first user; the returned function gives it back. */
export function shareLive(client: ApiClient): () => void {
  let entry = channels.get(client)
  if (entry === undefined || entry.channel.mode === 'closed') {
    entry = { channel: openLive(client, pageOptions), users: 0 }
    channels.set(client, entry)
    modeChanged(client)
  }
  entry.users++
  const held = entry
  let given = false
  return () => {
    if (given) return
    given = true
    held.users--
    if (held.users === 0) held.channel.close()
  }
}

/** The channel of `client` while some entry holds it. */
export function liveChannelOf(client: ApiClient): LiveChannel | undefined {
  return channels.get(client)?.channel
}

/** React hook: the mode of the page's channel (undefined while no entry holds one), re-rendering as it changes. */
export function useLiveMode(): LiveChannel['mode'] | undefined {
  const client = useApi()
  return useSyncExternalStore(
    (watcher) => {
      const watchers = modeWatchers.get(client) ?? new Set()
      modeWatchers.set(client, watchers)
      watchers.add(watcher)
      return () => watchers.delete(watcher)
    },
    () => channels.get(client)?.channel.mode,
  )
}

/** React hook: keep the page's channel open while this component is mounted. */
export function useLive(): void {
  const client = useApi()
  useEffect(() => shareLive(client), [client])
}

/**
 * Close the page's channel when the page is going away, and open it again when the page comes back from the
 * back-forward cache (a page holding an open connection is not kept there).
 */
export function closeLiveOnPageHide(
  win: Pick<Window, 'addEventListener' | 'removeEventListener'>,
  client: ApiClient,
): () => void {
  const hide = (): void => liveChannelOf(client)?.close()
  const show = (e: Event): void => {
    const entry = channels.get(client)
    if (!(e as PageTransitionEvent).persisted || entry === undefined || entry.users === 0) return
    entry.channel = openLive(client, pageOptions)
    modeChanged(client)
  }
  win.addEventListener('pagehide', hide)
  win.addEventListener('pageshow', show)
  return () => {
    win.removeEventListener('pagehide', hide)
    win.removeEventListener('pageshow', show)
  }
}
