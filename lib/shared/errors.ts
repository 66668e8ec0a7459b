/**
 * The errors more than one room throws or catches, in one place: the store's refusal (`StoreError`: the commands,
 * the validation, the routes and the sync all throw it), a file that cannot be imported at all (`ImportError`), bytes
 * that are not a PNG (`PngError`); a room's own errors live in its own `errors.ts` (config, memory, store/db, sync).
 * And how the host half words a caught failure for logs, diagnostics and refusals: its message, never its stack, and
 * never a throw of its own — a hostile object whose `message` or `toString` throws still yields text; and, where the
 * text leaves the host's log, without the data directory's path. No behaviour but these classes' fields.
 */
import type { RefusalRule } from './refusals.ts'
import { note, type ImportNote, type ImportNoteKey, type NoteParams } from './import-notes.ts'

/**
 * Why a command was refused: bad input, a missing target, a rule of the data model, the disk, data a newer version
 * of the plugin made (`read-only`: this version may read it, never write it), or a data directory the system does
 * not let this user write (`unwritable`).
 */
export type StoreErrorCode = 'invalid' | 'not-found' | 'conflict' | 'locked' | 'io' | 'read-only' | 'unwritable'

/** The one error type the store throws; `field` is a path such as `patch.rules`, `limit` the bound it broke. */
export class StoreError extends Error {
  code: StoreErrorCode
  field?: string
  limit?: number
  /** The rule broken, by a name the settings page words in the user's language (`name.bidi`); most refusals have none. */
  rule?: RefusalRule
  /** What the rule's words name (a team library's name), for the page to say. */
  values?: string[]
  constructor(code: StoreErrorCode, message: string, field?: string, limit?: number) {
    super(message)
    this.name = 'StoreError'
    this.code = code
    if (field !== undefined) this.field = field
    if (limit !== undefined) this.limit = limit
  }
}

/**
 * Why a file cannot be imported at all: `field` is the path inside the file (`data.name`, `front matter`…), `note`
 * the reason as the page words it (the key, and the params with `limit` when there is one).
 */
export class ImportError extends Error {
  field: string
  limit?: number
  note: ImportNote
  constructor(field: string, key: ImportNoteKey, params: NoteParams = {}) {
    super(`${field}: ${key}${Object.keys(params).length === 0 ? '' : ` ${JSON.stringify(params)}`}`)
    this.name = 'ImportError'
    this.field = field
    this.note = note(key, params)
    if (typeof params.limit === 'number') this.limit = params.limit
  }
}

/** Thrown when bytes are not a PNG file at all. */
export class PngError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PngError'
  }
}

/** The message of a caught value. */
export function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable error'
  }
}

/** Characters that may follow a directory's path in a message: a separator, a quote, a space, the end. */
const AFTER_PATH = new Set(['/', '\\', "'", '"', '`', ' ', ')', ']', ',', ':', ';', '\n'])

/**
 * `text` with the data directory (each of `forms`, the ways its path appears in an OS's or SQLite's message: as
 * given, absolute, as a file URL's path) said as `words` instead: "the data directory" in a refusal an HTTP reply
 * carries, 数据目录 in a tool result the model reads. The path tells a local program or the model where the user's
 * home is and how it is laid out, which neither needs. A form is replaced only where it ends at a separator, a
 * quote, a space or the end, so that `/data` is not taken out of `/database`. Linear in the text per form.
 */
export function withoutDataDir(text: string, forms: readonly string[], words: string): string {
  let out = text
  for (const form of forms) {
    if (form.length < 2 || !out.includes(form)) continue
    let next = ''
    let from = 0
    for (let at = out.indexOf(form); at >= 0; at = out.indexOf(form, at + form.length)) {
      const after = out[at + form.length]
      if (after !== undefined && !AFTER_PATH.has(after)) continue
      next += out.slice(from, at) + words
      from = at + form.length
    }
    out = next + out.slice(from)
  }
  return out
}
