/**
 * The cast in the quick switcher's menu: on each profile's row, beside the item that pins the conversation to it, a
 * check item that adds the profile to or removes it from this conversation's cast (the profiles `@all` asks, in the
 * order added), showing its place in that order; and the hint under the list. One row per profile: a second list of
 * the same profiles for the cast made the menu twice as tall. Owns the toggle and its command; the menu, its focus and
 * its confirmation are the switcher's. It never changes the conversation's own profile.
 */
import type { ReactNode } from 'react'
import { useApi } from '../data/api.ts'
import { describeError, noticeText } from '../common/feedback.ts'
import { useT } from '../copy/locales.ts'
import type { ProfileHead } from '../../shared/wire-state.ts'
import { LIMITS } from '../../state/model.ts'

/** What the switcher hands a row's cast toggle. */
export interface CastToggleProps {
  sessionId: string
  profile: ProfileHead
  /** The conversation's cast now (ids). */
  cast: readonly string[]
  /** Say how the change went (the switcher's confirmation). */
  onResult(result: { kind: 'ok' | 'error'; text: string }): void
}

/** The check item of one profile's row: its place in the cast when in it, `+` when not. */
export function CastToggle({ sessionId, profile, cast, onResult }: CastToggleProps): ReactNode {
  const t = useT()
  const client = useApi()
  const checked = cast.includes(profile.id)
  const toggle = async (): Promise<void> => {
    const next = checked ? cast.filter((x) => x !== profile.id) : [...cast, profile.id]
    try {
      const reply = await client.command('session.set', { sessionId, patch: { cast: next } })
      onResult({ kind: 'ok', text: noticeText(t, reply.notice) })
    } catch (error) {
      onResult({ kind: 'error', text: describeError(t, error) })
    }
  }
  const name = profile.name.trim() === '' ? t('list.unnamed') : profile.name
  const label = t(checked ? 'cast.remove' : 'cast.add', { name })
  return (
    <button
      type="button"
      role="menuitemcheckbox"
      aria-checked={checked}
      aria-label={label}
      title={label}
      className="ap-menu-item ap-cast-toggle"
      data-cast-profile-id={profile.id}
      disabled={!checked && cast.length >= LIMITS.cast}
      onClick={() => {
        void toggle()
      }}
    >
      {checked ? `${cast.indexOf(profile.id) + 1}` : '+'}
    </button>
  )
}

/** The hint under the list: what the cast is and how to address a profile. */
export function CastHint({ cast }: { cast: readonly string[] }): ReactNode {
  const t = useT()
  return (
    <div className="ap-menu-hint ap-cast-hint" data-ap-cast={cast.join(' ')}>
      {t('cast.hint', { limit: String(LIMITS.cast) })}
    </div>
  )
}
