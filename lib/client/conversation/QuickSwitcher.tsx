/**
 * The composer's quick switcher (slot `conversation.input.left`): this conversation's effective profile (avatar or
 * emoji, name, pinned or following the global default, the model it brings), a menu to pin another profile or follow the default again,
 * and the ⚙ button that opens the conversation panel. Owns the menu and the confirmation of each change (their state
 * kept per conversation by switcher-memory.ts, so that they outlive this component); the data lives in the shared api
 * store. It never touches the transcript and never renders nothing: a placeholder control
 * stands in while loading and when loading failed.
 */
import { useCallback, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useApi, useApState, useConversation } from '../data/api.ts'
import { useLive } from '../data/live.ts'
import { Avatar } from '../common/Avatar.tsx'
import { ConversationPanel } from './ConversationPanel.tsx'
import { CastHint, CastToggle } from './CastItems.tsx'
import { useOpenRequest } from '../common/open-requests.ts'
import { effectiveProfile } from './conversation-profile.ts'
import { describeError } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import { Popover, Toast } from '../common/popover.tsx'
import { SessionTitles, type UseSessions } from '../common/session-titles.tsx'
import { useElsewhere, useSwitcherMemory, type Feedback } from './switcher-memory.ts'

/** Props the composer seat passes that the switcher reads (the host passes more). */
export interface QuickSwitcherProps {
  sessionId: string
  /** The host's session list, which names a memory's conversation by its title in the ⚙ panel. */
  useSessions?: UseSessions
}

const MENU_WIDTH = 280
const SMALL_AVATAR = 20

/** Move focus between the menu's items with the arrow keys, Home and End. */
function moveFocus(event: KeyboardEvent<HTMLDivElement>): void {
  const items = [
    ...event.currentTarget.querySelectorAll<HTMLElement>(
      '[role="menuitemradio"], [role="menuitemcheckbox"], [role="menuitem"]',
    ),
  ]
  const at = items.indexOf(document.activeElement as HTMLElement)
  const next =
    event.key === 'ArrowDown'
      ? at + 1
      : event.key === 'ArrowUp'
        ? at - 1
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? items.length - 1
            : null
  if (next === null || items.length === 0) return
  event.preventDefault()
  items[(next + items.length) % items.length]!.focus()
}

/** The switcher. */
export function QuickSwitcher({ sessionId, useSessions }: QuickSwitcherProps): ReactNode {
  const t = useT()
  const client = useApi()
  const snap = useApState()
  useLive()
  // The menu, a pick on its way and its confirmation outlive this instance (see switcher-memory.ts).
  const [{ menuOpen, busy, feedback: own }, remember, memory] = useSwitcherMemory(sessionId)
  // A pick made in the conversation on screen before this one, whose word it could not give (see switcher-memory.ts).
  const elsewhere = useElsewhere(sessionId)
  const feedback = own ?? elsewhere?.feedback ?? null
  const [panelOpen, setPanelOpen] = useState(false)
  // A state, not a ref: an instance that mounts with its menu already open (a remount) anchors it once the root is there.
  const [root, setRoot] = useState<HTMLSpanElement | null>(null)
  // The open menu's element: a toast keeps clear of it.
  const [menuLayer, setMenuLayer] = useState<HTMLDivElement | null>(null)
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
  if (state === null || effective === null) {
    const failed = snap.status === 'error'
    return (
      <span className="ap-root ap-switcher" data-ap-switcher="placeholder">
        <button
          type="button"
          className={`ap-switcher-trigger${failed ? ' ap-switcher-error' : ''}`}
          disabled={!failed}
          title={failed ? t('switcher.loadFailed', { message: describeError(t, snap.error) }) : undefined}
          onClick={() => {
            void client.refresh()
          }}
        >
          {failed ? `⚠ ${t('switcher.retry')}` : t('switcher.loading')}
        </button>
      </span>
    )
  }

  const { profile, pinned, fallback } = effective
  const nameOf = (p: { name: string }): string => (p.name.trim() === '' ? t('list.unnamed') : p.name)
  // A pick's outcome here, or — when this conversation left the screen before the answer — in the switcher shown now.
  const told = (here: NonNullable<Feedback>, away: NonNullable<Feedback>): void => {
    if (memory.shown(sessionId)) remember({ feedback: here, away })
    else memory.setElsewhere({ sessionId, feedback: away })
  }
  const choose = async (profileId: string | null): Promise<void> => {
    closeMenu()
    if (profileId === (pinned ? profile.id : null)) return
    remember({ busy: true })
    try {
      await client.command('session.set', { sessionId, patch: { profileId } })
      const target = profileId === null ? fallback : (state.profiles.find((p) => p.id === profileId) ?? profile)
      const name = nameOf(target)
      told(
        { kind: 'ok', text: t(profileId === null ? 'switcher.didFollow' : 'switcher.didPin', { name }) },
        {
          kind: 'ok',
          text: t(profileId === null ? 'switcher.didFollowElsewhere' : 'switcher.didPinElsewhere', { name }),
        },
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
  const stateLabel = pinned ? t('switcher.pinned') : t('switcher.following')
  const label = t('switcher.label', { name: nameOf(profile), state: stateLabel })
  const title = profile.model === undefined ? label : `${label}\n${t('switcher.model', { model: profile.model })}`
  const cast = effective.setting?.cast ?? []
  const pendingCount =
    (profile.pending ?? 0) + (effective.setting?.memories ?? []).filter((it) => it.pending === true).length

  return (
    <span className="ap-root ap-switcher" ref={setRoot} data-ap-switcher={profile.id} data-ap-pinned={pinned}>
      <button
        ref={triggerRef}
        type="button"
        className="ap-switcher-trigger"
        aria-haspopup="menu"
        aria-expanded={menuOpen}
        aria-label={label}
        title={title}
        data-ap-model={profile.model}
        // Not `disabled` while a pick is saved: a disabled button drops the focus that the pick just gave back to it.
        aria-disabled={busy}
        onClick={() => {
          if (busy) return
          setPanelOpen(false)
          setFeedback(null)
          // Profiles may have been added or renamed in another window since this page loaded.
          if (!menuOpen) void client.refresh()
          remember({ menuOpen: !menuOpen })
        }}
      >
        <Avatar src={profile.avatar} emoji={profile.emoji} size={SMALL_AVATAR} label={profile.name} />
        <span className="ap-switcher-name">{nameOf(profile)}</span>
        <span className={`ap-switcher-state${pinned ? ' ap-switcher-state-pinned' : ''}`}>{stateLabel}</span>
        <span className="ap-switcher-caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {pendingCount > 0 && (
        <span
          className="ap-badge ap-badge-accent ap-switcher-pending"
          data-ap-pending={pendingCount}
          title={t('switcher.pendingHint', { count: pendingCount })}
        >
          {t('switcher.pending', { count: pendingCount })}
        </span>
      )}
      {effective.setting?.incognito === true && (
        <span className="ap-badge ap-switcher-incognito" data-ap-incognito="" title={t('switcher.incognitoHint')}>
          {t('switcher.incognito')}
        </span>
      )}
      <button
        type="button"
        className="ap-switcher-gear"
        aria-haspopup="dialog"
        aria-expanded={panelOpen}
        aria-label={t('switcher.settings')}
        title={t('switcher.settings')}
        onClick={() => {
          remember({ menuOpen: false })
          // The panel sits where the last confirmation floats; it speaks for itself from here on.
          setFeedback(null)
          setPanelOpen((open) => !open)
        }}
      >
        ⚙
      </button>
      {menuOpen && root !== null && (
        <Popover
          anchor={root}
          onClose={closeMenu}
          width={MENU_WIDTH}
          className="ap-menu"
          role="menu"
          label={t('switcher.menu')}
          onKeyDown={moveFocus}
          layerRef={setMenuLayer}
        >
          <div className="ap-menu-title">{t('switcher.menu')}</div>
          <button
            type="button"
            role="menuitemradio"
            aria-checked={!pinned}
            className="ap-menu-item"
            autoFocus={!pinned}
            onClick={() => {
              void choose(null)
            }}
          >
            <span className="ap-menu-check" aria-hidden="true">
              {pinned ? '' : '✓'}
            </span>
            <span className="ap-menu-text">
              <span className="ap-menu-name">{t('switcher.follow')}</span>
              <span className="ap-menu-hint">{t('switcher.followHint', { name: nameOf(fallback) })}</span>
            </span>
          </button>
          <hr className="ap-menu-sep" />
          {state.profiles.map((p) => {
            const checked = pinned && p.id === profile.id
            return (
              <div key={p.id} className="ap-menu-row" role="none">
                <button
                  type="button"
                  role="menuitemradio"
                  aria-checked={checked}
                  className="ap-menu-item"
                  data-profile-id={p.id}
                  autoFocus={checked}
                  onClick={() => {
                    void choose(p.id)
                  }}
                >
                  <span className="ap-menu-check" aria-hidden="true">
                    {checked ? '✓' : ''}
                  </span>
                  <Avatar src={p.avatar} emoji={p.emoji} size={24} label={p.name} />
                  <span className="ap-menu-text">
                    <span className="ap-menu-name">{nameOf(p)}</span>
                    {p.id === state.activeId && <span className="ap-menu-hint">{t('list.default')}</span>}
                    {p.model !== undefined && (
                      <span className="ap-menu-hint" data-ap-model={p.model}>
                        {t('switcher.model', { model: p.model })}
                      </span>
                    )}
                  </span>
                </button>
                <CastToggle sessionId={sessionId} profile={p} cast={cast} onResult={setFeedback} />
              </div>
            )
          })}
          <hr className="ap-menu-sep" />
          <CastHint cast={cast} />
        </Popover>
      )}
      <SessionTitles useSessions={useSessions}>
        {panelOpen && <ConversationPanel key={sessionId} sessionId={sessionId} anchor={root} onClose={closePanel} />}
      </SessionTitles>
      {feedback !== null && (
        <Toast
          anchor={root}
          clear={menuOpen ? menuLayer : null}
          kind={feedback.kind}
          text={feedback.text}
          onDone={clearFeedback}
        />
      )}
    </span>
  )
}
