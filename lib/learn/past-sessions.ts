/**
 * The user's own past dsh conversations as learning reads them: each top-level session the host's session query
 * lists (live or kept on disk), read through that query and replayed with the host's own message derivation, kept as
 * the user's own words only (what the user typed, never the assistant's answers, tool results or injected context).
 * Subagent sessions, sessions the caller marks incognito and sessions a run learned already are skipped. It never
 * parses the host's files itself and never writes anything.
 */
import type { Message } from '@deepseek-ai/dsh-llm'
import { deriveEventMessage, type SessionEvent, type SessionHeader } from '@deepseek-ai/dsh-session'
import { EXPORT_LIMITS, type LearnConversation, type LearnMessage } from './conversation.ts'

/** What this source needs of the host's session query (`ctx.sessionQuery`). */
export interface PastSessionReader {
  listSessions(signal?: AbortSignal): Promise<{ header: SessionHeader }[]>
  readSession(id: SessionHeader['id']): Promise<{ session: SessionHeader; events: SessionEvent[] }>
}

/** Which sessions are left out besides subagents: the incognito ones and those a run learned already. */
interface PastSkip {
  incognito(sessionId: string): boolean
  learned: ReadonlySet<string>
}

/** The text blocks of a message the user typed, joined and cut to the export's bound; '' for any other message. */
function userWords(m: Message): string {
  if (m.role !== 'user' || m.source.kind !== 'user') return ''
  const text = m.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim()
  return text.slice(0, EXPORT_LIMITS.messageChars)
}

/** One session's user messages, oldest first, each dated by the session's start (the log's events carry no clock). */
function messagesOf(events: readonly SessionEvent[], at: number): LearnMessage[] {
  const out: LearnMessage[] = []
  for (const event of events) {
    const m = deriveEventMessage(event)
    const text = m === null ? '' : userWords(m)
    if (text !== '') out.push({ role: 'user', text, at })
  }
  return out
}

/**
 * The past conversations `reader` holds that `skip` leaves, those with at least one word of the user's, oldest
 * first, at most as many as an export may hold. A session the query cannot read is left out (it is named in
 * `unread`), so one damaged log never stops the rest.
 */
export async function pastConversations(
  reader: PastSessionReader,
  skip: PastSkip,
  signal?: AbortSignal,
): Promise<{ conversations: LearnConversation[]; unread: string[] }> {
  const records = await reader.listSessions(signal)
  const heads = records
    .map((r) => r.header)
    .filter((h) => h.origin !== 'subagent' && (h.delegationDepth ?? 0) === 0)
    .filter((h) => !skip.learned.has(h.id) && !skip.incognito(h.id))
    .sort((a, b) => a.createdAt - b.createdAt)
    .slice(0, EXPORT_LIMITS.conversations)
  const conversations: LearnConversation[] = []
  const unread: string[] = []
  for (const h of heads) {
    signal?.throwIfAborted()
    let events: SessionEvent[]
    try {
      events = (await reader.readSession(h.id)).events
    } catch {
      unread.push(h.id)
      continue
    }
    const messages = messagesOf(events, h.createdAt)
    if (messages.length > 0) conversations.push({ id: h.id, title: '', at: h.createdAt, messages })
  }
  return { conversations, unread }
}
