/**
 * Why a profile's model was not used, as the user reads it: the turn head's tooltip and the diagnostics say it the
 * same way. Text only; it never fetches or renders.
 */
import type { TurnModel } from '../../shared/contract.ts'
import type { T } from '../copy/locales.ts'

/** The reason in the user's language; the host's own words appear only for a refusal, which only it can word. */
export function unavailableText(
  t: T,
  m: { why?: TurnModel['why']; reason?: string; wanted?: { provider: string } },
): string {
  const provider = m.wanted?.provider ?? ''
  if (m.why === 'no-provider') return t('model.why.no-provider', { provider })
  if (m.why === 'not-listed') return t('model.why.not-listed', { provider })
  if (m.why === 'no-key') return t('model.why.no-key', { provider })
  if (m.why === 'call-failed') return t('model.why.call-failed', { provider })
  return t('model.why.refused', { reason: m.reason ?? '' })
}
