/**
 * Why a profile draft cannot be saved, in the user's words, read from the profile schema the store checks with; the
 * editor shows these under its save bar. It never saves nor changes the draft.
 */
import type { Profile } from '../../state/model.ts'
import { graphemeCount } from '../../state/graphemes.ts'
import { EDITABLE_FIELDS } from '../../shared/command-inputs.ts'
import { ProfileFields as ProfileFieldsSchema } from '../../state/schema-state.ts'
import type { T } from '../copy/locales.ts'

/** The text fields a draft's refusal names by their label. */
const TEXT_FIELDS = ['name', 'emoji', 'role', 'personality', 'speakingStyle', 'rules'] as const

/**
 * What keeps a draft from saving, in the user's words: the profile schema's refusals (lib/state/schema-state.ts) of
 * the fields the editor shows — an empty name, a field over its limit, too many memory items, a temperature out of
 * range. A refusal the editor has no words for (a control character pasted in) is the store's to word on save.
 */
export function draftProblems(t: T, value: Profile): string[] {
  const fields = Object.fromEntries(EDITABLE_FIELDS.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]))
  const r = ProfileFieldsSchema.safeParse(fields)
  if (r.success) return []
  const problems: string[] = []
  for (const issue of r.error.issues) {
    const [key, sub] = issue.path
    const limit =
      issue.code === 'too_big'
        ? Number(issue.maximum)
        : issue.code === 'custom'
          ? (issue.params?.limit as number | undefined)
          : undefined
    if (key === 'name' && issue.message === 'must not be empty') problems.push(t('editor.nameRequired'))
    else if (key === 'memory' && sub === 'items' && issue.path.length === 2 && limit !== undefined)
      problems.push(t('memory.tooMany', { limit }))
    else if (key === 'model' && sub === 'temperature' && limit !== undefined)
      problems.push(t('model.temperatureRange', { max: limit }))
    else if (limit !== undefined && (TEXT_FIELDS as readonly unknown[]).includes(key) && issue.path.length === 1) {
      const field = key as (typeof TEXT_FIELDS)[number]
      problems.push(
        t('editor.tooLong', {
          field: t(`field.${field}`),
          count: field === 'emoji' ? graphemeCount(value.emoji) : value[field].length,
          limit,
        }),
      )
    } else if (key === 'memory' && sub === 'summary' && limit !== undefined) {
      problems.push(t('editor.tooLong', { field: t('field.summary'), count: value.memory.summary.length, limit }))
    }
  }
  return problems
}
