/**
 * The rows the host half adds to a conversation's transcript when several profiles answer one message — "the next
 * profile answers" (the relay) and "back to the conversation's own profile" — as both halves read them. The host logs
 * each as a plugin message: its text is for the model (Chinese by design), and its `summary` is what the host's
 * transcript shows on the collapsed row, in Chinese too, for any reader of the log. The source also names the row's
 * kind and the profile (`row`, `name`), so that the page shows the row in its own language instead. It owns that
 * source's shape and its reading; it never renders anything and never decides who speaks.
 */

/** The plugin name on the rows (the host shows a plugin message as a collapsed context row naming it). */
export const ROWS_PLUGIN = 'agent-profiles'

/** What a row says: who answers next, or that the conversation's own profile answers again. */
type SpeakerRowKind = 'next' | 'back'

/** A row as the page words it. */
export interface SpeakerRow {
  row: SpeakerRowKind
  /** The profile's name when the row was written (user data, shown as it is). */
  name: string
}

/** What the host logs as the row's source. */
export interface SpeakerRowSource extends SpeakerRow {
  kind: 'plugin'
  plugin: typeof ROWS_PLUGIN
  form: 'notice'
  summary: string
}

/** The host's bound on a notice summary (dsh-llm's CONTEXT_SUMMARY_MAX_CHARS), which it ellipsizes beyond. */
const SUMMARY_MAX = 120
/** A name longer than any profile's (the store's limit is 40) is no row of ours. */
const NAME_MAX = 200

const NEXT_HEAD = '接下来由「'
const NEXT_TAIL = '」回答'
const BACK_HEAD = '回到「'
const BACK_TAIL = '」'

/** The Chinese summary of a row, as the log keeps it. */
function summaryOf(row: SpeakerRow): string {
  const text = row.row === 'next' ? `${NEXT_HEAD}${row.name}${NEXT_TAIL}` : `${BACK_HEAD}${row.name}${BACK_TAIL}`
  return text.slice(0, SUMMARY_MAX)
}

/** The source the host logs for a row. */
export function speakerRowSource(row: SpeakerRow): SpeakerRowSource {
  return { kind: 'plugin', plugin: ROWS_PLUGIN, form: 'notice', summary: summaryOf(row), row: row.row, name: row.name }
}

/** The name between `head` and `tail` of `summary`, or undefined when it is not that shape. */
function between(summary: string, head: string, tail: string): string | undefined {
  if (!summary.startsWith(head) || !summary.endsWith(tail)) return undefined
  const name = summary.slice(head.length, summary.length - tail.length)
  return name.length <= NAME_MAX ? name : undefined
}

/**
 * The row a message source stands for, or undefined when it is not one of ours. Reads `row` and `name`; a row logged
 * before they were written is read from its Chinese summary (its fixed shape), so older conversations show in the
 * page's language too. Bounded: only fields of known shape and at most a summary's length are read.
 */
export function speakerRowOf(source: unknown): SpeakerRow | undefined {
  if (typeof source !== 'object' || source === null) return undefined
  const s = source as Record<string, unknown>
  if (s.kind !== 'plugin' || s.plugin !== ROWS_PLUGIN) return undefined
  if ((s.row === 'next' || s.row === 'back') && typeof s.name === 'string' && s.name.length <= NAME_MAX)
    return { row: s.row, name: s.name }
  if (typeof s.summary !== 'string' || s.summary.length > SUMMARY_MAX) return undefined
  const next = between(s.summary, NEXT_HEAD, NEXT_TAIL)
  if (next !== undefined) return { row: 'next', name: next }
  const back = between(s.summary, BACK_HEAD, BACK_TAIL)
  return back === undefined ? undefined : { row: 'back', name: back }
}
