/**
 * What differs between an imported profile and the one already there under its id, as the user reads it: one short
 * line in the UI's language, from the host's data (field, and for a name, a memory or a model the two values). Text
 * only; it never fetches or renders.
 */
import type { ClashDiff } from '../../shared/import-report.ts'
import type { T } from '../copy/locales.ts'

function part(t: T, d: ClashDiff): string {
  switch (d.field) {
    case 'name':
      return t('importClash.name', { mine: d.mine, theirs: d.theirs })
    case 'memory':
      return t('importClash.memory', { mine: d.mine, theirs: d.theirs })
    case 'model': {
      const own = t('importClash.conversationModel')
      return t('importClash.model', { mine: d.mine === '' ? own : d.mine, theirs: d.theirs === '' ? own : d.theirs })
    }
    default:
      return t(`importClash.${d.field}`)
  }
}

/** "Differs in: …" for one clash, or '' when the host named no difference (an older host sends none). */
export function clashText(t: T, differs: readonly ClashDiff[] | undefined): string {
  if (differs === undefined || differs.length === 0) return ''
  return t('importClash.differs', { fields: differs.map((d) => part(t, d)).join(t('importClash.sep')) })
}
