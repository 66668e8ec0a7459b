/**
 * One conversation of a Claude data export (an element of its conversations.json) as learning reads it: its
 * `chat_messages` in order, `human` as the user and `assistant` as the assistant. A message's text is its content
 * blocks of type `text` (the `text` field when it has none); tool use, tool results, thinking, attachments and files
 * (whose extracted contents the export carries) are left out: they are documents and tools, not what the user said.
 * Pure; never throws for what the element holds.
 */
import { EXPORT_LIMITS, type LearnConversation, type LearnMessage } from './conversation.ts'
import { fromIso, textOf } from './text.ts'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A message's text: its `text` content blocks joined, else its `text` field. */
function messageText(m: Json): string {
  if (Array.isArray(m.content)) {
    const texts: string[] = []
    let length = 0
    for (const block of m.content) {
      if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') continue
      texts.push(block.text)
      length += block.text.length
      if (length >= EXPORT_LIMITS.messageChars) break
    }
    if (texts.length > 0) return textOf(texts.join('\n'), EXPORT_LIMITS.messageChars).trim()
  }
  return textOf(m.text, EXPORT_LIMITS.messageChars).trim()
}

/** One element of a Claude conversations.json, or undefined when it holds no conversation with text. */
export function claudeConversation(value: unknown): LearnConversation | undefined {
  if (!isObject(value) || !Array.isArray(value.chat_messages)) return undefined
  const messages: LearnMessage[] = []
  for (const m of value.chat_messages) {
    if (!isObject(m)) continue
    const role = m.sender === 'human' ? 'user' : m.sender === 'assistant' ? 'assistant' : undefined
    if (role === undefined) continue
    const text = messageText(m)
    if (text !== '') messages.push({ role, text, at: fromIso(m.created_at) })
  }
  if (messages.length === 0) return undefined
  return {
    id: textOf(value.uuid, 100),
    title: textOf(value.name, EXPORT_LIMITS.titleChars).trim(),
    at: fromIso(value.created_at) || messages[0]!.at,
    messages,
  }
}
