/**
 * How the host half words a caught failure for logs, diagnostics and refusals: its message, never its stack, and
 * never a throw of its own — a hostile object whose `message` or `toString` throws still yields text; and, where the
 * text leaves the host's log, without the data directory's path.
 */

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
