/**
 * The background import of a large file of the user's own, as the page and the host both see it: the status its
 * route (`import-own` in wire-table.ts) answers (progress while it runs, the report once it is done). Owns these shapes only; the job is
 * lib/store/import-batches.ts, the route lib/http/own-import-routes.ts.
 */
import type { FileResult } from './import-report.ts'
import type { Notice } from './notices.ts'

/** What a finished background import came to: the fields `profiles.importFiles` answers with. */
export interface OwnImportResult {
  imported: number
  files: FileResult[]
  userAdded: number
  notice: Notice
}

/**
 * The background import: none yet (`idle`), running with `done` of `total` units written (a unit is a profile or one
 * memory item), or finished (`done`, with its report; `failed`, with why, when it stopped before the end — the
 * profiles written until then stay, and its report says which).
 */
export interface OwnImportStatus {
  state: 'idle' | 'running' | 'done' | 'failed'
  /** Counts up from 1 for each import this process started, so a page can tell a new one from one it has shown. */
  id: number
  /** The file's name. */
  file: string
  done: number
  total: number
  /** The report so far (every profile written until now), final once the import is not running. */
  result?: OwnImportResult
  /** Why a failed import stopped (the store's words, for the log; the page words it from `code`). */
  error?: { code: string; message: string }
}
