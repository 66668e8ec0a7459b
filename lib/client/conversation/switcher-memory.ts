/**
 * What one conversation's quick switcher shows beyond the data — whether its menu is open, whether a pick is on its
 * way, the confirmation of the last pick — kept per conversation outside the component, and the word owed for a pick
 * whose conversation left the screen before it was told. It never talks to the host and never renders.
 *
 * Why outside the component: a switcher can unmount while its pick is on its way. Should the host re-render the
 * composer's slot entries of one conversation (not seen in rc.8's flows, but nothing in the slot contract rules it
 * out), state inside the component would close the menu under the user's pointer and drop the confirmation. And —
 * seen in rc.8, with exactly the symptoms of the first pick once reported "ignored" — the host's "New session" keeps
 * the previous conversation on screen, switcher included, until its `session.create` round trip answers (hundreds of
 * milliseconds, seconds on a loaded machine): a first pick made in that window pins the PREVIOUS conversation, whose
 * switcher (and its confirmation) is gone a moment later, and the new conversation shows its default with no word —
 * a first pick "ignored". Such a pick is now told in the switcher on screen, naming where it went.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react'
import { useApi } from '../data/api.ts'
import { ClientCache, perClient } from '../data/client-cache.ts'

/** A pick's confirmation or refusal, as the switcher shows it. */
export type Feedback = { kind: 'ok' | 'error'; text: string } | null

/** One conversation's switcher state. */
export interface SwitcherView {
  menuOpen: boolean
  busy: boolean
  feedback: Feedback
  /** How `feedback` is worded in another conversation's switcher if this conversation leaves the screen while it shows. */
  away: Feedback
}

/** The outcome of a pick whose conversation no switcher on screen shows any more. */
export interface Elsewhere {
  sessionId: string
  feedback: NonNullable<Feedback>
}

const CLOSED: SwitcherView = { menuOpen: false, busy: false, feedback: null, away: null }

/** How long the word for a pick made in a conversation that left the screen waits for a switcher to say it. */
const ELSEWHERE_MS = 10_000

/** Conversations whose switcher state is kept; the least recently changed goes first. */
const KEPT = 50

/** The switcher states of the conversations this page shows. */
export class SwitcherMemory extends ClientCache {
  readonly #views = new Map<string, SwitcherView>()
  readonly #mounted = new Map<string, number>()
  #elsewhere: Elsewhere | undefined
  #expiry: ReturnType<typeof setTimeout> | undefined

  /** The state of `sessionId`'s switcher (closed, idle, silent when never set). */
  view(sessionId: string): SwitcherView {
    return this.#views.get(sessionId) ?? CLOSED
  }

  /** Change part of `sessionId`'s switcher state. */
  update(sessionId: string, patch: Partial<SwitcherView>): void {
    const next = { ...this.view(sessionId), ...patch }
    this.#views.delete(sessionId)
    this.#views.set(sessionId, next)
    if (this.#views.size > KEPT) this.#views.delete(this.#views.keys().next().value!)
    this.changed()
  }

  /**
   * A switcher of `sessionId` is on screen until the returned function is called. When the last one goes for good,
   * its menu closes, and a pick's confirmation still showing is owed, worded for elsewhere, to the switcher that comes
   * instead — looked at a task later, since a remount of the same conversation unmounts before it mounts again.
   */
  track(sessionId: string): () => void {
    this.#mounted.set(sessionId, (this.#mounted.get(sessionId) ?? 0) + 1)
    return () => {
      const n = (this.#mounted.get(sessionId) ?? 1) - 1
      if (n > 0) this.#mounted.set(sessionId, n)
      else this.#mounted.delete(sessionId)
      setTimeout(() => {
        const { feedback, away, menuOpen } = this.view(sessionId)
        if (this.shown(sessionId)) return
        // Gone for good, not remounted: coming back to this conversation later finds its menu closed.
        if (menuOpen) this.update(sessionId, { menuOpen: false })
        if (feedback === null || away === null) return
        this.update(sessionId, { feedback: null, away: null })
        this.setElsewhere({ sessionId, feedback: away })
      }, 0)
    }
  }

  /** Whether a switcher of `sessionId` is on screen. */
  shown(sessionId: string): boolean {
    return this.#mounted.has(sessionId)
  }

  /** The outcome owed for a pick whose conversation left the screen; undefined once told (or never). */
  elsewhere(): Elsewhere | undefined {
    return this.#elsewhere
  }

  /**
   * Owe `e` to the switcher on screen (another conversation's), or mark it told (`undefined`). Owed for a few seconds
   * only: a switcher that comes up much later (the user went elsewhere meanwhile) is not about that pick.
   */
  setElsewhere(e: Elsewhere | undefined): void {
    clearTimeout(this.#expiry)
    this.#elsewhere = e
    if (e !== undefined)
      this.#expiry = setTimeout(() => {
        if (this.#elsewhere === e) this.setElsewhere(undefined)
      }, ELSEWHERE_MS)
    this.changed()
  }
}

/** The switcher memory of a client. */
const switcherMemoryOf = perClient((client) => new SwitcherMemory(client))

/** React hook: `sessionId`'s switcher state and the function that changes it; counts this switcher as on screen. */
export function useSwitcherMemory(
  sessionId: string,
): [SwitcherView, (patch: Partial<SwitcherView>) => void, SwitcherMemory] {
  const memory = switcherMemoryOf(useApi())
  const read = (): SwitcherView => memory.view(sessionId)
  const view = useSyncExternalStore(memory.subscribe, read, read)
  useEffect(() => memory.track(sessionId), [memory, sessionId])
  const update = useCallback(
    (patch: Partial<SwitcherView>) => {
      memory.update(sessionId, patch)
    },
    [memory, sessionId],
  )
  return [view, update, memory]
}

/** React hook: the outcome of a pick made in another conversation that left the screen before it was answered. */
export function useElsewhere(sessionId: string): Elsewhere | undefined {
  const memory = switcherMemoryOf(useApi())
  const read = (): Elsewhere | undefined => memory.elsewhere()
  const e = useSyncExternalStore(memory.subscribe, read, read)
  return e?.sessionId === sessionId ? undefined : e
}
