/**
 * The export of one profile by id, as `GET /__ap/export/<id>?format=…` asks for it: finds the profile in the state
 * and has lib/interop/file-export.ts write it. A read: it never changes the state. Throws StoreError `not-found` for
 * an unknown profile (checked before the format), `invalid` for an unknown format.
 */
import type { State } from '../state/model.ts'
import { exportFile, type ProfileFile } from '../interop/file-export.ts'
import { findProfile } from './kit.ts'

/** Profile `id` as a file in `format`; `lang` picks the Markdown headings. */
export function profileFile(state: State, id: string, format: string | null, lang: string | null): ProfileFile {
  return exportFile(findProfile(state, id, 'id'), format, lang)
}
