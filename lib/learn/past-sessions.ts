/**
 * The user's own past dsh conversations as learning reads them: each top-level session the host's session query
 * lists (live or kept on disk), read through that query, its `user/message` events kept as the user's own words
 * only (what the user typed, never the assistant's answers, tool results or injected context).
 * Subagent sessions, sessions that write no memory and sessions a run learned already are skipped; one workspace's
 * sessions may be chosen. It never parses the host's files itself and never writes anything.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Message } from '@deepseek-ai/dsh-llm'
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session'
import { EXPORT_LIMITS, type LearnConversation, type LearnMessage } from './conversation.ts'

/** What this source needs of the host's session query (`ctx.sessionQuery`). */
export interface PastSessionReader {
  listSessions(signal?: AbortSignal): Promise<{ header: SessionHeader }[]>
  readSession(id: SessionHeader['id']): Promise<{ session: SessionHeader; events: readonly SessionEvent[] }>
}

/**
 * Which sessions are read: those of one workspace (its folder) or of all, less those that write no memory (incognito,
 * or answered by a profile whose memory is off: what the user kept out of memory then stays out now) and those a run
 * learned already.
 */
interface PastPick {
  cwd?: string
  writesNoMemory(sessionId: string): boolean
  learned: ReadonlySet<string>
}

/** Sessions checked for memory between two yields to the event loop. */
const CHECK_STEP = 250

/** The text blocks of a message the user typed, joined and cut to the export's bound; '' for any other message. */
function userWords(m: Message): string {
  if (m.role !== 'user' || m.source.kind !== 'user') return ''
  const text = m.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim()
  return text.slice(0, EXPORT_LIMITS.messageChars)
}

/**
 * One session's user messages, oldest first, each dated by its event (by the session's start when the event's clock
 * is not a time). A `user/message` event holds the message the model read as it is (the host derives the model's
 * history from it the same way); every other event is the assistant's, a tool's or the loop's own.
 */
function messagesOf(events: readonly SessionEvent[], start: number): LearnMessage[] {
  const out: LearnMessage[] = []
  for (const event of events) {
    if (event.type !== 'user/message') continue
    const text = userWords(event.data)
    const at = Number.isSafeInteger(event.time) && event.time > 0 ? event.time : start
    if (text !== '') out.push({ role: 'user', text, at })
  }
  return out
}

/**
 * The past conversations `reader` holds that `pick` chooses, those with at least one word of the user's, oldest
 * first, at most as many as an export may hold; and the workspaces (folders) of every session there is to learn
 * from, whichever `pick.cwd` chose. A session the query cannot read is left out (it is named in `unread`), so one
 * damaged log never stops the rest.
 */
export async function pastConversations(
  reader: PastSessionReader,
  pick: PastPick,
  signal?: AbortSignal,
): Promise<{ conversations: LearnConversation[]; unread: string[]; workspaces: string[] }> {
  const records = await reader.listSessions(signal)
  const open: SessionHeader[] = []
  for (const [i, { header: h }] of records.entries()) {
    // Whether a session writes no memory is a read of the store's record of its turns: thousands of them are read in
    // steps, the event loop free between two (every page and conversation waits while it is held).
    if (i > 0 && i % CHECK_STEP === 0) await nextTurn()
    if (h.origin === 'subagent' || (h.delegationDepth ?? 0) > 0) continue
    if (!pick.learned.has(h.id) && !pick.writesNoMemory(h.id)) open.push(h)
  }
  const workspaces = [...new Set(open.flatMap((h) => (h.cwd === undefined ? [] : [h.cwd])))].sort()
  const heads = open
    .filter((h) => pick.cwd === undefined || h.cwd === pick.cwd)
    .sort((a, b) => a.createdAt - b.createdAt)
    .slice(0, EXPORT_LIMITS.conversations)
  const conversations: LearnConversation[] = []
  const unread: string[] = []
  for (const h of heads) {
    signal?.throwIfAborted()
    let events: readonly SessionEvent[]
    try {
      events = (await reader.readSession(h.id)).events
    } catch {
      unread.push(h.id)
      continue
    }
    const messages = messagesOf(events, h.createdAt)
    if (messages.length > 0) conversations.push({ id: h.id, title: '', at: h.createdAt, messages })
  }
  return { conversations, unread, workspaces }
}
