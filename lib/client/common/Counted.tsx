/**
 * A text field's label with its "3 / 40" counter beside it. The counter describes the field (`aria-describedby`)
 * rather than being part of its label, so a screen reader names the field "名称", not "名称 3 / 40", and still reads
 * the count after it. It never counts: the caller passes the length in the unit its limit is enforced in.
 */
import type { ReactNode } from 'react'
import { useT } from '../copy/locales.ts'

/** The id of the counter of the field `id`, for the field's `aria-describedby`. */
export const countId = (id: string): string => `${id}-count`

/** Props of {@link Counted}. */
export interface CountedProps {
  /** The id of the field labelled. */
  id: string
  label: string
  length: number
  limit: number
}

/** The label row of one counted field. */
export function Counted({ id, label, length, limit }: CountedProps): ReactNode {
  const t = useT()
  return (
    <div className="ap-field-label">
      <label htmlFor={id}>{label}</label>
      <span id={countId(id)} className={`ap-count${length > limit ? ' ap-count-over' : ''}`}>
        {t('hint.count', { count: length, limit })}
      </span>
    </div>
  )
}
