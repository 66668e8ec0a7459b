/**
 * The provenance policy for what the database holds (lib/provenance `asStored`), as the functions store/db applies
 * to every row it loads (store/db/stored-values.ts): a stored item keeps the provenance it was saved with, and one saved
 * without any reads as the user's own, from the time of the read. Handed to each load and reload; no other job.
 */
import { itemOf, profileOf, settingOf, stateOf, undoOf, writeOf, asStored } from '../provenance/provenance.ts'
import type { StoredValuesAt } from './db/stored-values.ts'

/** The state's values of rows read at `now`. */
export const storedValuesAt: StoredValuesAt = (now) => {
  const d = asStored(now)
  return {
    item: (parsed) => itemOf(parsed, d),
    profile: (parsed, field) => profileOf(parsed, field, d),
    setting: (parsed, field) => settingOf(parsed, field, d),
    undo: (parsed, field) => undoOf(parsed, field, d),
    write: (parsed, field) => writeOf(parsed, field, d),
    state: (parsed, field) => stateOf(parsed, field, d),
  }
}
