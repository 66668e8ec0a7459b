/**
 * One conversation of a ChatGPT data export (an element of its conversations.json) as learning reads it. A ChatGPT
 * conversation is a tree: `mapping` holds every node by id ({message, parent, children}), and each edit of a question
 * or regeneration of an answer starts a branch beside the old one. The conversation as the user last saw it is the
 * path from `current_node` up through the parents, so that path is read (root first) and every other branch skipped.
 * Of each message only text a person or the assistant wrote is kept: text parts and the text parts of multimodal
 * messages; pictures, files, code the assistant ran, tool output (browsing, quotes, execution results), system and
 * hidden messages are left out. Pure; never throws for what the element holds.
 */
import { EXPORT_LIMITS, type LearnConversation, type LearnMessage } from './conversation.ts'
import { fromSeconds, textOf } from './text.ts'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Content types whose parts are what someone wrote; every other type (code, tether_*, execution_output…) is not. */
const TEXT_TYPES = new Set(['text', 'multimodal_text'])

/** The text a message's content holds: its string parts, joined; '' for a content type that is not text. */
function contentText(content: unknown): string {
  if (!isObject(content) || typeof content.content_type !== 'string' || !TEXT_TYPES.has(content.content_type)) return ''
  if (!Array.isArray(content.parts)) return ''
  const texts: string[] = []
  let length = 0
  for (const part of content.parts) {
    // Pictures and files are objects (image_asset_pointer, audio…): skipped.
    if (typeof part !== 'string' || part.trim() === '') continue
    texts.push(part)
    length += part.length
    if (length >= EXPORT_LIMITS.messageChars) break
  }
  return textOf(texts.join('\n'), EXPORT_LIMITS.messageChars).trim()
}

/** A node's message as learning keeps it, or undefined when it is not a person's or the assistant's visible text. */
function messageOf(node: unknown): LearnMessage | undefined {
  if (!isObject(node) || !isObject(node.message)) return undefined
  const m = node.message
  const role = isObject(m.author) ? m.author.role : undefined
  if (role !== 'user' && role !== 'assistant') return undefined
  // The assistant's calls to its tools go to the tool, not to the user.
  if (typeof m.recipient === 'string' && m.recipient !== 'all') return undefined
  if (isObject(m.metadata) && m.metadata.is_visually_hidden_from_conversation === true) return undefined
  const text = contentText(m.content)
  return text === '' ? undefined : { role, text, at: fromSeconds(m.create_time) }
}

/** The ids from `current_node` up to the root, root first; a cycle or a missing parent ends the walk. */
function branch(mapping: Json, current: unknown): string[] {
  const path: string[] = []
  const seen = new Set<string>()
  let id = typeof current === 'string' ? current : undefined
  // The export of an old conversation may lack current_node: its last leaf on first children is read instead.
  if (id === undefined) id = lastLeaf(mapping)
  while (id !== undefined && Object.hasOwn(mapping, id) && !seen.has(id)) {
    seen.add(id)
    path.push(id)
    const node = mapping[id]
    id = isObject(node) && typeof node.parent === 'string' ? node.parent : undefined
  }
  return path.reverse()
}

/** The leaf reached from the root (the node without a parent) by always taking the last child. */
function lastLeaf(mapping: Json): string | undefined {
  let id = Object.keys(mapping).find((k) => {
    const n = mapping[k]
    return isObject(n) && (n.parent === null || n.parent === undefined)
  })
  const seen = new Set<string>()
  while (id !== undefined && !seen.has(id)) {
    seen.add(id)
    const n = mapping[id]
    const children = isObject(n) && Array.isArray(n.children) ? n.children : []
    const next = children[children.length - 1]
    if (typeof next !== 'string' || !Object.hasOwn(mapping, next)) return id
    id = next
  }
  return id
}

/** One element of a ChatGPT conversations.json, or undefined when it holds no conversation with text. */
export function chatGptConversation(value: unknown): LearnConversation | undefined {
  if (!isObject(value) || !isObject(value.mapping)) return undefined
  const mapping = value.mapping
  const messages: LearnMessage[] = []
  for (const id of branch(mapping, value.current_node)) {
    const m = messageOf(mapping[id])
    if (m !== undefined) messages.push(m)
  }
  if (messages.length === 0) return undefined
  const id = typeof value.conversation_id === 'string' ? value.conversation_id : value.id
  return {
    id: textOf(id, 100),
    title: textOf(value.title, EXPORT_LIMITS.titleChars).trim(),
    at: fromSeconds(value.create_time) || messages[0]!.at,
    messages,
  }
}
