/**
 * The profile list of the settings page: avatar or emoji, name, which one is the global default, and how many
 * conversations pin each. Where the page is narrow (the stylesheet decides, from the page's own width) the list
 * folds behind a selector button showing the chosen profile, so the editor keeps the whole width; the list opens
 * below it and folds again once a profile is chosen. Owns only that open/closed state; selecting and creating are the
 * page's decisions.
 */
import { useId, useRef, useState, type ReactNode } from 'react'
import type { ProfileHead, WireState } from '../../shared/wire-state.ts'
import { Avatar } from '../common/Avatar.tsx'
import { useT } from '../copy/locales.ts'

/** Props of {@link ProfileList}. */
export interface ProfileListProps {
  state: WireState
  selectedId: string | null
  /** Id of the profile whose draft has unsaved edits, marked in the list. */
  dirtyId?: string | null
  onSelect(id: string): void
  onCreate(): void
  busy?: boolean
}

/** How many conversations pin each profile (the host counts them; the state carries no conversation settings). */
export function pinCounts(state: Pick<WireState, 'pins'>): Map<string, number> {
  return new Map(Object.entries(state.pins))
}

/** One profile as the list and the folded selector show it: picture, name, default badge, pins. */
function ProfileLine({
  profile,
  state,
  pinned,
  dirty,
}: {
  profile: ProfileHead
  state: WireState
  pinned: number
  dirty: boolean
}): ReactNode {
  const t = useT()
  const name = profile.name.trim() === '' ? t('list.unnamed') : profile.name
  return (
    <>
      <Avatar src={profile.avatar} emoji={profile.emoji} size={28} label={name} />
      <span className="ap-list-text">
        <span className="ap-list-name">
          {name}
          {dirty ? ' •' : ''}
        </span>
        <span className="ap-list-meta">
          {profile.id === state.activeId && <span className="ap-badge ap-badge-accent">{t('list.default')}</span>}
          {pinned > 0 && <span>{t('list.pinned', { count: pinned })}</span>}
          {profile.library !== undefined && (
            <span className="ap-badge" data-ap-library="">
              {t('list.library', { name: profile.library })}
            </span>
          )}
        </span>
      </span>
    </>
  )
}

/** The list with a "new profile" button above it, and the selector it folds behind on a narrow page. */
export function ProfileList({
  state,
  selectedId,
  dirtyId = null,
  onSelect,
  onCreate,
  busy = false,
}: ProfileListProps): ReactNode {
  const t = useT()
  const listId = useId()
  const toggle = useRef<HTMLButtonElement | null>(null)
  const [open, setOpen] = useState(false)
  const pins = pinCounts(state)
  const current = state.profiles.find((p) => p.id === selectedId)
  const choose = (id: string): void => {
    // The chosen row folds away with the list: focus goes to the selector rather than to nowhere.
    if (open) {
      setOpen(false)
      toggle.current?.focus()
    }
    onSelect(id)
  }
  return (
    <nav className="ap-panel ap-profile-list" aria-label={t('list.title')}>
      <div className="ap-row ap-row-between ap-list-head">
        <h3>{t('list.title')}</h3>
        {current !== undefined && (
          <button
            ref={toggle}
            type="button"
            className="ap-list-item ap-list-toggle"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => {
              setOpen(!open)
            }}
          >
            <span className="ap-sr-only">{t('list.choose')}</span>
            <ProfileLine
              profile={current}
              state={state}
              pinned={pins.get(current.id) ?? 0}
              dirty={current.id === dirtyId}
            />
            <span className="ap-list-chevron" aria-hidden="true">
              ▾
            </span>
          </button>
        )}
        <button type="button" className="ap-btn ap-btn-small" disabled={busy} onClick={onCreate}>
          + {t('list.new')}
        </button>
      </div>
      <ul id={listId} className="ap-list" data-open={open ? 'true' : undefined}>
        {state.profiles.map((profile) => (
          <li key={profile.id}>
            <button
              type="button"
              className="ap-list-item"
              aria-current={profile.id === selectedId ? 'true' : undefined}
              data-profile-id={profile.id}
              onClick={() => {
                choose(profile.id)
              }}
            >
              <ProfileLine
                profile={profile}
                state={state}
                pinned={pins.get(profile.id) ?? 0}
                dirty={profile.id === dirtyId}
              />
            </button>
          </li>
        ))}
      </ul>
    </nav>
  )
}
