/**
 * Reading ChatGPT and Claude data exports (lib/learn/export-read.ts) made in their real formats from a seed
 * (test/support/learn-exports.ts): every conversation reads to exactly the messages the user saw — the branch of
 * ChatGPT's tree that ends at current_node, whatever the order of the children, without the wordings edited away,
 * the answers regenerated away, system and hidden messages, pictures, code run and tool output; Claude's messages
 * without tool blocks, thinking or attachments — whether the export is the mailed zip or its conversations.json, and
 * a file that is no export is refused by name.
 */
import { describe, expect, it } from 'vitest'
import { EXPORT_LIMITS } from '../../lib/learn/conversation.ts'
import { parseExport, readExport } from '../../lib/learn/export-read.ts'
import { holdConversations } from '../../lib/learn/export-parts.ts'
import { chatGptExport, claudeExport, exportZip } from '../support/learn-exports.ts'
import { zip } from '../support/card-fixtures.ts'

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
const seen = (read: ReturnType<typeof parseExport>) =>
  read.conversations.map((c) => ({ title: c.title, messages: c.messages.map(({ role, text }) => ({ role, text })) }))

describe('reading a ChatGPT export', () => {
  const made = chatGptExport(300, 7)

  it('reads the branch the user last saw of every conversation of the mailed zip, and nothing else', () => {
    const read = parseExport(exportZip(made.conversations))
    expect(read.service).toBe('chatgpt')
    expect(seen(read)).toEqual(made.expected)
    const all = JSON.stringify(read)
    for (const gone of ['edited away', 'regenerated-away', 'print(1)', 'quoted', 'search(', 'asset_pointer'])
      expect(all).not.toContain(gone)
  })

  it('reads its conversations.json alone the same, with the times the export gives', () => {
    const read = parseExport(bytes(made.conversations))
    expect(seen(read)).toEqual(made.expected)
    const first = read.conversations[0]!
    expect(first.at).toBe(1_700_000_000_000)
    expect(first.id).toBe('conv-0')
    expect(first.messages[0]!.at).toBeGreaterThan(first.at)
  })

  it('reads branches that are not the last child, so taking the last child everywhere would fail', () => {
    type Node = { parent: string | null; children: string[] }
    const offLast = made.conversations.filter((c) => {
      const { mapping, current_node } = c as { mapping: Record<string, Node>; current_node: string }
      for (let id: string | null = current_node; id !== null; id = mapping[id]!.parent) {
        const parent: string | null = mapping[id]!.parent
        if (parent !== null && mapping[parent]!.children.at(-1) !== id) return true
      }
      return false
    })
    expect(offLast.length).toBeGreaterThan(10)
  })

  it('says what it found: conversations, messages and the period', () => {
    const small = chatGptExport(3, 2)
    const summary = holdConversations(parseExport(exportZip(small.conversations)).conversations).found('chatgpt')
    expect(summary).toEqual({
      service: 'chatgpt',
      conversations: 3,
      messages: small.expected.reduce((n, c) => n + c.messages.length, 0),
      from: 1_700_000_000_000,
      to: expect.any(Number),
    })
    expect(summary.to).toBeGreaterThan(1_700_000_000_000 + 2 * 86_400_000)
  })
})

describe('reading a Claude export', () => {
  const made = claudeExport(300, 11)

  it('reads every message in order, from the content blocks or the text, without tools, thinking or attachments', () => {
    for (const file of [bytes(made.conversations), exportZip(made.conversations, 'data-2025-01-01/')]) {
      const read = parseExport(file)
      expect(read.service).toBe('claude')
      expect(seen(read)).toEqual(made.expected)
      const all = JSON.stringify(read)
      for (const gone of ['secret attachment text', 'tool output', 'pondering']) expect(all).not.toContain(gone)
      expect(read.conversations[1]!.at).toBe(Date.UTC(2025, 0, 2))
    }
  })
})

describe('what is not an export', () => {
  const refusal = (file: Uint8Array) => {
    const read = readExport(file)
    if (read.ok) throw new Error('read')
    return read.error
  }

  it('refuses, by name, a file that is no export, an archive without conversations, and an empty export', () => {
    expect(refusal(bytes({ conversations: [] })).key).toBe('exportNotExport')
    expect(refusal(bytes([{ name: 'a card', data: {} }])).key).toBe('exportNotExport')
    expect(refusal(zip({ 'card.json': '{}' })).key).toBe('exportNoConversations')
    expect(refusal(bytes([])).key).toBe('exportEmpty')
    expect(refusal(new TextEncoder().encode('[{"mapping": {'))).toMatchObject({
      key: 'notJson',
      field: 'conversations.json',
    })
  })

  it('keeps a message of a pasted book to its first characters', () => {
    const long = claudeExport(1, 3)
    const c = long.conversations[0] as { chat_messages: { text: string; content: unknown[] }[] }
    c.chat_messages[0]!.text = 'x'.repeat(50_000)
    c.chat_messages[0]!.content = []
    const read = parseExport(bytes(long.conversations))
    expect(read.conversations[0]!.messages[0]!.text).toHaveLength(EXPORT_LIMITS.messageChars)
  })
})
