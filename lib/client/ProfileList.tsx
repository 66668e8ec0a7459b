/**
 * The profile list of the settings page: avatar or emoji, name, which one is the global default, and how many
 * conversations pin each. Owns nothing but the rendering; selecting and creating are the page's decisions.
 */
import type { ReactNode } from 'react'
import type { WireState } from './api.ts'
import { Avatar } from './Avatar.tsx'
import { useT } from './locales.ts'

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

/** The list with a "new profile" button above it. */
export function ProfileList({ state, selectedId, dirtyId = null, onSelect, onCreate, busy = false }: ProfileListProps): ReactNode {
  const t = useT()
  const pins = pinCounts(state)
  return (
    <nav className="ap-panel ap-profile-list" aria-label={t('list.title')}>
      <div className="ap-row ap-row-between">
        <h3>{t('list.title')}</h3>
        <button type="button" className="ap-btn ap-btn-small" disabled={busy} onClick={onCreate}>+ {t('list.new')}</button>
      </div>
      <ul className="ap-list">
        {state.profiles.map((profile) => {
          const pinned = pins.get(profile.id) ?? 0
          const name = profile.name.trim() === '' ? t('list.unnamed') : profile.name
          return (
            <li key={profile.id}>
              <button
                type="button"
                className="ap-list-item"
                aria-current={profile.id === selectedId ? 'true' : undefined}
                data-profile-id={profile.id}
                onClick={() => { onSelect(profile.id) }}
              >
                <Avatar src={profile.avatar} emoji={profile.emoji} size={28} label={name} />
                <span className="ap-list-text">
                  <span className="ap-list-name">{name}{profile.id === dirtyId ? ' •' : ''}</span>
                  <span className="ap-list-meta">
                    {profile.id === state.activeId && <span className="ap-badge ap-badge-accent">{t('list.default')}</span>}
                    {pinned > 0 && <span>{t('list.pinned', { count: pinned })}</span>}
                  </span>
                </span>
              </button>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
