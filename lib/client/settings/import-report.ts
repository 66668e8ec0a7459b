/**
 * The words of an import report: each note and per-file refusal that `profiles.importFiles` gives as a key and its
 * parameters (lib/shared/import-notes.ts), worded from the `import.` keys of the copy files in the page's language,
 * the place in the file named for a person (`where`: "lorebook entry 3", never a path). Pure; ProfileFiles.tsx shows
 * the lines.
 */
import type { ApKey, Params, T } from '../copy/locales.ts'
import type { ImportNote } from '../../shared/import-notes.ts'

/** A place token of a note (`where`, `into`) as words, with the entry number or the card's own key it carries. */
function place(t: T, token: string, params: Params): string {
  return t(`import.where.${token}` as ApKey, { n: params.n ?? '', key: params.key ?? '' })
}

/** One note or refusal in the page's language. */
export function importNoteText(t: T, note: ImportNote): string {
  const params: Record<string, Params[string]> = { ...note.params }
  for (const k of ['where', 'into'] as const) {
    const token = params[k]
    if (typeof token === 'string') params[k] = place(t, token, params)
  }
  return t(`import.${note.key}` as ApKey, params)
}

/** The lines a file's outcome adds to the report: why it was not imported, and each of its notes. */
export function fileLines(t: T, file: { name: string; error?: ImportNote; warnings: readonly ImportNote[] }): string[] {
  const lines =
    file.error === undefined ? [] : [t('import.fileFailed', { file: file.name, reason: importNoteText(t, file.error) })]
  for (const w of file.warnings) lines.push(t('import.fileNote', { file: file.name, note: importNoteText(t, w) }))
  return lines
}
