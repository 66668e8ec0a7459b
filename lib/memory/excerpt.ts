/**
 * What background extraction (job.ts) reads of a conversation: the recent exchange as plain lines within a character
 * limit — only what the user typed and what the assistant answered — split by the profile that answered each line's
 * turn, and which turn each message of the log belongs to. Pure: it never calls the host or the store.
 */
import type { Message } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

function textOf(m: Message): string {
  return m.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim()
}

/** One excerpt line and the message it comes from. */
interface ExcerptLine {
  line: string
  message: Message
}

/** The excerpt's lines, oldest first, within `limit` characters counting one separator between lines. */
function excerptLines(messages: readonly Message[], limit: number): ExcerptLine[] {
  const lines: ExcerptLine[] = []
  let used = 0
  for (let i = messages.length - 1; i >= 0 && used < limit; i--) {
    const m = messages[i]!
    const who = m.role === 'assistant' ? '助手' : m.role === 'user' && m.source.kind === 'user' ? '用户' : undefined
    const text = who === undefined ? '' : textOf(m)
    if (text === '') continue
    let line = `${who}：${text}`
    const room = limit - used - (lines.length > 0 ? 1 : 0)
    if (line.length > room) line = room > 1 ? `…${line.slice(line.length - room + 1)}` : ''
    if (line === '') break
    lines.unshift({ line, message: m })
    used += line.length + (lines.length > 1 ? 1 : 0)
  }
  return lines
}

/**
 * The same excerpt split by the profile that answered each line's turn (`profileOf` of the message; undefined: the
 * conversation's own), in the order each profile first appears. Every part is a subset of the one excerpt's lines,
 * so together they stay within `limit`.
 */
export function excerptsByProfile(
  messages: readonly Message[],
  limit: number,
  profileOf: (m: Message) => string | undefined,
): { profileId: string | undefined; excerpt: string }[] {
  const parts = new Map<string | undefined, string[]>()
  for (const { line, message } of excerptLines(messages, limit)) {
    const id = profileOf(message)
    const lines = parts.get(id) ?? []
    lines.push(line)
    parts.set(id, lines)
  }
  return [...parts].map(([profileId, lines]) => ({ profileId, excerpt: lines.join('\n') }))
}

/**
 * Which turn each message of a conversation's log belongs to: an assistant message names its turn, a user message
 * belongs to the turn opened last before it.
 */
export function turnsOfMessages(events: readonly SessionEvent[]): Map<string, number> {
  const out = new Map<string, number>()
  let turn: number | undefined
  for (const e of events) {
    if (e.type === 'turn/start') turn = (e as SessionEvent<'turn/start'>).data.turn
    else if (e.type === 'assistant/message') {
      const data = (e as SessionEvent<'assistant/message'>).data
      out.set(data.message.id, data.turn)
    } else if (e.type === 'user/message' && turn !== undefined)
      out.set((e as SessionEvent<'user/message'>).data.id, turn)
  }
  return out
}
