/**
 * The page's shared snapshot of the host's data (the last `{state, meta}` answered, the conversations shown, the user
 * layer) and how it changes: by a load, by the answer of a change the client sent (api.ts hands it every one), by
 * what the push channel says changed. It never renders and never sends a change itself.
 */
import type { UserReply } from '../../shared/wire-replies.ts'
import type { Meta } from '../../shared/meta.ts'
import type { ProfileHead, StateReply, WireSession, WireState } from '../../shared/wire-state.ts'
import { ApiError, type Caller } from './call.ts'

/** The shared store's snapshot. `status` is 'idle' until the first load starts. */
export interface Snapshot {
  status: 'idle' | 'loading' | 'ready' | 'error'
  state: WireState | null
  meta: Meta | null
  /** The conversations shown in this page, as the host last answered for each (`GET /session/<id>` or a command). */
  conversations: ReadonlyMap<string, WireSession>
  /** The last load failure; cleared by the next successful answer. */
  error: ApiError | null
  /** The user layer as last answered (`GET /__ap/user`, or a change that wrote it); null until something asks. */
  user: UserReply | null
}

/** Parts of the state a change replaced; absent parts are left as they are. */
export interface StatePatch {
  /** Heads of profiles added or changed, as fetched. */
  profiles?: ProfileHead[]
  removed?: string[]
  /** The profile ids in list order. */
  order?: string[]
  activeId?: string
  undo?: Record<string, number>
  pins?: Record<string, number>
  conversations?: number
  /** The user layer's item count. */
  userItems?: number
  meta?: Meta
}

/** The state with `update` applied: changed profiles replaced, new ones placed where `order` puts them. */
function patchState(state: WireState, update: StatePatch): WireState {
  const byId = new Map(state.profiles.map((p) => [p.id, p]))
  for (const p of update.profiles ?? []) byId.set(p.id, p)
  for (const id of update.removed ?? []) byId.delete(id)
  const order = update.order ?? [
    ...state.profiles.map((p) => p.id),
    ...(update.profiles ?? []).map((p) => p.id).filter((id) => !state.profiles.some((p) => p.id === id)),
  ]
  const profiles = [...new Set(order)].flatMap((id) => {
    const p = byId.get(id)
    return p === undefined ? [] : [p]
  })
  return {
    ...state,
    profiles,
    ...(update.activeId === undefined ? {} : { activeId: update.activeId }),
    ...(update.undo === undefined ? {} : { undo: update.undo }),
    ...(update.pins === undefined ? {} : { pins: update.pins }),
    ...(update.conversations === undefined ? {} : { conversations: update.conversations }),
    ...(update.userItems === undefined ? {} : { userItems: update.userItems }),
  }
}

/** Conversations whose settings are kept in the snapshot; the one shown longest ago is dropped first. */
const KEPT_CONVERSATIONS = 50

function isWireSession(v: unknown): v is WireSession {
  return typeof v === 'object' && v !== null && typeof (v as WireSession).sessionId === 'string' && 'setting' in v
}

/**
 * The shared snapshot of one client: its loads (one request per load however many components ask at once), the
 * answers it takes from the client's commands, and its listeners. Its members that components call are arrow
 * properties, so they may be handed on detached (`useSyncExternalStore(client.subscribe, client.getSnapshot)`).
 */
export class SharedSnapshot {
  private current: Snapshot = {
    status: 'idle',
    state: null,
    meta: null,
    error: null,
    conversations: new Map(),
    user: null,
  }
  private loading: Promise<Snapshot> | null = null
  private userLoad: Promise<void> | null = null
  private readonly conversationLoads = new Map<string, Promise<void>>()
  /** Per conversation, +1 per answer taken, so that an older request answering late does not undo a newer one. */
  private readonly conversationTurns = new Map<string, number>()
  private readonly listeners = new Set<() => void>()
  private readonly call: Caller

  constructor(call: Caller) {
    this.call = call
  }

  /** Calls `fn` after every change of the snapshot; returns the unsubscribe. */
  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn)
    return () => {
      this.listeners.delete(fn)
    }
  }

  /** The snapshot now. */
  readonly getSnapshot = (): Snapshot => this.current

  /** Load `GET /state`; never throws (the failure lands in the snapshot). */
  readonly refresh = (): Promise<Snapshot> => {
    // Concurrent callers (several entries mounting at once) share one request.
    this.loading ??= this.loadState().finally(() => {
      this.loading = null
    })
    return this.loading
  }

  /** Load the user layer into the snapshot; loads asked for at once share one request. */
  readonly loadUser = (): Promise<void> => {
    this.userLoad ??= this.call('user')
      .then((user) => {
        this.publish({ ...this.current, user })
      })
      .finally(() => {
        this.userLoad = null
      })
    return this.userLoad
  }

  /** Load one conversation's settings into the snapshot; requests for the same conversation at once share one. */
  readonly loadConversation = (sessionId: string): Promise<void> => {
    let load = this.conversationLoads.get(sessionId)
    if (load === undefined) {
      const turn = this.conversationTurns.get(sessionId) ?? 0
      load = this.call('session', { param: sessionId })
        .then(
          (session) => {
            if ((this.conversationTurns.get(sessionId) ?? 0) === turn && isWireSession(session))
              this.takeConversation(session)
          },
          (error: unknown) => {
            // The conversation shows the global default until the next state brings another look.
            console.warn('agent-profiles: could not read the conversation settings:', error)
            if (!this.current.conversations.has(sessionId))
              this.takeConversation({ sessionId, setting: null, profileId: '', pinned: false })
          },
        )
        .finally(() => this.conversationLoads.delete(sessionId))
      this.conversationLoads.set(sessionId, load)
    }
    return load
  }

  /** Apply what the push channel said changed (and what was fetched for it). */
  readonly patch = (update: StatePatch): void => {
    if (this.current.state === null) return
    const state = patchState(this.current.state, update)
    this.publish({ ...this.current, state, meta: update.meta ?? this.current.meta })
  }

  /**
   * Take a reply that carries the state after a change, the conversation it answers with (a command's) and the user
   * layer when the change wrote it (kept when the page shows the layer; one that does not loads it when it does).
   */
  take(reply: Partial<StateReply> & { session?: unknown; user?: UserReply }): void {
    if (reply.state !== undefined && reply.meta !== undefined)
      this.publish({ ...this.current, status: 'ready', state: reply.state, meta: reply.meta, error: null })
    if (isWireSession(reply.session)) this.takeConversation(reply.session)
    if (reply.user !== undefined && this.current.user !== null) this.publish({ ...this.current, user: reply.user })
  }

  private async loadState(): Promise<Snapshot> {
    if (this.current.status !== 'ready') this.publish({ ...this.current, status: 'loading' })
    try {
      const reply = await this.call('state')
      if (reply.state === undefined || !Array.isArray(reply.state.profiles)) {
        throw new ApiError('the state answer has no profiles', 'bad-response', 200)
      }
      this.take(reply)
    } catch (error) {
      const e = error instanceof ApiError ? error : new ApiError(String(error), 'internal', 0)
      this.publish({ ...this.current, status: this.current.state === null ? 'error' : 'ready', error: e })
    }
    return this.current
  }

  private takeConversation(session: WireSession): void {
    this.conversationTurns.set(session.sessionId, (this.conversationTurns.get(session.sessionId) ?? 0) + 1)
    const conversations = new Map(this.current.conversations)
    conversations.delete(session.sessionId)
    conversations.set(session.sessionId, session)
    if (conversations.size > KEPT_CONVERSATIONS) conversations.delete(conversations.keys().next().value!)
    this.publish({ ...this.current, conversations })
  }

  private publish(next: Snapshot): void {
    this.current = next
    for (const fn of [...this.listeners]) fn()
  }
}
