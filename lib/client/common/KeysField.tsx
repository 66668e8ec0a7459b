/**
 * The search-keys field of a memory item, in the row editor and the add box: one line of keys separated by commas,
 * checked as the user types by the same rules the host applies (lib/shared/memory-keys.ts), a refusal worded in the
 * page's language with the field and the bound it broke. It holds no state (the row or the box does) and never saves.
 */
import type { ReactNode } from 'react'
import { keysProblem } from '../../shared/memory-keys.ts'
import { LIMITS } from '../../state/model.ts'
import { useT, type T } from '../copy/locales.ts'
import { fieldLabel, ruleText } from './feedback.ts'

/** Why `keys` cannot be saved, as the page says it ("Search keys: holds at most 12 search keys"), or null. */
export function keysError(t: T, keys: string): string | null {
  const problem = keysProblem(keys)
  if (problem === undefined) return null
  const message = ruleText(t, {
    field: 'keys',
    rule: problem.rule,
    ...(problem.limit === undefined ? {} : { limit: problem.limit }),
  })
  return t('error.field', { field: fieldLabel(t, 'keys'), message: message ?? '' })
}

/** The field: the input, and the refusal under it while the keys break a rule. */
export function KeysField({ value, onChange }: { value: string; onChange(next: string): void }): ReactNode {
  const t = useT()
  const problem = keysError(t, value)
  return (
    <>
      <input
        type="text"
        className="ap-input ap-memory-keys-input"
        aria-label={t('memory.keys')}
        placeholder={t('memory.keys')}
        title={t('memory.keysHint')}
        // Room for a whole list and its separators; the rules, not the box, say what is too long.
        maxLength={LIMITS.memoryKeys * 2}
        value={value}
        onChange={(e) => {
          onChange(e.currentTarget.value)
        }}
      />
      {problem !== null && (
        <div className="ap-error" role="alert">
          {problem}
        </div>
      )}
    </>
  )
}
