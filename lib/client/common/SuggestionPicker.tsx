/**
 * The bulk control over a list's suggestions ({@link Suggestions}): a select-all box, then approve selected and dismiss
 * selected, each sending one command for every ticked suggestion; and the tick box of one suggestion. Native check
 * boxes and buttons, so Tab reaches each one and Space ticks. It holds no state (use-suggestion-picks.ts does).
 */
import { useEffect, useRef, type ReactNode } from 'react'
import type { MemoryItem } from '../../state/model.ts'
import { useT } from '../copy/locales.ts'
import { OutcomeLine } from './Outcome.tsx'
import type { SuggestionPicks } from './use-suggestion-picks.ts'

/** Select all, approve selected, dismiss selected. */
export function SuggestionBulk({ picks, total }: { picks: SuggestionPicks; total: number }): ReactNode {
  const t = useT()
  const all = useRef<HTMLInputElement>(null)
  const count = picks.picked.length
  // "Some ticked" is a third state a check box shows only through this property.
  useEffect(() => {
    if (all.current !== null) all.current.indeterminate = count > 0 && count < total
  }, [count, total])
  return (
    <div className="ap-suggestion-bulk" role="group" aria-label={t('suggest.bulk')}>
      <label className="ap-check">
        <input
          ref={all}
          type="checkbox"
          checked={count > 0 && count === total}
          disabled={picks.busy}
          onChange={picks.toggleAll}
        />
        <span>{t('suggest.pickAll')}</span>
      </label>
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-primary"
        disabled={picks.busy || count === 0}
        onClick={() => {
          void picks.decide(true)
        }}
      >
        {t('suggest.approvePicked', { count })}
      </button>
      <button
        type="button"
        className="ap-btn ap-btn-small ap-btn-danger"
        disabled={picks.busy || count === 0}
        onClick={() => {
          void picks.decide(false)
        }}
      >
        {t('suggest.dismissPicked', { count })}
      </button>
      <OutcomeLine outcome={picks.outcome} />
    </div>
  )
}

/** The tick box of one suggestion. */
export function SuggestionTick({ item, picks }: { item: MemoryItem; picks: SuggestionPicks }): ReactNode {
  const t = useT()
  return (
    <input
      type="checkbox"
      className="ap-suggestion-tick"
      aria-label={t('suggest.pickFact', { text: item.text })}
      checked={picks.isPicked(item.id)}
      disabled={picks.busy}
      onChange={() => {
        picks.toggle(item.id)
      }}
    />
  )
}
