/**
 * The cast part of the quick switcher's menu: one check item per profile, adding it to or removing it from this
 * conversation's cast (the profiles `@all` asks, in the order added). Owns that section and its command; the menu,
 * its focus and its confirmation are the switcher's. It never changes the conversation's own profile.
 */
import type { ReactNode } from 'react'
import { useApi } from '../data/api.ts'
import { Avatar } from '../common/Avatar.tsx'
import { describeError, noticeText } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import type { ProfileHead } from '../../shared/contract.ts'
import { LIMITS } from '../../state/model.ts'

/** What the switcher hands the section. */
export interface CastItemsProps {
  sessionId: string
  profiles: readonly ProfileHead[]
  /** The conversation's cast now (ids). */
  cast: readonly string[]
  /** Say how the change went (the switcher's confirmation). */
  onResult(result: { kind: 'ok' | 'error'; text: string }): void
}

/** The cast section: a title and a check item per profile. */
export function CastItems({ sessionId, profiles, cast, onResult }: CastItemsProps): ReactNode {
  const t = useT()
  const client = useApi()
  const toggle = async (id: string): Promise<void> => {
    const next = cast.includes(id) ? cast.filter((x) => x !== id) : [...cast, id]
    try {
      const reply = await client.command('session.set', { sessionId, patch: { cast: next } })
      onResult({ kind: 'ok', text: noticeText(t, reply.notice) })
    } catch (error) {
      onResult({ kind: 'error', text: describeError(t, error) })
    }
  }
  const full = cast.length >= LIMITS.cast
  return (
    <div role="group" aria-label={t('cast.title')} data-ap-cast={cast.join(' ')}>
      <div className="ap-menu-title">{t('cast.title')}</div>
      {profiles.map((p) => {
        const checked = cast.includes(p.id)
        return (
          <button
            key={p.id}
            type="button"
            role="menuitemcheckbox"
            aria-checked={checked}
            className="ap-menu-item"
            data-cast-profile-id={p.id}
            disabled={!checked && full}
            onClick={() => {
              void toggle(p.id)
            }}
          >
            <span className="ap-menu-check" aria-hidden="true">
              {checked ? `${cast.indexOf(p.id) + 1}` : ''}
            </span>
            <Avatar src={p.avatar} emoji={p.emoji} size={20} label={p.name} />
            <span className="ap-menu-text">
              <span className="ap-menu-name">{p.name.trim() === '' ? t('list.unnamed') : p.name}</span>
            </span>
          </button>
        )
      })}
      <div className="ap-menu-hint ap-cast-hint">{t('cast.hint', { limit: String(LIMITS.cast) })}</div>
    </div>
  )
}
