/**
 * Why a profile's model was not used, as the user reads it: the turn head's tooltip and the diagnostics say it the
 * same way. Text only; it never fetches or renders.
 */
import type { TurnModel } from '../../shared/models.ts'
import type { T } from '../copy/locales.ts'

/**
 * The reason in the user's language; the host's or the provider's own text of a refusal follows it, quoted, as a
 * detail for whoever reads the provider's documentation, never as the reason itself.
 */
export function unavailableText(
  t: T,
  m: Pick<TurnModel, 'why' | 'effort' | 'detail'> & { wanted?: { provider: string } },
): string {
  const provider = m.wanted?.provider ?? ''
  const why = m.why ?? 'refused'
  const text =
    why === 'effort' ? t('model.why.effort', { effort: m.effort ?? '' }) : t(`model.why.${why}`, { provider })
  return m.detail === undefined || m.detail === '' ? text : t('detail.quoted', { text, detail: m.detail })
}
