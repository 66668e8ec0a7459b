/**
 * The composer's quick switcher (slot `conversation.input.left`): this conversation's effective profile (avatar or
 * emoji, name, pinned or following the global default, the model it brings), a menu to pin another profile or follow the default again,
 * and the ⚙ button that opens the conversation panel. Renders the menu and the confirmation of each change; their
 * state and the pick are use-switcher.ts's (kept per conversation by switcher-memory.ts, so that they outlive this
 * component); the data lives in the shared api store. It never touches the transcript and never renders nothing: a placeholder control
 * stands in while loading and when loading failed.
 */
import { useState, type KeyboardEvent, type ReactNode } from 'react'
import type { WireState } from '../../shared/wire-state.ts'
import { useApi } from '../data/api.ts'
import { Avatar } from '../common/Avatar.tsx'
import { ConversationPanel } from './ConversationPanel.tsx'
import { CastHint, CastToggle } from './CastItems.tsx'
import type { Effective } from './conversation-profile.ts'
import { describeError } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import { Popover, Toast } from '../common/popover.tsx'
import { SessionTitles, type UseSessions } from '../common/session-titles.tsx'
import type { Feedback } from './switcher-memory.ts'
import { useSwitcher, type Switcher } from './use-switcher.ts'

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
  const sw = useSwitcher(sessionId)
  const { effective, state, menuOpen, busy, feedback, panelOpen } = sw
  // A state, not a ref: an instance that mounts with its menu already open (a remount) anchors it once the root is there.
  const [root, setRoot] = useState<HTMLSpanElement | null>(null)
  // The open menu's element: a toast keeps clear of it.
  const [menuLayer, setMenuLayer] = useState<HTMLDivElement | null>(null)
  if (state === null || effective === null) return <Placeholder switcher={sw} />

  const { profile, pinned } = effective
  const stateLabel = pinned ? t('switcher.pinned') : t('switcher.following')
  const label = t('switcher.label', { name: nameOf(t, profile), state: stateLabel })
  const title = profile.model === undefined ? label : `${label}\n${t('switcher.model', { model: profile.model })}`
  return (
    <span className="ap-root ap-switcher" ref={setRoot} data-ap-switcher={profile.id} data-ap-pinned={pinned}>
      <button
        ref={sw.triggerRef}
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
          sw.setPanelOpen(false)
          sw.setFeedback(null)
          // Profiles may have been added or renamed in another window since this page loaded.
          if (!menuOpen) void client.refresh()
          sw.setMenuOpen(!menuOpen)
        }}
      >
        <Avatar src={profile.avatar} emoji={profile.emoji} size={SMALL_AVATAR} label={profile.name} />
        <span className="ap-switcher-name">{nameOf(t, profile)}</span>
        <span className={`ap-switcher-state${pinned ? ' ap-switcher-state-pinned' : ''}`}>{stateLabel}</span>
        <span className="ap-switcher-caret" aria-hidden="true">
          ▾
        </span>
      </button>
      <Badges effective={effective} />
      <Gear switcher={sw} />
      {menuOpen && root !== null && (
        <Popover
          anchor={root}
          onClose={sw.closeMenu}
          width={MENU_WIDTH}
          className="ap-menu"
          role="menu"
          label={t('switcher.menu')}
          onKeyDown={moveFocus}
          layerRef={setMenuLayer}
        >
          <MenuItems sessionId={sessionId} state={state} effective={effective} switcher={sw} />
        </Popover>
      )}
      <SessionTitles useSessions={useSessions}>
        {panelOpen && <ConversationPanel key={sessionId} sessionId={sessionId} anchor={root} onClose={sw.closePanel} />}
      </SessionTitles>
      {feedback !== null && (
        <Toast
          anchor={root}
          clear={menuOpen ? menuLayer : null}
          kind={feedback.kind}
          text={feedback.text}
          onDone={sw.clearFeedback}
        />
      )}
    </span>
  )
}

/** The ⚙ button, which opens and closes the conversation panel. */
function Gear({ switcher: sw }: { switcher: Switcher }): ReactNode {
  const t = useT()
  return (
    <button
      type="button"
      className="ap-switcher-gear"
      aria-haspopup="dialog"
      aria-expanded={sw.panelOpen}
      aria-label={t('switcher.settings')}
      title={t('switcher.settings')}
      onClick={() => {
        sw.setMenuOpen(false)
        // The panel sits where the last confirmation floats; it speaks for itself from here on.
        sw.setFeedback(null)
        sw.setPanelOpen((open) => !open)
      }}
    >
      ⚙
    </button>
  )
}

/** A profile's name as shown: "unnamed" for a blank one. */
function nameOf(t: ReturnType<typeof useT>, p: { name: string }): string {
  return p.name.trim() === '' ? t('list.unnamed') : p.name
}

/** The control that stands in while loading, and when loading failed (then a retry). */
function Placeholder({ switcher }: { switcher: Switcher }): ReactNode {
  const t = useT()
  const client = useApi()
  const { snap } = switcher
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

/** Suggestions awaiting approval, and incognito, beside the trigger. */
function Badges({ effective }: { effective: Effective }): ReactNode {
  const t = useT()
  const pendingCount =
    (effective.profile.pending ?? 0) + (effective.setting?.memories ?? []).filter((it) => it.pending === true).length
  return (
    <>
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
    </>
  )
}

/** Props of {@link MenuItems}. */
interface MenuItemsProps {
  sessionId: string
  state: WireState
  effective: Effective
  switcher: Switcher
}

/** The menu: follow the default, each profile to pin (with its cast toggle), and the cast's hint. */
function MenuItems({ sessionId, state, effective, switcher }: MenuItemsProps): ReactNode {
  const t = useT()
  const { profile, pinned, fallback } = effective
  const cast = effective.setting?.cast ?? []
  const setFeedback = (next: Feedback): void => switcher.setFeedback(next)
  return (
    <>
      <div className="ap-menu-title">{t('switcher.menu')}</div>
      <button
        type="button"
        role="menuitemradio"
        aria-checked={!pinned}
        className="ap-menu-item"
        autoFocus={!pinned}
        onClick={() => {
          void switcher.choose(null)
        }}
      >
        <span className="ap-menu-check" aria-hidden="true">
          {pinned ? '' : '✓'}
        </span>
        <span className="ap-menu-text">
          <span className="ap-menu-name">{t('switcher.follow')}</span>
          <span className="ap-menu-hint">{t('switcher.followHint', { name: nameOf(t, fallback) })}</span>
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
                void switcher.choose(p.id)
              }}
            >
              <span className="ap-menu-check" aria-hidden="true">
                {checked ? '✓' : ''}
              </span>
              <Avatar src={p.avatar} emoji={p.emoji} size={24} label={p.name} />
              <span className="ap-menu-text">
                <span className="ap-menu-name">{nameOf(t, p)}</span>
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
    </>
  )
}
