/**
 * How the host half words a caught failure for logs, diagnostics and refusals: its message, never its stack, and
 * never a throw of its own — a hostile object whose `message` or `toString` throws still yields text.
 */

/** The message of a caught value. */
export function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable error'
  }
}
