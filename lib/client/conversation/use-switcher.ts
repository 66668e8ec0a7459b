/**
 * React hook of the quick switcher's state ({@link QuickSwitcher}): the conversation's effective profile, the menu,
 * a pick on its way and its confirmation (kept per conversation by switcher-memory.ts, so they outlive the switcher),
 * the ⚙ panel's openness, and the pick itself. A pick's word goes to the switcher on screen when its conversation
 * left the screen before the answer. It never renders.
 */
import { useCallback, useRef, useState, type MutableRefObject } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi, useApState, useConversation } from '../data/api.ts'
import type { Snapshot } from '../data/shared-snapshot.ts'
import { useLive } from '../data/live.ts'
import { useOpenRequest } from '../common/open-requests.ts'
import { describeError } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import { effectiveProfile, type Effective } from './conversation-profile.ts'
import { useElsewhere, useSwitcherMemory, type Feedback, type SwitcherView } from './switcher-memory.ts'

/** The switcher's state and what it does. */
export interface Switcher extends Pick<SwitcherView, 'menuOpen' | 'busy'> {
  snap: Snapshot
  /** The profile in effect; null until the state and the conversation's own settings are known. */
  effective: Effective | null
  state: WireState | null
  /** This conversation's last word, or the one owed for a pick made in another conversation. */
  feedback: Feedback
  panelOpen: boolean
  setPanelOpen(next: boolean | ((open: boolean) => boolean)): void
  /** The trigger, which gets the focus back when the menu closes. */
  triggerRef: MutableRefObject<HTMLButtonElement | null>
  setMenuOpen(open: boolean): void
  closeMenu(): void
  closePanel(): void
  /** Drop whatever the toast shows. */
  clearFeedback(): void
  setFeedback(next: Feedback): void
  /** Pin `profileId` (null: follow the default again), saying how it went. */
  choose(profileId: string | null): Promise<void>
}

/** The state of the switcher of conversation `sessionId`. */
export function useSwitcher(sessionId: string): Switcher {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  useLive()
  // The menu, a pick on its way and its confirmation outlive this instance (see switcher-memory.ts).
  const [{ menuOpen, busy, feedback: own }, remember, memory] = useSwitcherMemory(sessionId)
  // A pick made in the conversation on screen before this one, whose word it could not give (see switcher-memory.ts).
  const elsewhere = useElsewhere(sessionId)
  const [panelOpen, setPanelOpen] = useState(false)
  const triggerRef = useRef<HTMLButtonElement | null>(null)
  const closeMenu = useCallback(() => {
    remember({ menuOpen: false })
    triggerRef.current?.focus()
  }, [remember])
  const closePanel = useCallback(() => {
    setPanelOpen(false)
  }, [])
  // A turn head's link to this conversation's own memories.
  useOpenRequest(
    'panel',
    (r) => r.sessionId === sessionId,
    () => {
      setPanelOpen(true)
    },
  )
  // Whatever the toast shows (this conversation's last pick, or the word owed for one made elsewhere) goes.
  const clearFeedback = useCallback(() => {
    if (memory.elsewhere() !== undefined) memory.setElsewhere(undefined)
    remember({ feedback: null, away: null })
  }, [memory, remember])
  const setFeedback = useCallback(
    (next: Feedback) => {
      if (next === null) clearFeedback()
      else remember({ feedback: next })
    },
    [clearFeedback, remember],
  )

  const state = snap.state
  const conversation = useConversation(sessionId)
  // Until the conversation's own settings are known, so is not its pin: the placeholder, not the default's name.
  const effective = state === null || conversation === undefined ? null : effectiveProfile(state, conversation.setting)
  const nameOf = (p: { name: string }): string => (p.name.trim() === '' ? t('list.unnamed') : p.name)
  // A pick's outcome here, or — when this conversation left the screen before the answer — in the switcher shown now.
  const told = (here: NonNullable<Feedback>, away: NonNullable<Feedback>): void => {
    if (memory.shown(sessionId)) remember({ feedback: here, away })
    else memory.setElsewhere({ sessionId, feedback: away })
  }
  const choose = async (profileId: string | null): Promise<void> => {
    closeMenu()
    if (state === null || effective === null) return
    const { profile, pinned, fallback } = effective
    if (profileId === (pinned ? profile.id : null)) return
    remember({ busy: true })
    try {
      await client.command('session.set', { sessionId, patch: { profileId } })
      const target = profileId === null ? fallback : (state.profiles.find((p) => p.id === profileId) ?? profile)
      const name = nameOf(target)
      const followed = profileId === null
      told(
        { kind: 'ok', text: t(followed ? 'switcher.didFollow' : 'switcher.didPin', { name }) },
        { kind: 'ok', text: t(followed ? 'switcher.didFollowElsewhere' : 'switcher.didPinElsewhere', { name }) },
      )
    } catch (error) {
      told(
        { kind: 'error', text: describeError(t, error) },
        { kind: 'error', text: t('switcher.failedElsewhere', { message: describeError(t, error) }) },
      )
    } finally {
      remember({ busy: false })
    }
  }
  const setMenuOpen = (open: boolean): void => remember({ menuOpen: open })
  const feedback = own ?? elsewhere?.feedback ?? null
  return {
    ...{ snap, effective, state, menuOpen, busy, feedback, panelOpen, setPanelOpen, triggerRef },
    ...{ setMenuOpen, closeMenu, closePanel, clearFeedback, setFeedback, choose },
  }
}
