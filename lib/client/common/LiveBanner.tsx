/**
 * The line a page shows while it cannot get its push channel (the host refused it again and again, or is gone): its
 * saves still answer by their own requests, but changes made elsewhere reach it only when the user comes back to it,
 * and the user should know. Owns only that line; the channel and its mode are data/live.ts's.
 */
import type { ReactNode } from 'react'
import { useLiveMode } from '../data/live.ts'
import { useT } from '../copy/locales.ts'

/** The banner of a page whose live updates are off; nothing while they work (or are still connecting). */
export function LiveBanner(): ReactNode {
  const t = useT()
  if (useLiveMode() !== 'fallback') return null
  return (
    <div className="ap-notice ap-conflict ap-live-off" role="status" data-ap-live-off="">
      {t('live.off')}
    </div>
  )
}
