/**
 * An export's conversations packed for the way from the import worker to the host: as JSON text in parts, not as
 * objects. A worker's message is decoded whole on the host's event loop, and the conversations of a 200 MB export
 * (about 260,000 messages) as objects held it 0.35–0.9 s, a wait every page's state probe shared; a string is copied,
 * not decoded, and the host parses one part a turn (PART_MESSAGES messages or PART_CHARS characters at most: a few
 * ms), answering between parts. Pure; what the conversations hold is not its concern.
 */
import type { LearnConversation } from './conversation.ts'

/** Messages of one part at most (a conversation larger than that is a part alone). */
const PART_MESSAGES = 4_000

/** Characters of the messages of one part at most. */
const PART_CHARS = 1_000_000

/** `conversations` in order, cut into consecutive parts within PART_MESSAGES and PART_CHARS, each as JSON text. */
export function packConversations(conversations: readonly LearnConversation[]): string[] {
  const parts: string[] = []
  let from = 0
  let messages = 0
  let chars = 0
  conversations.forEach((c, i) => {
    let size = 0
    for (const m of c.messages) size += m.text.length
    if (i > from && (messages + c.messages.length > PART_MESSAGES || chars + size > PART_CHARS)) {
      parts.push(JSON.stringify(conversations.slice(from, i)))
      from = i
      messages = 0
      chars = 0
    }
    messages += c.messages.length
    chars += size
  })
  if (conversations.length > from) parts.push(JSON.stringify(conversations.slice(from)))
  return parts
}

/** The conversations of one part packConversations made. */
export function unpackPart(part: string): LearnConversation[] {
  return JSON.parse(part) as LearnConversation[]
}
